// The HTML report's section on the event window the runs were cut to: the condition, the
// window, each run's trigger and the runs left out.

#ifndef WASSERWARP_SRC_REPORT_HTML_WINDOW_H_
#define WASSERWARP_SRC_REPORT_HTML_WINDOW_H_

#include <string>

#include "wasserwarp/report.h"
#include "wasserwarp/runs_view.h"

namespace wasserwarp {

// Empty when the report has no window.
std::string WindowSectionHtml(const ValidationReport& report);

// The runs of `runs` (of `side`) that the report is of: those its window did not leave out.
RunsView WindowedRunsOf(const ValidationReport& report, const RunsView& runs,
                        const std::string& side);

}  // namespace wasserwarp

#endif  // WASSERWARP_SRC_REPORT_HTML_WINDOW_H_
