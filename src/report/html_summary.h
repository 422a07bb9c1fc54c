// The HTML report's text sections, written as static HTML so they read
// without JavaScript: the verdict banner, the decision rules and the
// statistics behind them, the inputs and parameters, and the classic
// metrics of the matched pairs.

#ifndef WASSERWARP_SRC_REPORT_HTML_SUMMARY_H_
#define WASSERWARP_SRC_REPORT_HTML_SUMMARY_H_

#include <string>
#include <vector>

#include "wasserwarp/html_report.h"
#include "wasserwarp/report.h"
#include "wasserwarp/runs_view.h"

namespace wasserwarp {

// The page's title when the options give none.
inline constexpr char kValidationTitle[] = "wasserwarp validation report";

// PASS / FAIL (or why there is neither), the title, and the key figures.
std::string VerdictBannerHtml(const ValidationReport& report, const HtmlReportOptions& options);

// Each decision rule with value and threshold, the permutation test, the
// baseline and the verdict's warnings.
std::string VerdictSectionHtml(const ValidationReport& report);

// Runs, samples, sampling rates, durations and weights per side; the
// channels; every parameter; the transport certificate and the work done.
// `simulation` and `reference` are the raw runs (as the event window cut them, where there is
// one: the durations are the windows', and a column gives the triggers); both empty when they
// are no longer held.
std::string InputsSectionHtml(const ValidationReport& report, const RunsView& simulation,
                              const RunsView& reference, const HtmlReportOptions& options);

// RMSE, Theil's U, Q3, Sprague-Geers and lag per matched pair and channel,
// after their plan-weighted means.
std::string PairMetricsSectionHtml(const ValidationReport& report);

}  // namespace wasserwarp

#endif  // WASSERWARP_SRC_REPORT_HTML_SUMMARY_H_
