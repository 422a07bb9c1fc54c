// Numbers as the HTML report shows and draws them.

#ifndef WASSERWARP_SRC_REPORT_HTML_TEXT_H_
#define WASSERWARP_SRC_REPORT_HTML_TEXT_H_

#include <string>

namespace wasserwarp {

// `significant` digits, "%g"-style; NaN is an em dash and infinities are "∞" / "−∞".
std::string FormatNumber(double value, int significant = 4);

// "a – b", or one number when both print the same.
std::string FormatRange(double low, double high, int significant = 4);

// `value` rounded to 6 significant digits, so that the report's JSON holds
// "0.123457" rather than 17 digits no chart can show; non-finite values unchanged.
double RoundForDrawing(double value);

}  // namespace wasserwarp

#endif  // WASSERWARP_SRC_REPORT_HTML_TEXT_H_
