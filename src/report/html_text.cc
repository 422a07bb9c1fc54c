#include "report/html_text.h"

#include <cmath>
#include <cstdlib>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace wasserwarp {

std::string FormatNumber(double value, int significant) {
  if (std::isnan(value)) return "\u2014";
  if (std::isinf(value)) return value > 0 ? "\u221e" : "\u2212\u221e";
  return absl::StrFormat("%.*g", significant, value);
}

std::string FormatRange(double low, double high, int significant) {
  const std::string a = FormatNumber(low, significant);
  const std::string b = FormatNumber(high, significant);
  return a == b ? a : absl::StrCat(a, " \u2013 ", b);
}

double RoundForDrawing(double value) {
  if (!std::isfinite(value) || value == 0.0) return value;
  return std::strtod(absl::StrFormat("%.6g", value).c_str(), nullptr);
}

}  // namespace wasserwarp
