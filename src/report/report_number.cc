#include "report/report_number.h"

#include <cmath>
#include <cstdlib>

#include "absl/strings/str_format.h"

namespace wasserwarp {

std::string ReportNumber(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "+Inf" : "-Inf";
  // The fewest digits that read back to the same double: 0.05, not 0.050000000000000003.
  std::string text;
  for (int digits = 15; digits <= 17; ++digits) {
    text = absl::StrFormat("%.*g", digits, value);
    if (std::strtod(text.c_str(), nullptr) == value) break;
  }
  return text;
}

}  // namespace wasserwarp
