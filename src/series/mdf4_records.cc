// A big-endian value's bytes are read as one big-endian number, of which the bit offset then
// counts from the least significant bit, as for little endian: the reading of the bytes differs,
// the bit arithmetic does not. A value with a bit offset may touch 9 bytes, one more than a
// 64-bit word, so the bytes are shifted into place one by one.

#include "series/mdf4_records.h"

#include <cstring>

#include "absl/strings/str_cat.h"

namespace wasserwarp::mdf4 {
namespace {

uint64_t RawBits(const uint8_t* value, const ValueLayout& layout) {
  const uint64_t n = layout.bytes();
  uint64_t bits = 0;
  for (uint64_t i = 0; i < n; ++i) {
    const uint64_t byte = value[layout.big_endian ? n - 1 - i : i];
    const int64_t shift = static_cast<int64_t>(8 * i) - layout.bit_offset;
    if (shift >= 0) {
      if (shift < 64) bits |= byte << shift;
    } else {
      bits |= byte >> -shift;
    }
  }
  if (layout.bit_count < 64) bits &= (uint64_t{1} << layout.bit_count) - 1;
  return bits;
}

}  // namespace

std::string ValueLayout::Describe() const {
  const char* kind = encoding == Encoding::kFloat    ? "float"
                     : encoding == Encoding::kSigned ? "int"
                                                     : "uint";
  return absl::StrCat(kind, bit_count, big_endian ? " BE" : " LE");
}

absl::Status LayoutForDataType(int data_type, ValueLayout& layout) {
  static constexpr const char* kOthers[] = {"a Latin-1 string",
                                            "a UTF-8 string",
                                            "a UTF-16 LE string",
                                            "a UTF-16 BE string",
                                            "a byte array",
                                            "a MIME sample",
                                            "a MIME stream",
                                            "a CANopen date",
                                            "a CANopen time",
                                            "a complex number (little endian)",
                                            "a complex number (big endian)"};
  if (data_type >= 0 && data_type <= 5) {
    layout.encoding = data_type < 2   ? Encoding::kUnsigned
                      : data_type < 4 ? Encoding::kSigned
                                      : Encoding::kFloat;
    layout.big_endian = data_type % 2 == 1;
    return absl::OkStatus();
  }
  if (data_type >= 6 && data_type < 6 + static_cast<int>(std::size(kOthers))) {
    return absl::UnimplementedError(
        absl::StrCat("data type ", data_type, " (", kOthers[data_type - 6], ") is not supported"));
  }
  return absl::InvalidArgumentError(absl::StrCat("unknown data type ", data_type));
}

absl::Status CheckLayout(const ValueLayout& layout, uint64_t data_bytes) {
  if (layout.bit_offset > 7) {
    return absl::InvalidArgumentError(
        absl::StrCat("bit offset ", layout.bit_offset, " is not between 0 and 7"));
  }
  if (layout.encoding == Encoding::kFloat) {
    if (layout.bit_count != 32 && layout.bit_count != 64) {
      return absl::UnimplementedError(
          absl::StrCat("a float of ", layout.bit_count, " bits is not supported"));
    }
    if (layout.bit_offset != 0) {
      return absl::UnimplementedError("a float at a bit offset is not supported");
    }
  } else if (layout.bit_count < 1 || layout.bit_count > 64) {
    return absl::UnimplementedError(
        absl::StrCat("an integer of ", layout.bit_count, " bits is not supported"));
  }
  if (layout.byte_offset > data_bytes || layout.bytes() > data_bytes - layout.byte_offset) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the value (byte offset ", layout.byte_offset, ", bit offset ", layout.bit_offset, ", ",
        layout.bit_count, " bits) does not fit in the records' ", data_bytes, " data bytes"));
  }
  return absl::OkStatus();
}

double DecodeValue(const uint8_t* record, const ValueLayout& layout) {
  const uint64_t bits = RawBits(record + layout.byte_offset, layout);
  switch (layout.encoding) {
    case Encoding::kUnsigned:
      return static_cast<double>(bits);
    case Encoding::kSigned: {
      if (layout.bit_count == 64) return static_cast<double>(static_cast<int64_t>(bits));
      const uint64_t sign = uint64_t{1} << (layout.bit_count - 1);
      // Two's complement of bit_count bits: subtract 2^bit_count when the sign bit is set.
      return static_cast<double>(static_cast<int64_t>(bits ^ sign) - static_cast<int64_t>(sign));
    }
    case Encoding::kFloat:
      if (layout.bit_count == 32) {
        const uint32_t narrow = static_cast<uint32_t>(bits);
        float value = 0;
        std::memcpy(&value, &narrow, sizeof(value));
        return value;
      } else {
        double value = 0;
        std::memcpy(&value, &bits, sizeof(value));
        return value;
      }
  }
  return 0;
}

}  // namespace wasserwarp::mdf4
