// The conversions of MDF 4 (CC blocks) from a channel's raw values to its physical values, those
// that map numbers to numbers: identity, linear, rational, and value-to-value tables with and
// without interpolation. The others (algebraic formulas, text tables, ...) are refused by name.

#ifndef WASSERWARP_SRC_SERIES_MDF4_CONVERSION_H_
#define WASSERWARP_SRC_SERIES_MDF4_CONVERSION_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "series/mdf4_blocks.h"

namespace wasserwarp::mdf4 {

struct Conversion {
  enum class Kind { kIdentity, kLinear, kRational, kTableInterpolated, kTableNearest };
  Kind kind = Kind::kIdentity;
  // Linear: offset, factor. Rational: P1..P6 of (P1 x^2 + P2 x + P3) / (P4 x^2 + P5 x + P6).
  // Tables: key, value, key, value, ... with keys in ascending order.
  std::vector<double> parameters;
  // Where the CC block is of a type this reader does not read, what it is ("the value-to-text
  // conversion (CC type 7, block at offset 5192)"); Apply is not for such a conversion.
  std::string unsupported;

  // What the conversion is, as `inspect` shows it.
  std::string Describe() const;
  // The physical value of raw value `x`; NaN where a rational's denominator is zero.
  double Apply(double x) const;
};

// The conversion that link `k` of channel block `channel` points to (identity for none);
// InvalidArgument for a malformed CC block.
absl::StatusOr<Conversion> ReadConversion(const FileView& file, const Block& channel, size_t k);

}  // namespace wasserwarp::mdf4

#endif  // WASSERWARP_SRC_SERIES_MDF4_CONVERSION_H_
