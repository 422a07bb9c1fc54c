// The identification page of wasserwarp/study_html.h.

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "nlohmann/json.hpp"
#include "report/html_assets.h"
#include "report/html_escape.h"
#include "report/html_page.h"
#include "report/html_study.h"
#include "report/html_text.h"
#include "wasserwarp/html_report.h"
#include "wasserwarp/identification.h"
#include "wasserwarp/response_surface.h"
#include "wasserwarp/study_html.h"

namespace wasserwarp {
namespace {

using Json = nlohmann::json;

constexpr char kTitle[] = "wasserwarp identification report";
// Cells per side of the fitted surface's heat map: a quadratic shows nothing finer.
constexpr size_t kSurfaceCells = 25;

absl::Status CheckSurface(const IdentificationReport& report) {
  const QuadraticSurface& surface = report.surface;
  const size_t p = report.names.size();
  if (surface.names != report.names) {
    return absl::InvalidArgumentError("the surface's parameters are not the report's");
  }
  for (const auto& [what, size] :
       {std::pair{"the surface's lower bounds", surface.lower.size()},
        std::pair{"the surface's upper bounds", surface.upper.size()},
        std::pair{"the surface's linear terms", surface.linear.size()}}) {
    if (absl::Status s = CheckPerParameter(what, size, p); !s.ok()) return s;
  }
  if (1 + p + surface.quadratic.size() != QuadraticTerms(p) ||
      surface.scaled.size() != QuadraticTerms(p)) {
    return absl::InvalidArgumentError(absl::StrCat("the surface has ", surface.quadratic.size(),
                                                   " quadratic and ", surface.scaled.size(),
                                                   " scaled terms for ", p, " parameters"));
  }
  return absl::OkStatus();
}

absl::Status CheckReport(const IdentificationReport& report) {
  const size_t p = report.names.size();
  for (const auto& [what, size] :
       {std::pair{"the identified vector", report.identified.size()},
        std::pair{"the standard deviations", report.std.size()},
        std::pair{"the intervals' lower ends", report.interval_lo.size()},
        std::pair{"the intervals' upper ends", report.interval_hi.size()}}) {
    if (absl::Status s = CheckPerParameter(what, size, p); !s.ok()) return s;
  }
  if (absl::Status s = CheckPoints(report.names, report.points); !s.ok()) return s;
  if (absl::Status s = CheckSurface(report); !s.ok()) return s;
  if (report.nominal_difference.has_value()) {
    if (absl::Status s =
            CheckPerParameter("the nominal differences", report.nominal_difference->size(), p);
        !s.ok()) {
      return s;
    }
    if (absl::Status s = CheckPerParameter("the nominal vector", report.nominal.size(), p);
        !s.ok()) {
      return s;
    }
  }
  if (!report.group_std.empty()) {
    if (absl::Status s = CheckPerParameter("the spread across groups", report.group_std.size(), p);
        !s.ok()) {
      return s;
    }
  }
  for (const GroupIdentification& group : report.groups) {
    if (absl::Status s = CheckPerParameter(absl::StrCat("group \"", group.group, "\""),
                                           group.identified.size(), p);
        !s.ok()) {
      return s;
    }
  }
  for (const SurfaceSlice& slice : report.slices) {
    if (std::find(report.names.begin(), report.names.end(), slice.parameter) ==
        report.names.end()) {
      return absl::InvalidArgumentError(
          absl::StrCat("the slice along \"", slice.parameter, "\" is along no parameter"));
    }
    const size_t n = slice.x.size();
    if (slice.fitted.size() != n || slice.lo.size() != n || slice.hi.size() != n) {
      return absl::InvalidArgumentError(
          absl::StrCat("the slice along \"", slice.parameter, "\" has ", n, " positions but ",
                       slice.fitted.size(), " fitted values and a band of ", slice.lo.size(),
                       " and ", slice.hi.size()));
    }
  }
  return absl::OkStatus();
}

// What IdentificationReport::flagged() adds to the boundary and convexity: the banner says
// which of the three it was.
bool AboveMaxRatio(const IdentificationReport& report) {
  return report.max_ratio.has_value() && report.predicted_ratio.has_value() &&
         *report.predicted_ratio > *report.max_ratio;
}

std::string YesNo(bool value) { return value ? "yes" : "no"; }

// What the quadratic is fitted to, as the page writes it.
std::string ResponseHtml(SurfaceResponse response) {
  return response == SurfaceResponse::kSquaredDistance ? "W<sup>2</sup>" : "W";
}

// The fitted surface's W at `x`.
double FittedDistance(const IdentificationReport& report, const std::vector<double>& x) {
  return DistanceOf(report.response, EvaluateSurface(report.surface, x));
}

std::string IdentificationBanner(const IdentificationReport& report,
                                 const HtmlReportOptions& options) {
  Banner banner;
  banner.cls = "verdict-pass";
  banner.word = "IDENTIFIED";
  if (report.flagged()) {
    std::vector<std::string> reasons;
    if (report.on_boundary) {
      reasons.push_back(
          "the minimum lies on the boundary of the design's box, so better values may lie "
          "outside it");
    }
    if (!report.surface.convex) {
      reasons.push_back("the fitted surface is not convex, so W has no clear minimum");
    }
    if (AboveMaxRatio(report)) {
      reasons.push_back(absl::StrCat("the predicted W there is ",
                                     FormatNumber(*report.predicted_ratio, 3),
                                     " \u00d7 the references' own spread, above the limit of ",
                                     FormatNumber(*report.max_ratio, 3)));
    }
    banner.cls = "verdict-flag";
    banner.word = "FLAGGED";
    banner.sentence = absl::StrCat(
        "The identified vector is not to be trusted: ", absl::StrJoin(reasons, "; "), ".");
  } else {
    banner.sentence = "The fitted surface is convex with its minimum inside the design";
    if (report.predicted_ratio.has_value()) {
      absl::StrAppend(&banner.sentence, ", where W is predicted at ",
                      FormatNumber(*report.predicted_ratio, 3),
                      " \u00d7 the references' own spread");
    }
    absl::StrAppend(&banner.sentence, ".");
  }
  banner.title = PageTitle(options, kTitle);
  banner.meta = StudyMeta(report.summary.simulation_runs, report.points.size(),
                          report.summary.reference_runs, options);
  banner.figures = absl::StrCat(
      KeyFigure("Predicted W", FormatNumber(report.predicted_distance, 5),
                "the fitted surface at the identified vector"),
      KeyFigure("W / baseline",
                report.predicted_ratio ? FormatNumber(*report.predicted_ratio, 3) : "\u2014",
                report.baseline_ref_ref_median
                    ? absl::StrCat("baseline ref\u2013ref ",
                                   FormatNumber(*report.baseline_ref_ref_median, 4))
                    : "no baseline"),
      KeyFigure("R\u00b2", FormatNumber(report.surface.r_squared, 3),
                absl::StrCat("quadratic fit of ", ResponseHtml(report.response), " over ",
                             report.points.size(), " points")));
  return BannerHtml(banner);
}

std::string VectorTableHtml(const IdentificationReport& report) {
  const bool nominal = report.nominal_difference.has_value();
  const bool groups = !report.group_std.empty();
  std::string html = absl::StrCat(
      "<div class=\"table-scroll\"><table class=\"metrics\"><thead><tr><th>Parameter</th>"
      "<th class=\"num\">Identified</th><th class=\"num\">Std</th><th class=\"num\">",
      FormatNumber(100.0 * report.summary.confidence, 3),
      " % interval</th><th class=\"num\">Design range</th>");
  if (nominal) {
    absl::StrAppend(&html,
                    "<th class=\"num\">Nominal</th><th class=\"num\">Identified \u2212 nominal"
                    "</th><th class=\"num\">z</th>");
  }
  if (groups) absl::StrAppend(&html, "<th class=\"num\">Std across groups</th>");
  absl::StrAppend(&html, "</tr></thead><tbody>\n");
  for (size_t i = 0; i < report.names.size(); ++i) {
    absl::StrAppend(
        &html, "<tr>", Cell("td", ParameterHtml(report.names[i])),
        Cell("td", FormatNumber(report.identified[i], 6), "num"),
        Cell("td", FormatNumber(report.std[i], 3), "num"),
        Cell("td", FormatRange(report.interval_lo[i], report.interval_hi[i], 4), "num"),
        Cell("td", FormatRange(report.surface.lower[i], report.surface.upper[i], 4), "num"));
    if (nominal) {
      const NominalDifference& d = (*report.nominal_difference)[i];
      absl::StrAppend(&html, Cell("td", FormatNumber(report.nominal[i], 6), "num"),
                      Cell("td", FormatNumber(d.difference, 4), "num"),
                      Cell("td", d.z ? FormatNumber(*d.z, 3) : "\u2014", "num"));
    }
    if (groups) absl::StrAppend(&html, Cell("td", FormatNumber(report.group_std[i], 3), "num"));
    absl::StrAppend(&html, "</tr>\n");
  }
  absl::StrAppend(&html, "</tbody></table></div>\n");
  return html;
}

std::string GroupsHtml(const IdentificationReport& report) {
  if (report.groups.empty()) return "";
  std::string html =
      "<h3>Per reference group</h3>\n<p class=\"explain\">The identification repeated on each "
      "group's reference runs alone: groups that disagree point at a difference between them "
      "(campaigns, rigs) that the parameters absorb.</p>\n"
      "<div class=\"table-scroll\"><table class=\"metrics\"><thead><tr><th>Group</th>"
      "<th class=\"num\">Reference runs</th>";
  for (const std::string& name : report.names) {
    absl::StrAppend(&html, Cell("th", ParameterHtml(name), "num"));
  }
  absl::StrAppend(&html, "<th>On the boundary</th><th class=\"num\">Predicted W</th>",
                  "</tr></thead><tbody>\n");
  for (const GroupIdentification& group : report.groups) {
    absl::StrAppend(&html, "<tr>", Cell("td", EscapeHtml(group.group)),
                    Cell("td", absl::StrCat(group.reference_runs), "num"));
    for (double value : group.identified) {
      absl::StrAppend(&html, Cell("td", FormatNumber(value, 6), "num"));
    }
    absl::StrAppend(&html, Cell("td", YesNo(group.on_boundary)),
                    Cell("td", FormatNumber(group.predicted_distance, 5), "num"), "</tr>\n");
  }
  if (!report.group_std.empty()) {
    absl::StrAppend(&html, "<tr class=\"average\"><td colspan=\"2\">std across groups</td>");
    for (double value : report.group_std) {
      absl::StrAppend(&html, Cell("td", FormatNumber(value, 3), "num"));
    }
    absl::StrAppend(&html, "<td colspan=\"2\"></td></tr>\n");
  }
  absl::StrAppend(&html, "</tbody></table></div>\n");
  return html;
}

std::string SummaryHtml(const IdentificationReport& report) {
  std::string ratio = report.predicted_ratio ? FormatNumber(*report.predicted_ratio, 4) : "\u2014";
  if (report.max_ratio.has_value()) {
    absl::StrAppend(&ratio, " <span class=\"unit\">limit ", FormatNumber(*report.max_ratio, 4),
                    "</span>");
  }
  std::string html = absl::StrCat(
      "<section id=\"summary\">\n<h2>Summary</h2>\n<p class=\"explain\">The parameter values "
      "at which the quadratic surface fitted to W over the design points is lowest inside the "
      "design's box, with the spread of that minimum over bootstrap resamples of the simulated "
      "and the reference runs.</p>\n<table class=\"keyvalue\"><tbody>\n",
      KeyValueRow("Identified vector", VectorHtml(report.names, report.identified)),
      KeyValueRow("Minimum on the boundary", YesNo(report.on_boundary)),
      KeyValueRow("Surface convex", YesNo(report.surface.convex)),
      KeyValueRow("Fitted to",
                  report.response == SurfaceResponse::kSquaredDistance
                      ? absl::StrCat(ResponseHtml(report.response),
                                     " <span class=\"unit\">exactly quadratic around the "
                                     "minimum, where W is not; the charts show W</span>")
                      : ResponseHtml(report.response)),
      KeyValueRow("R\u00b2 of the fit", FormatNumber(report.surface.r_squared, 4)),
      KeyValueRow("Predicted W", absl::StrCat(FormatNumber(report.predicted_distance, 5),
                                              " <span class=\"unit\">the fitted surface at the "
                                              "identified vector</span>")),
      KeyValueRow("Baseline", BaselineHtml(report.baseline_ref_ref_median)),
      KeyValueRow("Predicted W / baseline", ratio),
      KeyValueRow("Resampling", report.paired ? "paired: every point's runs of one trial together"
                                              : "each point's runs drawn independently"),
      "</tbody></table>\n");
  absl::StrAppend(&html, VectorTableHtml(report), GroupsHtml(report),
                  WarningsHtml(report.summary.warnings), "</section>\n");
  return html;
}

struct Charts {
  std::string html;
  Json data;
};

// For each parameter, the design's value nearest the identified one: a slice through the
// identified vector passes nearest the design points at these values.
std::vector<double> NearestLevels(const IdentificationReport& report) {
  std::vector<double> levels = report.identified;
  for (size_t j = 0; j < levels.size(); ++j) {
    double best = std::numeric_limits<double>::infinity();
    for (const StudyPoint& point : report.points) {
      const double gap = std::abs(point.parameters[j] - report.identified[j]);
      if (gap < best) {
        best = gap;
        levels[j] = point.parameters[j];
      }
    }
  }
  return levels;
}

Charts SlicesSection(const IdentificationReport& report) {
  const std::vector<double> levels = NearestLevels(report);
  Charts charts{.html = {}, .data = Json::array()};
  charts.html =
      "<section id=\"slices\">\n<h2>W against each parameter</h2>\n<p class=\"explain\">The "
      "fitted surface along one parameter, the others held at their identified values, with "
      "the pointwise bootstrap band of the resampled surfaces, and W measured at the design "
      "points. The shaded column is the identified value's interval; a dashed line marks the "
      "nominal value and the references' own spread.</p>\n<div class=\"chart-grid\">\n";
  for (const SurfaceSlice& slice : report.slices) {
    const size_t i =
        static_cast<size_t>(std::find(report.names.begin(), report.names.end(), slice.parameter) -
                            report.names.begin());
    Json x = Json::array(), fitted = Json::array(), lo = Json::array(), hi = Json::array();
    for (size_t k = 0; k < slice.x.size(); ++k) {
      x.push_back(DrawnNumber(slice.x[k]));
      fitted.push_back(DrawnNumber(slice.fitted[k]));
      lo.push_back(DrawnNumber(slice.lo[k]));
      hi.push_back(DrawnNumber(slice.hi[k]));
    }
    Json px = Json::array(), pw = Json::array(), on = Json::array();
    for (const StudyPoint& point : report.points) {
      px.push_back(DrawnNumber(point.parameters[i]));
      pw.push_back(DrawnNumber(point.distance));
      bool on_slice = true;
      for (size_t j = 0; j < levels.size(); ++j) {
        if (j != i && point.parameters[j] != levels[j]) on_slice = false;
      }
      on.push_back(on_slice);
    }
    charts.data.push_back(
        {{"parameter", slice.parameter},
         {"x", std::move(x)},
         {"fitted", std::move(fitted)},
         {"lo", std::move(lo)},
         {"hi", std::move(hi)},
         {"identified", DrawnNumber(report.identified[i])},
         {"interval", {DrawnNumber(report.interval_lo[i]), DrawnNumber(report.interval_hi[i])}},
         {"nominal", report.nominal_difference ? DrawnNumber(report.nominal[i]) : Json(nullptr)},
         {"points", {{"x", std::move(px)}, {"w", std::move(pw)}, {"on", std::move(on)}}}});
    absl::StrAppend(&charts.html, ChartDiv("slice", charts.data.size() - 1, "slice", 360));
  }
  absl::StrAppend(&charts.html, "</div>\n");
  if (report.names.size() > 1) {
    absl::StrAppend(
        &charts.html,
        Note("Every design point is drawn at its own W over its value of the parameter: solid "
             "where the other parameters are at the design's values nearest the identified "
             "ones (the points nearest the slice), faint where they are not."));
  }
  absl::StrAppend(&charts.html, "</section>\n");
  return charts;
}

// The fitted surface over the box of a two-parameter design, evaluated at the centres of the
// cells that tile it, with the points drawn on the same colour scale.
Charts SurfaceSection(const IdentificationReport& report) {
  const QuadraticSurface& surface = report.surface;
  double low = std::numeric_limits<double>::infinity();
  double high = -low;
  const auto range = [&](double value) {
    if (!std::isfinite(value)) return;
    low = std::min(low, value);
    high = std::max(high, value);
  };
  const auto centre = [&](size_t axis, size_t cell) {
    return surface.lower[axis] + (surface.upper[axis] - surface.lower[axis]) *
                                     (static_cast<double>(cell) + 0.5) /
                                     static_cast<double>(kSurfaceCells);
  };
  Json values = Json::array();
  for (size_t row = 0; row < kSurfaceCells; ++row) {
    for (size_t col = 0; col < kSurfaceCells; ++col) {
      const double value = FittedDistance(report, {centre(0, col), centre(1, row)});
      range(value);
      values.push_back(DrawnNumber(value));
    }
  }
  Json px = Json::array(), py = Json::array(), pw = Json::array();
  for (const StudyPoint& point : report.points) {
    px.push_back(DrawnNumber(point.parameters[0]));
    py.push_back(DrawnNumber(point.parameters[1]));
    pw.push_back(DrawnNumber(point.distance));
    range(point.distance);
  }
  if (!(low <= high)) low = high = 0.0;
  Charts charts;
  charts.data = {
      {"names", report.names},
      {"box",
       {DrawnNumber(surface.lower[0]), DrawnNumber(surface.upper[0]), DrawnNumber(surface.lower[1]),
        DrawnNumber(surface.upper[1])}},
      {"cells", kSurfaceCells},
      {"values", std::move(values)},
      {"min", DrawnNumber(low)},
      {"max", DrawnNumber(high)},
      {"points", {{"x", std::move(px)}, {"y", std::move(py)}, {"w", std::move(pw)}}},
      {"identified", {DrawnNumber(report.identified[0]), DrawnNumber(report.identified[1])}},
      {"nominal", report.nominal_difference
                      ? Json{DrawnNumber(report.nominal[0]), DrawnNumber(report.nominal[1])}
                      : Json(nullptr)}};
  charts.html = absl::StrCat(
      "<section id=\"surface\">\n<h2>Fitted surface</h2>\n<p class=\"explain\">W of the "
      "quadratic surface fitted to ",
      ResponseHtml(report.response), " over the design's box, ", ParameterHtml(report.names[0]),
      " across and ", ParameterHtml(report.names[1]),
      " up; darker is lower. Circles are the design points, filled by their measured W on the "
      "same scale, so that one standing out from its surroundings is a point the surface does "
      "not fit. The cross is the identified vector, the triangle the nominal one.</p>\n",
      ChartDiv("surface", 0, "square", 560), ColorBarHtml(low, high, "W"),
      Note(absl::StrCat("The surface is evaluated at the centres of ", kSurfaceCells, " \u00d7 ",
                        kSurfaceCells, " cells tiling the box.")),
      "</section>\n");
  return charts;
}

std::vector<double> FittedAtPoints(const IdentificationReport& report) {
  std::vector<double> fitted;
  for (const StudyPoint& point : report.points) {
    fitted.push_back(FittedDistance(report, point.parameters));
  }
  return fitted;
}

std::string SurfaceFitHtml(const IdentificationReport& report) {
  const QuadraticSurface& surface = report.surface;
  const std::vector<std::string> terms = QuadraticTermNames(surface.names);
  std::vector<double> coefficients = {surface.constant};
  coefficients.insert(coefficients.end(), surface.linear.begin(), surface.linear.end());
  coefficients.insert(coefficients.end(), surface.quadratic.begin(), surface.quadratic.end());
  std::string html = absl::StrCat(
      "<section id=\"surface-fit\">\n<h2>Response surface</h2>\n<p class=\"explain\">The "
      "least-squares quadratic through ",
      ResponseHtml(report.response),
      " at the design points, in the parameters' own units. R\u00b2 ",
      FormatNumber(surface.r_squared, 4), "; ",
      surface.convex ? "convex (positive definite Hessian)." : "not convex.",
      "</p>\n<table class=\"metrics\"><thead><tr><th>Term</th><th class=\"num\">Coefficient</th>"
      "</tr></thead><tbody>\n");
  for (size_t k = 0; k < terms.size() && k < coefficients.size(); ++k) {
    absl::StrAppend(&html, "<tr>",
                    Cell("td", absl::StrCat("<code>", EscapeHtml(terms[k]), "</code>")),
                    Cell("td", FormatNumber(coefficients[k], 6), "num"), "</tr>\n");
  }
  absl::StrAppend(&html, "</tbody></table>\n</section>\n");
  return html;
}

}  // namespace

absl::StatusOr<std::string> RenderIdentificationHtml(const IdentificationReport& report,
                                                     const HtmlReportOptions& options) {
  if (absl::Status s = CheckReport(report); !s.ok()) return s;
  Charts slices = SlicesSection(report);
  Charts surface;
  if (report.names.size() == 2) surface = SurfaceSection(report);
  const Page page{
      .title = PageTitle(options, kTitle),
      .banner = IdentificationBanner(report, options),
      .main = absl::StrCat(
          SummaryHtml(report), slices.html, surface.html, SurfaceFitHtml(report),
          PointsSectionHtml(report.names, report.points, report.fixed, FittedAtPoints(report)),
          StudySectionHtml(
              report.summary, report.points.size(),
              KeyValueRow("Max ratio",
                          report.max_ratio ? FormatNumber(*report.max_ratio, 4) : "none"),
              options)),
      .data = {{"slices", std::move(slices.data)},
               {"surface", std::move(surface.data)},
               {"baseline", report.baseline_ref_ref_median
                                ? DrawnNumber(*report.baseline_ref_ref_median)
                                : Json(nullptr)}},
      .script = html_assets::StudyScript()};
  return PageHtml(page, options);
}

}  // namespace wasserwarp
