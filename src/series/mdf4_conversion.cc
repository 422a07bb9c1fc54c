// A CC block's data section: cc_type (1 byte), precision (1), flags (2), ref count (2), value
// count (2), the physical range (2 doubles), then the values (doubles).
//
// Tables without interpolation take the value of the nearest key, the lower one on a tie, and
// both kinds of tables hold the first and last values outside their keys, as ASAM MDF 4.1
// says.

#include "series/mdf4_conversion.h"

#include <algorithm>
#include <cmath>
#include <iterator>

#include "absl/strings/str_cat.h"

namespace wasserwarp::mdf4 {
namespace {

constexpr size_t kFixedBytes = 24;

// The names of the conversion types this reader refuses, by cc_type; empty for those it reads.
constexpr absl::string_view kUnsupported[] = {"",
                                              "",
                                              "",
                                              "the algebraic conversion",
                                              "",
                                              "",
                                              "the value-range-to-value conversion",
                                              "the value-to-text conversion",
                                              "the value-range-to-text conversion",
                                              "the text-to-value conversion",
                                              "the text-to-text conversion",
                                              "the bitfield-to-text conversion"};

absl::StatusOr<Conversion::Kind> KindOf(int type, const FileView& file, const Block& block) {
  switch (type) {
    case 0:
      return Conversion::Kind::kIdentity;
    case 1:
      return Conversion::Kind::kLinear;
    case 2:
      return Conversion::Kind::kRational;
    case 4:
      return Conversion::Kind::kTableInterpolated;
    case 5:
      return Conversion::Kind::kTableNearest;
    default:
      break;
  }
  if (type >= static_cast<int>(std::size(kUnsupported))) {
    return file.Error(block, absl::StrCat("unknown conversion type ", type));
  }
  return absl::UnimplementedError(absl::StrCat(kUnsupported[type], " (CC type ", type,
                                               ", block at offset ", block.offset, ")"));
}

absl::Status CheckParameters(const Conversion& conversion, const FileView& file,
                             const Block& block) {
  const std::vector<double>& p = conversion.parameters;
  for (const double value : p) {
    if (!std::isfinite(value)) return file.Error(block, "a conversion parameter is not finite");
  }
  size_t needed = 0;
  switch (conversion.kind) {
    case Conversion::Kind::kIdentity:
      return absl::OkStatus();
    case Conversion::Kind::kLinear:
      needed = 2;
      break;
    case Conversion::Kind::kRational:
      needed = 6;
      break;
    case Conversion::Kind::kTableInterpolated:
    case Conversion::Kind::kTableNearest:
      if (p.size() < 2 || p.size() % 2 != 0) {
        return file.Error(block, absl::StrCat("a value-to-value table needs key-value pairs, got ",
                                              p.size(), " values"));
      }
      for (size_t i = 2; i < p.size(); i += 2) {
        if (p[i] < p[i - 2]) {
          return file.Error(block, absl::StrCat("the keys of its value-to-value table are not in ",
                                                "ascending order (key ", i / 2 + 1, ")"));
        }
      }
      return absl::OkStatus();
  }
  if (p.size() != needed) {
    return file.Error(block,
                      absl::StrCat("expected ", needed, " conversion parameters, got ", p.size()));
  }
  return absl::OkStatus();
}

// The number of keys of table `p` (key, value, ...) that are at most `x`, by bisection: a table
// may have 32767 keys, and it is looked up once a sample.
size_t KeysUpTo(const std::vector<double>& p, double x) {
  size_t lo = 0, hi = p.size() / 2;
  while (lo < hi) {
    const size_t mid = lo + (hi - lo) / 2;
    if (p[2 * mid] <= x) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo;
}

double Interpolated(const std::vector<double>& p, double x) {
  const size_t pairs = p.size() / 2;
  if (x <= p[0]) return p[1];
  if (x >= p[2 * (pairs - 1)]) return p[2 * pairs - 1];
  const size_t hi = KeysUpTo(p, x);
  const double x0 = p[2 * (hi - 1)], y0 = p[2 * hi - 1], x1 = p[2 * hi], y1 = p[2 * hi + 1];
  return y0 + (y1 - y0) * (x - x0) / (x1 - x0);
}

double Nearest(const std::vector<double>& p, double x) {
  const size_t above = KeysUpTo(p, x);
  if (above == 0) return p[1];
  if (above == p.size() / 2) return p[p.size() - 1];
  // Keys below and above x; the lower on a tie. Of equal keys below, the first.
  size_t below = above - 1;
  while (below > 0 && p[2 * (below - 1)] == p[2 * below]) --below;
  return x - p[2 * below] <= p[2 * above] - x ? p[2 * below + 1] : p[2 * above + 1];
}

}  // namespace

std::string Conversion::Describe() const {
  if (!unsupported.empty()) return unsupported;
  switch (kind) {
    case Kind::kIdentity:
      return "identity";
    case Kind::kLinear:
      return absl::StrCat("linear ", parameters[0], " + ", parameters[1], " x");
    case Kind::kRational:
      return "rational";
    case Kind::kTableInterpolated:
      return absl::StrCat("value-to-value table, interpolated (", parameters.size() / 2,
                          " points)");
    case Kind::kTableNearest:
      return absl::StrCat("value-to-value table, nearest key (", parameters.size() / 2, " points)");
  }
  return "";
}

double Conversion::Apply(double x) const {
  const std::vector<double>& p = parameters;
  switch (kind) {
    case Kind::kIdentity:
      return x;
    case Kind::kLinear:
      return p[0] + p[1] * x;
    case Kind::kRational: {
      const double denominator = (p[3] * x + p[4]) * x + p[5];
      if (denominator == 0) return std::nan("");
      return ((p[0] * x + p[1]) * x + p[2]) / denominator;
    }
    case Kind::kTableInterpolated:
      return Interpolated(p, x);
    case Kind::kTableNearest:
      return Nearest(p, x);
  }
  return x;
}

absl::StatusOr<Conversion> ReadConversion(const FileView& file, const Block& channel, size_t k) {
  Conversion conversion;
  if (channel.link(k) == 0) return conversion;
  absl::StatusOr<Block> block = file.Follow(channel, k, {"##CC"}, "conversion");
  if (!block.ok()) return block.status();
  if (absl::Status size = file.RequireData(*block, kFixedBytes); !size.ok()) return size;
  const int type = static_cast<uint8_t>(block->data[0]);
  absl::StatusOr<Conversion::Kind> kind = KindOf(type, file, *block);
  if (kind.status().code() == absl::StatusCode::kUnimplemented) {
    conversion.unsupported = std::string(kind.status().message());
    return conversion;
  }
  if (!kind.ok()) return kind.status();
  conversion.kind = *kind;
  const size_t count = LoadLe(block->data, 6, 2);
  if (absl::Status size = file.RequireData(*block, kFixedBytes + 8 * count); !size.ok()) {
    return size;
  }
  conversion.parameters.reserve(count);
  for (size_t i = 0; i < count; ++i) {
    conversion.parameters.push_back(LoadLeDouble(block->data, kFixedBytes + 8 * i));
  }
  if (absl::Status valid = CheckParameters(conversion, file, *block); !valid.ok()) return valid;
  return conversion;
}

}  // namespace wasserwarp::mdf4
