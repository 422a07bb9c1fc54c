// Numbers in the pipeline reports (JUnit properties, OpenMetrics samples), where a reader parses
// them back: the fewest significant digits (15 to 17) that read back to the same double, and the
// non-finite values as OpenMetrics spells them.

#ifndef WASSERWARP_SRC_REPORT_REPORT_NUMBER_H_
#define WASSERWARP_SRC_REPORT_REPORT_NUMBER_H_

#include <string>

namespace wasserwarp {

// "1.5", "1e-07", "+Inf", "-Inf", "NaN".
std::string ReportNumber(double value);

}  // namespace wasserwarp

#endif  // WASSERWARP_SRC_REPORT_REPORT_NUMBER_H_
