#include "report/html_study.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"
#include "nlohmann/json.hpp"
#include "report/html_escape.h"
#include "report/html_page.h"
#include "report/html_text.h"
#include "wasserwarp/html_report.h"
#include "wasserwarp/parameter_study.h"

namespace wasserwarp {
namespace {

// A design of more points than this is a table nobody reads row by row; the JSON has them all.
constexpr size_t kMaxPointRows = 500;

}  // namespace

absl::Status CheckPerParameter(absl::string_view what, size_t values, size_t parameters) {
  if (values == parameters) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat("the report has ", values, " values in ", what,
                                                 " for ", parameters, " parameters"));
}

absl::Status CheckPoints(const std::vector<std::string>& names,
                         const std::vector<StudyPoint>& points) {
  for (size_t p = 0; p < points.size(); ++p) {
    if (absl::Status s = CheckPerParameter(absl::StrCat("design point ", p),
                                           points[p].parameters.size(), names.size());
        !s.ok()) {
      return s;
    }
  }
  return absl::OkStatus();
}

std::string ParameterHtml(const std::string& name) {
  return absl::StrCat("<code>", EscapeHtml(name), "</code>");
}

std::string VectorHtml(const std::vector<std::string>& names, const std::vector<double>& values) {
  std::vector<std::string> parts;
  for (size_t i = 0; i < names.size() && i < values.size(); ++i) {
    parts.push_back(absl::StrCat(ParameterHtml(names[i]), " = ", FormatNumber(values[i], 6)));
  }
  return absl::StrJoin(parts, ", ");
}

std::string BaselineHtml(const std::optional<double>& baseline) {
  if (!baseline.has_value()) {
    return "none <span class=\"unit\">(it needs at least 2 reference runs)</span>";
  }
  return absl::StrCat(FormatNumber(*baseline, 4),
                      " <span class=\"unit\">median W between random halves of the reference "
                      "runs: how far the measurements are from each other</span>");
}

nlohmann::json DrawnNumber(double value) {
  return std::isfinite(value) ? nlohmann::json(RoundForDrawing(value)) : nlohmann::json(nullptr);
}

std::vector<std::string> StudyMeta(int simulation_runs, size_t points, int reference_runs,
                                   const HtmlReportOptions& options) {
  std::vector<std::string> meta = {absl::StrCat(simulation_runs, " simulated runs at ", points,
                                                " design points vs ", reference_runs,
                                                " reference runs")};
  for (std::string& item : ToolMeta(options)) meta.push_back(std::move(item));
  return meta;
}

std::string PointsSectionHtml(const std::vector<std::string>& names,
                              const std::vector<StudyPoint>& points,
                              const std::vector<FixedParameter>& fixed,
                              const std::vector<double>& fitted) {
  const bool with_fit = !fitted.empty() && fitted.size() == points.size();
  std::string html =
      "<section id=\"points\">\n<h2>Design points</h2>\n"
      "<p class=\"explain\">Each parameter vector the simulated runs were made at, with how many "
      "runs and W between them and all reference runs.";
  if (with_fit) absl::StrAppend(&html, " Residual: W minus the fitted surface's W at the point.");
  absl::StrAppend(&html, "</p>\n<div class=\"table-scroll\"><table class=\"metrics\"><thead><tr>");
  for (const std::string& name : names) absl::StrAppend(&html, Cell("th", ParameterHtml(name)));
  absl::StrAppend(&html, "<th class=\"num\">Runs</th><th class=\"num\">W</th>");
  if (with_fit) {
    absl::StrAppend(&html, "<th class=\"num\">Fitted</th><th class=\"num\">Residual</th>");
  }
  absl::StrAppend(&html, "</tr></thead><tbody>\n");
  const size_t shown = std::min(points.size(), kMaxPointRows);
  for (size_t p = 0; p < shown; ++p) {
    const StudyPoint& point = points[p];
    absl::StrAppend(&html, "<tr>");
    for (double value : point.parameters) {
      absl::StrAppend(&html, Cell("td", FormatNumber(value, 6), "num"));
    }
    absl::StrAppend(&html, Cell("td", absl::StrCat(point.runs), "num"),
                    Cell("td", FormatNumber(point.distance, 5), "num"));
    if (with_fit) {
      absl::StrAppend(&html, Cell("td", FormatNumber(fitted[p], 5), "num"),
                      Cell("td", FormatNumber(point.distance - fitted[p], 3), "num"));
    }
    absl::StrAppend(&html, "</tr>\n");
  }
  absl::StrAppend(&html, "</tbody></table></div>\n");
  if (shown < points.size()) {
    absl::StrAppend(&html, Note(absl::StrCat("The first ", shown, " of ", points.size(),
                                             " design points are shown.")));
  }
  if (!fixed.empty()) {
    std::vector<std::string> values;
    for (const FixedParameter& parameter : fixed) {
      values.push_back(
          absl::StrCat(ParameterHtml(parameter.name), " = ", FormatNumber(parameter.value, 6)));
    }
    absl::StrAppend(&html,
                    "<p id=\"fixed-parameters\" class=\"explain\">Fixed (the same in every "
                    "simulated run, so not an axis of the study): ",
                    absl::StrJoin(values, ", "), ".</p>\n");
  }
  absl::StrAppend(&html, "</section>\n");
  return html;
}

std::string StudySectionHtml(const StudySummary& summary, size_t points,
                             absl::string_view extra_rows, const HtmlReportOptions& options) {
  std::string html =
      "<section id=\"study\">\n<h2>How the study ran</h2>\n<table class=\"keyvalue\"><tbody>\n";
  absl::StrAppend(&html, KeyValueRow("Simulated runs", absl::StrCat(summary.simulation_runs)),
                  KeyValueRow("Design points", absl::StrCat(points)),
                  KeyValueRow("Reference runs", absl::StrCat(summary.reference_runs)),
                  KeyValueRow("Bootstrap resamples", absl::StrCat(summary.resamples)),
                  KeyValueRow("Confidence of the intervals",
                              absl::StrCat(FormatNumber(100.0 * summary.confidence, 4), " %")),
                  KeyValueRow("Seed", absl::StrCat(summary.seed)), extra_rows,
                  KeyValueRow("DP cells", GroupedDigits(summary.dp_cells)),
                  KeyValueRow("Wall time", absl::StrCat(FormatNumber(summary.seconds, 4), " s")),
                  ToolRowsHtml(options));
  absl::StrAppend(&html, "</tbody></table>\n</section>\n");
  return html;
}

}  // namespace wasserwarp
