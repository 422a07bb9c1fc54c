// Where a channel's value lies in a record and how it is encoded, and the decoding of it: integers
// signed or unsigned, little or big endian, of any width from 1 to 64 bits at any bit offset, and
// IEEE 754 floats of 32 and 64 bits; and the invalidation bits that follow a record's data bytes.

#ifndef WASSERWARP_SRC_SERIES_MDF4_RECORDS_H_
#define WASSERWARP_SRC_SERIES_MDF4_RECORDS_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace wasserwarp::mdf4 {

enum class Encoding { kUnsigned, kSigned, kFloat };

struct ValueLayout {
  Encoding encoding = Encoding::kUnsigned;
  bool big_endian = false;
  uint32_t byte_offset = 0;  // from the first data byte of the record, after the record id
  uint32_t bit_offset = 0;   // 0 to 7, of the value's least significant bit
  uint32_t bit_count = 0;

  // The bytes the value touches from byte_offset on.
  uint64_t bytes() const { return (uint64_t{bit_offset} + bit_count + 7) / 8; }
  // "uint12 LE", "float64 BE", ...
  std::string Describe() const;
};

// The layout of a value of MDF 4 data type `data_type` (cn_data_type), or UnimplementedError
// naming the data type for those that are not numbers (strings, byte arrays, ...).
absl::Status LayoutForDataType(int data_type, ValueLayout& layout);

// Ok when a value laid out as `layout` is a supported width and lies inside `data_bytes` bytes;
// otherwise a message that says why not (Unimplemented for unsupported widths, InvalidArgument
// for values outside the record).
absl::Status CheckLayout(const ValueLayout& layout, uint64_t data_bytes);

// The value at `layout` in `record`, the record's data bytes; CheckLayout passed.
double DecodeValue(const uint8_t* record, const ValueLayout& layout);

// Whether invalidation bit `bit` is set in `invalidation`, the record's invalidation bytes.
inline bool InvalidationBitSet(const uint8_t* invalidation, uint32_t bit) {
  return (invalidation[bit / 8] >> (bit % 8)) & 1;
}

}  // namespace wasserwarp::mdf4

#endif  // WASSERWARP_SRC_SERIES_MDF4_RECORDS_H_
