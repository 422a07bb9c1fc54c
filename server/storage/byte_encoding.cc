#include "storage/byte_encoding.h"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <utility>

namespace wasserwarp::service {

std::string EncodeStrings(const std::vector<std::string>& strings) {
  std::string bytes;
  for (const std::string& s : strings) {
    const uint32_t size = static_cast<uint32_t>(s.size());
    for (int shift = 0; shift < 32; shift += 8) bytes.push_back(static_cast<char>(size >> shift));
    bytes += s;
  }
  return bytes;
}

std::optional<std::vector<std::string>> DecodeStrings(std::string_view bytes) {
  std::vector<std::string> strings;
  while (!bytes.empty()) {
    if (bytes.size() < 4) return std::nullopt;
    uint32_t size = 0;
    for (int i = 0; i < 4; ++i) size |= uint32_t{static_cast<unsigned char>(bytes[i])} << (8 * i);
    bytes.remove_prefix(4);
    if (bytes.size() < size) return std::nullopt;
    strings.emplace_back(bytes.substr(0, size));
    bytes.remove_prefix(size);
  }
  return strings;
}

std::string EncodeParameters(const std::map<std::string, double>& parameters) {
  std::vector<std::string> entries;
  entries.reserve(parameters.size());
  std::string scratch;
  for (const auto& [name, value] : parameters) {
    std::string entry(DoubleBytes(&value, 1, scratch));
    entry += name;
    entries.push_back(std::move(entry));
  }
  return EncodeStrings(entries);
}

std::optional<std::map<std::string, double>> DecodeParameters(std::string_view bytes) {
  std::optional<std::vector<std::string>> entries = DecodeStrings(bytes);
  if (!entries.has_value()) return std::nullopt;
  std::map<std::string, double> parameters;
  for (const std::string& entry : *entries) {
    if (entry.size() < sizeof(double)) return std::nullopt;
    std::string name = entry.substr(sizeof(double));
    if (!parameters.empty() && name <= parameters.rbegin()->first) return std::nullopt;
    std::vector<double> value;
    AppendDoubles(std::string_view(entry).substr(0, sizeof(double)), value);
    parameters.emplace_hint(parameters.end(), std::move(name), value[0]);
  }
  return parameters;
}

std::string_view DoubleBytes(const double* values, size_t count, std::string& scratch) {
  if constexpr (std::endian::native == std::endian::little) {
    return std::string_view(reinterpret_cast<const char*>(values), count * sizeof(double));
  } else {
    scratch.clear();
    for (size_t i = 0; i < count; ++i) {
      const uint64_t bits = std::bit_cast<uint64_t>(values[i]);
      for (int shift = 0; shift < 64; shift += 8) {
        scratch.push_back(static_cast<char>(bits >> shift));
      }
    }
    return scratch;
  }
}

void AppendDoubles(std::string_view bytes, std::vector<double>& out) {
  const size_t count = bytes.size() / sizeof(double);
  const size_t begin = out.size();
  out.resize(begin + count);
  if constexpr (std::endian::native == std::endian::little) {
    std::copy_n(bytes.data(), count * sizeof(double), reinterpret_cast<char*>(out.data() + begin));
  } else {
    for (size_t i = 0; i < count; ++i) {
      uint64_t bits = 0;
      for (int b = 0; b < 8; ++b) {
        bits |= uint64_t{static_cast<unsigned char>(bytes[i * 8 + b])} << (8 * b);
      }
      out[begin + i] = std::bit_cast<double>(bits);
    }
  }
}

}  // namespace wasserwarp::service
