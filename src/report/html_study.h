// What the sensitivity and identification pages share: how parameters, vectors and the
// references' baseline read, the table of design points, the section on how the study ran, and
// the checks that a report's vectors fit its parameter names.

#ifndef WASSERWARP_SRC_REPORT_HTML_STUDY_H_
#define WASSERWARP_SRC_REPORT_HTML_STUDY_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "nlohmann/json.hpp"
#include "wasserwarp/html_report.h"
#include "wasserwarp/parameter_study.h"

namespace wasserwarp {

// InvalidArgument naming `what` unless it holds one value per parameter.
absl::Status CheckPerParameter(absl::string_view what, size_t values, size_t parameters);

// The same for every design point's vector.
absl::Status CheckPoints(const std::vector<std::string>& names,
                         const std::vector<StudyPoint>& points);

// A parameter's name, escaped, as code.
std::string ParameterHtml(const std::string& name);

// "a = 1, b = 2.5".
std::string VectorHtml(const std::vector<std::string>& names, const std::vector<double>& values);

// The references' baseline with what it is; says why there is none.
std::string BaselineHtml(const std::optional<double>& baseline);

// A value for the page's script: rounded for drawing, null when not finite (JSON has no NaN).
nlohmann::json DrawnNumber(double value);

// The banner's meta line: runs and points, then ToolMeta.
std::vector<std::string> StudyMeta(int simulation_runs, size_t points, int reference_runs,
                                   const HtmlReportOptions& options);

// One row per design point: its parameters, runs and W, with the fitted surface's W and the
// residual when `fitted` holds one per point; then the parameters fixed at one value.
std::string PointsSectionHtml(const std::vector<std::string>& names,
                              const std::vector<StudyPoint>& points,
                              const std::vector<FixedParameter>& fixed,
                              const std::vector<double>& fitted = {});

// How the study ran: its size, the bootstrap, the work done and the tool; `extra_rows` are
// KeyValueRow()s of the analysis' own.
std::string StudySectionHtml(const StudySummary& summary, size_t points,
                             absl::string_view extra_rows, const HtmlReportOptions& options);

}  // namespace wasserwarp

#endif  // WASSERWARP_SRC_REPORT_HTML_STUDY_H_
