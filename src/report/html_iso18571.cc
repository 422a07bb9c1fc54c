#include "report/html_iso18571.h"

#include <algorithm>
#include <cstddef>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "report/html_escape.h"
#include "report/html_page.h"
#include "report/html_text.h"

namespace wasserwarp {
namespace {

// As many rows as the classic metrics' table shows, for the same reason: a page that opens.
constexpr size_t kMaxRows = 600;

// r with its grade, coloured by the grade; a dash for a pair too short to rate.
std::string RatingCell(double r) {
  const std::string grade(Iso18571Grade(r));
  if (grade.empty()) return Cell("td", FormatNumber(r, 3), "num");
  return Cell("td", absl::StrCat(FormatNumber(r, 3), " ", grade),
              absl::StrCat("num grade-", grade));
}

std::string ScoreCells(double z, double ep, double em, double es) {
  return absl::StrCat(Cell("td", FormatNumber(z, 3), "num"), Cell("td", FormatNumber(ep, 3), "num"),
                      Cell("td", FormatNumber(em, 3), "num"),
                      Cell("td", FormatNumber(es, 3), "num"));
}

std::string RunId(const std::vector<RunSummary>& runs, int index) {
  return index >= 0 && static_cast<size_t>(index) < runs.size() ? EscapeHtml(runs[index].id)
                                                                : absl::StrCat("#", index);
}

std::string ChannelCell(const ValidationReport& report, int channel) {
  const std::string name = channel >= 0 && static_cast<size_t>(channel) < report.channels.size()
                               ? EscapeHtml(report.channels[channel])
                               : absl::StrCat("#", channel);
  return Cell("td", absl::StrCat("<code>", name, "</code>"));
}

}  // namespace

std::string Iso18571SectionHtml(const ValidationReport& report) {
  if (report.iso18571.empty()) return "";
  std::string html =
      "<section id=\"iso18571\">\n<h2>ISO/TS 18571 ratings of the matched pairs</h2>\n"
      "<p class=\"explain\">Each pair of the transport plan on one uniform grid over the time "
      "both cover: R = 0.4 Z (corridor) + 0.2 E<sub>P</sub> (phase) + 0.2 E<sub>M</sub> "
      "(magnitude, after the phase shift and dynamic time warping) + 0.2 E<sub>S</sub> (slope); "
      "1 is identical. Grades: excellent above 0.94, good above 0.80, fair above 0.58, else "
      "poor. The shift is in grid samples, positive when the simulated run is late.</p>\n";
  absl::StrAppend(&html,
                  "<div class=\"table-scroll\"><table class=\"metrics\"><thead><tr>"
                  "<th>Channel</th><th class=\"num\">Mean R</th><th class=\"num\">Z</th>"
                  "<th class=\"num\">E<sub>P</sub></th><th class=\"num\">E<sub>M</sub></th>"
                  "<th class=\"num\">E<sub>S</sub></th><th class=\"num\">Lowest R</th>"
                  "</tr></thead><tbody>\n");
  for (size_t c = 0; c < report.iso18571_average.size(); ++c) {
    const Iso18571Average& a = report.iso18571_average[c];
    absl::StrAppend(&html, "<tr class=\"average\">", ChannelCell(report, static_cast<int>(c)),
                    RatingCell(a.r), ScoreCells(a.z, a.ep, a.em, a.es), RatingCell(a.min_r),
                    "</tr>\n");
  }
  absl::StrAppend(&html, "</tbody></table></div>\n");
  for (const std::string& warning : report.iso18571_warnings) {
    absl::StrAppend(&html, "<p class=\"note\">", EscapeHtml(warning), "</p>\n");
  }
  absl::StrAppend(&html,
                  "<div class=\"table-scroll\"><table class=\"metrics\"><thead><tr>"
                  "<th>Simulated</th><th>Reference</th><th>Channel</th>"
                  "<th class=\"num\">Samples</th><th class=\"num\">R</th><th class=\"num\">Z</th>"
                  "<th class=\"num\">E<sub>P</sub></th><th class=\"num\">E<sub>M</sub></th>"
                  "<th class=\"num\">E<sub>S</sub></th><th class=\"num\">Shift</th>"
                  "<th class=\"num\">Shift (s)</th></tr></thead><tbody>\n");
  const size_t shown = std::min(report.iso18571.size(), kMaxRows);
  for (size_t k = 0; k < shown; ++k) {
    const PairIso18571& pair = report.iso18571[k];
    const Iso18571Rating& rating = pair.rating;
    const bool rated = !Iso18571Grade(rating.r).empty();
    absl::StrAppend(&html, "<tr>", Cell("td", RunId(report.simulation, pair.sim)),
                    Cell("td", RunId(report.reference, pair.ref)),
                    ChannelCell(report, pair.channel),
                    Cell("td", absl::StrCat(rating.samples), "num"), RatingCell(rating.r),
                    ScoreCells(rating.z, rating.ep, rating.em, rating.es),
                    Cell("td", rated ? absl::StrCat(rating.shift_samples) : "\u2014", "num"),
                    Cell("td", FormatNumber(rating.shift_seconds, 4), "num"), "</tr>\n");
  }
  absl::StrAppend(&html, "</tbody></table></div>\n");
  if (shown < report.iso18571.size()) {
    absl::StrAppend(&html, "<p class=\"note\">The first ", shown, " of ", report.iso18571.size(),
                    " rows (pairs \u00d7 channels, in plan order) are shown.</p>\n");
  }
  absl::StrAppend(&html, "</section>\n");
  return html;
}

}  // namespace wasserwarp
