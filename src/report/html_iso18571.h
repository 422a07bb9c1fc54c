// The HTML report's ISO/TS 18571 section: the plan-weighted averages per channel and every
// rated pair, each rating in its grade's colour.

#ifndef WASSERWARP_SRC_REPORT_HTML_ISO18571_H_
#define WASSERWARP_SRC_REPORT_HTML_ISO18571_H_

#include <string>

#include "wasserwarp/report.h"

namespace wasserwarp {

// Empty when the validation did not rate its pairs.
std::string Iso18571SectionHtml(const ValidationReport& report);

}  // namespace wasserwarp

#endif  // WASSERWARP_SRC_REPORT_HTML_ISO18571_H_
