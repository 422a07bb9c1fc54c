// The history page of wasserwarp/history_html.h.

#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"
#include "nlohmann/json.hpp"
#include "report/html_assets.h"
#include "report/html_escape.h"
#include "report/html_page.h"
#include "report/html_text.h"
#include "wasserwarp/history_html.h"
#include "wasserwarp/html_report.h"

namespace wasserwarp {
namespace {

using Json = nlohmann::json;

constexpr char kTitle[] = "wasserwarp validation history";

// JSON has no NaN; an unset or non-finite value is a gap in the chart.
Json Drawn(const std::optional<double>& value) {
  if (!value.has_value() || !std::isfinite(*value)) return nullptr;
  return RoundForDrawing(*value);
}

Json Decision(const std::optional<bool>& passed) {
  return passed.has_value() ? Json(*passed) : Json(nullptr);
}

std::string OptionalNumber(const std::optional<double>& value, int significant) {
  return value.has_value() ? FormatNumber(*value, significant) : "\u2014";
}

std::string DecisionHtml(const std::optional<bool>& passed) {
  if (!passed.has_value()) return "<span class=\"unit\">no rule</span>";
  return *passed ? "<span class=\"badge pass\">PASS</span>"
                 : "<span class=\"badge fail\">FAIL</span>";
}

bool AnyRatio(const ValidationHistory& history) {
  for (const HistoryPoint& point : history.points) {
    if (point.ratio.has_value()) return true;
  }
  return false;
}

std::string BannerOf(const ValidationHistory& history, const HtmlReportOptions& options) {
  Banner banner;
  const std::string by = absl::StrCat("<code>", EscapeHtml(history.by), "</code>");
  banner.title = PageTitle(options, absl::StrCat("History over ", by));
  banner.meta = ToolMeta(options);
  if (!history.filter.empty()) {
    banner.meta.insert(banner.meta.begin(),
                       absl::StrCat("filter <code>", EscapeHtml(history.filter), "</code>"));
  }
  if (history.points.empty()) {
    banner.cls = "verdict-none";
    banner.word = "NONE";
    banner.sentence = absl::StrCat("No validation record with an outcome has the label ", by, ".");
    return BannerHtml(banner);
  }
  const HistoryPoint& latest = history.points.back();
  int passed = 0;
  int judged = 0;
  for (const HistoryPoint& point : history.points) {
    if (!point.passed.has_value()) continue;
    ++judged;
    if (*point.passed) ++passed;
  }
  banner.cls = !latest.passed.has_value() ? "verdict-none"
               : *latest.passed           ? "verdict-pass"
                                          : "verdict-fail";
  banner.word = !latest.passed.has_value() ? "\u2014" : *latest.passed ? "PASS" : "FAIL";
  banner.sentence =
      absl::StrCat(history.points.size(), " validation records in the order of ", by,
                   "; the latest, ", by, " = <code>", EscapeHtml(latest.by), "</code>, ",
                   !latest.passed.has_value() ? "had no decision rule"
                   : *latest.passed           ? "passed"
                                              : "failed",
                   ".");
  banner.figures = absl::StrCat(
      KeyFigure("Latest W", FormatNumber(latest.distance, 4), EscapeHtml(latest.by)),
      KeyFigure(
          "Passed", absl::StrCat(passed, " of ", judged),
          judged == static_cast<int>(history.points.size()) ? "records" : "records with a rule"));
  return BannerHtml(banner);
}

std::string ChartsHtml(const ValidationHistory& history) {
  std::string html =
      "<section id=\"distance\">\n<h2>W over the records</h2>\n<p class=\"explain\">The "
      "Wasserstein distance between each record's simulated and reference runs, PASS in green, "
      "FAIL in red, no decision in grey; the dashed line is the max_distance its request "
      "gave.</p>\n";
  absl::StrAppend(&html, ChartDiv("distance", 0, "", 340), "</section>\n");
  if (!AnyRatio(history)) return html;
  absl::StrAppend(
      &html,
      "<section id=\"ratio\">\n<h2>Baseline ratio</h2>\n<p class=\"explain\">W between "
      "simulated and reference runs over W between halves of the references, with its "
      "bootstrap interval as a bar; the dashed line is the max_ratio its request gave. A record "
      "without a baseline (fewer than 2 reference runs) has no point.</p>\n",
      ChartDiv("ratio", 0, "", 340), "</section>\n");
  return html;
}

std::string TableHtml(const ValidationHistory& history) {
  std::string html = absl::StrCat(
      "<section id=\"records\">\n<h2>Records</h2>\n<div class=\"table-scroll\"><table "
      "class=\"metrics\"><thead><tr>",
      Cell("th", EscapeHtml(history.by)),
      "<th class=\"num\">W</th><th class=\"num\">Ratio</th><th class=\"num\">Interval</th>"
      "<th class=\"num\">p</th><th>Verdict</th><th>Created</th><th>Record</th>"
      "</tr></thead><tbody>\n");
  for (const HistoryPoint& point : history.points) {
    const std::string interval =
        point.ratio_interval_lo.has_value() && point.ratio_interval_hi.has_value()
            ? absl::StrCat(FormatNumber(*point.ratio_interval_lo, 3), " \u2013 ",
                           FormatNumber(*point.ratio_interval_hi, 3))
            : "\u2014";
    absl::StrAppend(
        &html, "<tr>", Cell("td", absl::StrCat("<code>", EscapeHtml(point.by), "</code>")),
        Cell("td", FormatNumber(point.distance, 5), "num"),
        Cell("td", OptionalNumber(point.ratio, 4), "num"), Cell("td", interval, "num"),
        Cell("td", OptionalNumber(point.p_value, 3), "num"), Cell("td", DecisionHtml(point.passed)),
        Cell("td", EscapeHtml(point.create_time)),
        Cell("td", absl::StrCat("<code>", EscapeHtml(point.name), "</code>")), "</tr>\n");
  }
  absl::StrAppend(&html, "</tbody></table></div>\n");
  std::vector<std::string> left_out;
  if (history.without_label > 0) {
    left_out.push_back(absl::StrCat(history.without_label, " without the label ", "<code>",
                                    EscapeHtml(history.by), "</code>"));
  }
  if (history.without_outcome > 0) {
    left_out.push_back(
        absl::StrCat(history.without_outcome, " that have not succeeded, so have no outcome"));
  }
  if (!left_out.empty()) {
    absl::StrAppend(
        &html, Note(absl::StrCat("Left out of the history: ", absl::StrJoin(left_out, "; "), ".")));
  }
  absl::StrAppend(&html, "</section>\n");
  return html;
}

Json DataOf(const ValidationHistory& history) {
  Json data = {{"by", history.by}};
  for (const char* key :
       {"values", "distance", "max_distance", "passed", "ratio", "lo", "hi", "max_ratio"}) {
    data[key] = Json::array();
  }
  for (const HistoryPoint& point : history.points) {
    data["values"].push_back(point.by);
    data["distance"].push_back(Drawn(point.distance));
    data["max_distance"].push_back(Drawn(point.max_distance));
    data["passed"].push_back(Decision(point.passed));
    data["ratio"].push_back(Drawn(point.ratio));
    data["lo"].push_back(Drawn(point.ratio_interval_lo));
    data["hi"].push_back(Drawn(point.ratio_interval_hi));
    data["max_ratio"].push_back(Drawn(point.max_ratio));
  }
  return data;
}

}  // namespace

std::string RenderHistoryHtml(const ValidationHistory& history, const HtmlReportOptions& options) {
  std::string main = history.points.empty() ? "" : ChartsHtml(history);
  absl::StrAppend(&main, TableHtml(history));
  const Page page{.title = PageTitle(options, kTitle),
                  .banner = BannerOf(history, options),
                  .main = std::move(main),
                  .data = DataOf(history),
                  .script = html_assets::HistoryScript()};
  return PageHtml(page, options);
}

}  // namespace wasserwarp
