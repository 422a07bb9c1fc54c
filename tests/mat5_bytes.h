// MAT v5 files written byte by byte from MathWorks' "MAT-File Format" description (a 128-byte
// header, then tagged data elements padded to 8 bytes), without matio: the reader's tests then
// check it against files no part of matio wrote, as the MDF 4 tests do with mdf4_writer.h.

#ifndef WASSERWARP_TESTS_MAT5_BYTES_H_
#define WASSERWARP_TESTS_MAT5_BYTES_H_

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace wasserwarp::test_support::mat5 {

// Data types and array classes of the format.
enum : uint32_t { kInt8 = 1, kInt16 = 3, kUint16 = 4, kInt32 = 5, kUint32 = 6, kDouble = 9 };
enum : uint32_t { kMatrix = 14 };
enum : uint8_t { kStructClass = 2, kCharClass = 4, kDoubleClass = 6, kInt16Class = 10 };

template <typename T>
std::string Bytes(const std::vector<T>& values) {
  std::string out(values.size() * sizeof(T), '\0');
  if (!values.empty()) std::memcpy(out.data(), values.data(), out.size());
  return out;
}

// A tag (type, byte count) and the data, padded to a multiple of 8 bytes.
inline std::string Element(uint32_t type, const std::string& data) {
  std::string out = Bytes(std::vector<uint32_t>{type, static_cast<uint32_t>(data.size())}) + data;
  out.resize((out.size() + 7) / 8 * 8, '\0');
  return out;
}

// An array: its flags, dimensions, name and `contents` (the data elements after the name).
inline std::string Array(uint8_t array_class, const std::vector<int32_t>& dimensions,
                         const std::string& name, const std::string& contents) {
  return Element(kMatrix, Element(kUint32, Bytes(std::vector<uint32_t>{array_class, 0})) +
                              Element(kInt32, Bytes(dimensions)) + Element(kInt8, name) + contents);
}

// A rows x cols double matrix, `values` column-major.
inline std::string Doubles(const std::string& name, int32_t rows, int32_t cols,
                           const std::vector<double>& values) {
  return Array(kDoubleClass, {rows, cols}, name, Element(kDouble, Bytes(values)));
}

inline std::string Int16s(const std::string& name, const std::vector<int16_t>& values) {
  return Array(kInt16Class, {static_cast<int32_t>(values.size()), 1}, name,
               Element(kInt16, Bytes(values)));
}

// A 1 x n char array of ASCII text, as UTF-16 code units.
inline std::string Text(const std::string& name, const std::string& text) {
  std::vector<uint16_t> units(text.begin(), text.end());
  return Array(kCharClass, {1, static_cast<int32_t>(units.size())}, name,
               Element(kUint16, Bytes(units)));
}

// A 1 x elements struct array with `fields`; `values` holds each element's fields in order
// (element-major), as arrays with empty names.
inline std::string Struct(const std::string& name, const std::vector<std::string>& fields,
                          int32_t elements, const std::vector<std::string>& values) {
  constexpr int32_t kFieldNameLength = 32;
  std::string names;
  for (const std::string& field : fields) {
    std::string padded = field;
    padded.resize(kFieldNameLength, '\0');
    names += padded;
  }
  // The field name length as a small data element: byte count and type in one word.
  std::string contents = Bytes(std::vector<uint32_t>{kInt32 | (4u << 16)}) +
                         Bytes(std::vector<int32_t>{kFieldNameLength});
  contents += Element(kInt8, names);
  for (const std::string& value : values) contents += value;
  return Array(kStructClass, {1, elements}, name, contents);
}

// A whole file: the header (text, no subsystem data, version 0x0100, "IM" for little endian)
// and `elements`.
inline std::string File(const std::vector<std::string>& elements) {
  std::string header = "MATLAB 5.0 MAT-file, written by wasserwarp's tests";
  header.resize(116, ' ');
  header += std::string(8, '\0');
  header += Bytes(std::vector<uint16_t>{0x0100});
  header += "IM";
  for (const std::string& element : elements) header += element;
  return header;
}

}  // namespace wasserwarp::test_support::mat5

#endif  // WASSERWARP_TESTS_MAT5_BYTES_H_
