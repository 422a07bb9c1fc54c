// The sensitivity page of wasserwarp/study_html.h.

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <numeric>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"
#include "nlohmann/json.hpp"
#include "report/html_assets.h"
#include "report/html_escape.h"
#include "report/html_page.h"
#include "report/html_study.h"
#include "report/html_text.h"
#include "wasserwarp/html_report.h"
#include "wasserwarp/sensitivity.h"
#include "wasserwarp/study_html.h"

namespace wasserwarp {
namespace {

using Json = nlohmann::json;

constexpr char kTitle[] = "wasserwarp sensitivity report";

// The smallest tested deviation below and above the nominal value, as indices into deltas: the
// tornado's two bars, and the nearer of them is what the flag looks at.
struct Wings {
  std::optional<size_t> minus;
  std::optional<size_t> plus;
};

Wings SmallestDeviations(const ParameterSensitivity& p) {
  Wings wings;
  for (size_t k = 0; k < p.deltas.size(); ++k) {
    if (p.deltas[k] < 0.0) wings.minus = k;  // ascending: the last negative is nearest 0
    if (p.deltas[k] > 0.0 && !wings.plus) wings.plus = k;
  }
  return wings;
}

double Reach(const ParameterSensitivity& p, const Wings& wings) {
  double reach = 0.0;
  for (const std::optional<size_t>& k : {wings.minus, wings.plus}) {
    if (k && std::isfinite(p.changes[*k])) reach = std::max(reach, std::abs(p.changes[*k]));
  }
  return reach;
}

absl::Status CheckReport(const SensitivityReport& report) {
  if (absl::Status s =
          CheckPerParameter("the nominal vector", report.nominal.size(), report.names.size());
      !s.ok()) {
    return s;
  }
  if (absl::Status s = CheckPoints(report.names, report.points); !s.ok()) return s;
  for (const ParameterSensitivity& p : report.parameters) {
    const size_t n = p.deltas.size();
    if (p.distances.size() != n || p.changes.size() != n || p.runs.size() != n) {
      return absl::InvalidArgumentError(absl::StrCat(
          "parameter \"", p.name, "\" has ", n, " deviations but ", p.distances.size(),
          " distances, ", p.changes.size(), " changes and ", p.runs.size(), " run counts"));
    }
  }
  return absl::OkStatus();
}

std::string YesNo(const std::optional<bool>& value) {
  if (!value.has_value()) return "\u2014";
  return *value ? "yes" : "no";
}

std::string OptionalNumber(const std::optional<double>& value, int significant = 4) {
  return value.has_value() ? FormatNumber(*value, significant) : "\u2014";
}

std::string SensitivityBanner(const SensitivityReport& report, const HtmlReportOptions& options) {
  std::vector<std::string> flagged;
  for (const ParameterSensitivity& p : report.parameters) {
    if (p.flagged) flagged.push_back(ParameterHtml(p.name));
  }
  const size_t n = report.parameters.size();
  Banner banner;
  banner.cls = "verdict-pass";
  banner.word = "NOT FLAGGED";
  if (!report.baseline_ref_ref_median.has_value()) {
    banner.cls = "verdict-none";
    banner.word = "NO BASELINE";
    banner.sentence =
        "Without the references' own spread (it needs at least 2 reference runs) no parameter "
        "can be flagged; the derivatives below still inform.";
  } else if (!flagged.empty()) {
    banner.cls = "verdict-flag";
    banner.word = "FLAGGED";
    banner.sentence = absl::StrCat(
        flagged.size(), " of ", n, n == 1 ? " parameter " : " parameters ",
        flagged.size() == 1 ? "moves" : "move",
        " W by more than the references' own spread at the smallest deviation tested: ",
        absl::StrJoin(flagged, ", "), ".");
  } else {
    banner.sentence =
        "No parameter moves W by more than the references' own spread at the smallest deviation "
        "tested.";
  }
  banner.title = PageTitle(options, kTitle);
  banner.meta = StudyMeta(report.summary.simulation_runs, report.points.size(),
                          report.summary.reference_runs, options);
  banner.figures = absl::StrCat(
      KeyFigure("W at nominal", FormatNumber(report.distance_nominal, 5),
                absl::StrCat(report.nominal_runs, " runs at the nominal vector")),
      KeyFigure("Baseline ref\u2013ref",
                report.baseline_ref_ref_median ? FormatNumber(*report.baseline_ref_ref_median, 4)
                                               : "\u2014",
                "median W between halves of the references"),
      KeyFigure("Flagged", absl::StrCat(flagged.size(), " / ", n), "parameters"));
  return BannerHtml(banner);
}

std::string PairingHtml(const SensitivityReport& report) {
  std::string items;
  for (const ParameterSensitivity& p : report.parameters) {
    if (!p.paired) continue;
    absl::StrAppend(&items, "<li>", ParameterHtml(p.name), ": variance gain ",
                    OptionalNumber(p.variance_gain, 3),
                    " \u00d7; pays off in trials: ", YesNo(p.pays_off),
                    ", in machine time: ", YesNo(p.pays_off_in_time), "</li>\n");
  }
  if (items.empty()) {
    return "<p>No parameter's points share trials with the nominal point, so every derivative "
           "was resampled with each point's runs drawn independently.</p>\n";
  }
  return absl::StrCat(
      "<p>Pairing by trial (common random numbers): the nominal and the varied point's runs of "
      "one trial are resampled together. Its variance gain g is the derivative's variance "
      "with each point's runs resampled independently over its variance paired. Pairing pays "
      "off in trials when g exceeds 1 + a, a being the varied point's variance of W over the "
      "nominal point's, and in machine time when g exceeds (1 + a) \u00d7 the pair cost ",
      FormatNumber(report.pair_cost, 3), ".</p>\n<ul>\n", items, "</ul>\n");
}

std::string SummaryHtml(const SensitivityReport& report) {
  std::vector<std::string> flagged;
  for (const ParameterSensitivity& p : report.parameters) {
    if (p.flagged) flagged.push_back(ParameterHtml(p.name));
  }
  std::string html = absl::StrCat(
      "<section id=\"summary\">\n<h2>Summary</h2>\n<p class=\"explain\">A parameter is flagged "
      "when the smallest deviation tested from its nominal value changes W by more than the "
      "baseline: at that step it matters as much as the measurements' own scatter.</p>\n"
      "<table class=\"keyvalue\"><tbody>\n",
      KeyValueRow("Nominal vector", VectorHtml(report.names, report.nominal)),
      KeyValueRow("W at the nominal vector",
                  absl::StrCat(FormatNumber(report.distance_nominal, 5), " <span class=\"unit\">",
                               report.nominal_runs, " runs</span>")),
      KeyValueRow("Baseline", BaselineHtml(report.baseline_ref_ref_median)),
      KeyValueRow("Flagged", flagged.empty() ? "none" : absl::StrJoin(flagged, ", ")),
      "</tbody></table>\n");
  absl::StrAppend(&html,
                  "<table class=\"rules\"><caption>W at the smallest deviations</caption><thead>"
                  "<tr><th>Parameter</th><th class=\"num\">Below: \u03b4</th>"
                  "<th class=\"num\">\u0394W</th><th class=\"num\">Above: \u03b4</th>"
                  "<th class=\"num\">\u0394W</th><th>Result</th></tr></thead><tbody>\n");
  for (const ParameterSensitivity& p : report.parameters) {
    const Wings wings = SmallestDeviations(p);
    const auto side = [&](const std::optional<size_t>& k) {
      if (!k) return absl::StrCat(Cell("td", "\u2014", "num"), Cell("td", "\u2014", "num"));
      return absl::StrCat(Cell("td", FormatNumber(p.deltas[*k], 4), "num"),
                          Cell("td", FormatNumber(p.changes[*k], 4), "num"));
    };
    std::string result = "\u2014";
    absl::string_view cls;
    if (report.baseline_ref_ref_median.has_value()) {
      cls = p.flagged ? "fail" : "pass";
      result = absl::StrCat("<span class=\"badge ", cls, "\">", p.flagged ? "flagged" : "within",
                            "</span>");
    }
    absl::StrAppend(&html, cls.empty() ? "<tr>" : absl::StrCat("<tr class=\"", cls, "\">"),
                    Cell("td", ParameterHtml(p.name)), side(wings.minus), side(wings.plus),
                    Cell("td", result), "</tr>\n");
  }
  absl::StrAppend(&html, "</tbody></table>\n", PairingHtml(report),
                  WarningsHtml(report.summary.warnings), "</section>\n");
  return html;
}

struct Tornado {
  std::string html;
  Json data;
};

Tornado TornadoSection(const SensitivityReport& report) {
  std::vector<Wings> wings;
  for (const ParameterSensitivity& p : report.parameters) wings.push_back(SmallestDeviations(p));
  std::vector<size_t> order(report.parameters.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return Reach(report.parameters[a], wings[a]) > Reach(report.parameters[b], wings[b]);
  });
  Json names = Json::array(), flagged = Json::array(), minus = Json::array(), plus = Json::array(),
       minus_delta = Json::array(), plus_delta = Json::array();
  std::vector<std::string> one_sided;
  for (size_t i : order) {
    const ParameterSensitivity& p = report.parameters[i];
    names.push_back(p.name);
    flagged.push_back(p.flagged);
    const auto add = [&](const std::optional<size_t>& k, Json& change, Json& delta) {
      change.push_back(k ? DrawnNumber(p.changes[*k]) : Json(nullptr));
      delta.push_back(k ? DrawnNumber(p.deltas[*k]) : Json(nullptr));
    };
    add(wings[i].minus, minus, minus_delta);
    add(wings[i].plus, plus, plus_delta);
    if (!wings[i].minus || !wings[i].plus) {
      one_sided.push_back(
          absl::StrCat(ParameterHtml(p.name), wings[i].minus ? " below" : " above"));
    }
  }
  const std::optional<double>& baseline = report.baseline_ref_ref_median;
  Tornado tornado;
  tornado.data = {{"names", std::move(names)},
                  {"flagged", std::move(flagged)},
                  {"minus", std::move(minus)},
                  {"plus", std::move(plus)},
                  {"minus_delta", std::move(minus_delta)},
                  {"plus_delta", std::move(plus_delta)},
                  {"baseline", baseline ? DrawnNumber(*baseline) : Json(nullptr)}};
  const int height = static_cast<int>(std::max<size_t>(order.size(), 2) * 52 + 130);
  tornado.html = absl::StrCat(
      "<section id=\"tornado\">\n<h2>Tornado: W at the smallest deviations</h2>\n"
      "<p class=\"explain\">For each parameter, how much W changes from its value at the "
      "nominal vector when that parameter alone moves by the smallest deviation tested below "
      "and above its nominal value; the parameters moving W most come first. The shaded band is "
      "\u00b1 the baseline: a bar that leaves it moves W by more than the reference runs differ "
      "from each other.</p>\n",
      ChartDiv("tornado", 0, "bars", height));
  if (!baseline) absl::StrAppend(&tornado.html, Note("No baseline, so no band is drawn."));
  if (!one_sided.empty()) {
    absl::StrAppend(
        &tornado.html,
        Note(absl::StrCat("Tested on one side only: ", absl::StrJoin(one_sided, ", "), ".")));
  }
  absl::StrAppend(&tornado.html, "</section>\n");
  return tornado;
}

std::string EstimateCells(const DerivativeEstimate& e) {
  return absl::StrCat(Cell("td", EscapeHtml(e.scheme)),
                      Cell("td", FormatNumber(e.derivative, 4), "num"));
}

std::string SecondOrderCells(const DerivativeEstimate& e) {
  return absl::StrCat(Cell("td", OptionalNumber(e.second_derivative), "num"),
                      Cell("td", OptionalNumber(e.remainder), "num"),
                      Cell("td", OptionalNumber(e.normalised), "num"));
}

std::string DerivativesHtml(const SensitivityReport& report) {
  std::string html = absl::StrCat(
      "<section id=\"derivatives\">\n<h2>Derivatives of W</h2>\n<p class=\"explain\">dW/dh by "
      "finite differences over the points that differ from the nominal vector in that "
      "parameter alone, with its bootstrap interval. Remainder: W at the nearest deviation "
      "minus the linear estimate there, the second-order term a one-sided derivative misses. "
      "Normalised: (h / W) dW/dh, the relative change of W per relative change of h. Variance "
      "gain and pay-off: of pairing by trial, as in the summary.</p>\n"
      "<div class=\"table-scroll\"><table class=\"metrics\"><thead><tr><th>Parameter</th>"
      "<th class=\"num\">Nominal</th><th>Scheme</th><th class=\"num\">dW/dh</th>"
      "<th class=\"num\">",
      FormatNumber(100.0 * report.summary.confidence, 3),
      " % interval</th><th class=\"num\">d\u00b2W/dh\u00b2</th><th class=\"num\">Remainder</th>"
      "<th class=\"num\">Normalised</th><th>Paired</th><th class=\"num\">Variance gain</th>"
      "<th>Pays off (trials / time)</th><th>Flagged</th></tr></thead><tbody>\n");
  for (const ParameterSensitivity& p : report.parameters) {
    absl::StrAppend(&html, "<tr>", Cell("td", ParameterHtml(p.name)),
                    Cell("td", FormatNumber(p.nominal, 6), "num"), EstimateCells(p.estimate),
                    Cell("td", FormatRange(p.interval_lo, p.interval_hi, 4), "num"),
                    SecondOrderCells(p.estimate), Cell("td", p.paired ? "yes" : "no"),
                    Cell("td", OptionalNumber(p.variance_gain, 3), "num"),
                    Cell("td", absl::StrCat(YesNo(p.pays_off), " / ", YesNo(p.pays_off_in_time))),
                    Cell("td", p.flagged ? "yes" : "no"), "</tr>\n");
  }
  absl::StrAppend(&html, "</tbody></table></div>\n</section>\n");
  return html;
}

std::string DeviationsHtml(const SensitivityReport& report) {
  std::string html =
      "<section id=\"deviations\">\n<h2>Tested deviations</h2>\n<p class=\"explain\">Every "
      "point the derivatives are computed from: the parameter at its nominal value plus "
      "\u03b4, the others at theirs.</p>\n"
      "<div class=\"table-scroll\"><table class=\"metrics\"><thead><tr><th>Parameter</th>"
      "<th class=\"num\">\u03b4</th><th class=\"num\">Value</th><th class=\"num\">Runs</th>"
      "<th class=\"num\">W</th><th class=\"num\">\u0394W</th></tr></thead><tbody>\n";
  for (const ParameterSensitivity& p : report.parameters) {
    for (size_t k = 0; k < p.deltas.size(); ++k) {
      absl::StrAppend(&html, "<tr>", Cell("td", ParameterHtml(p.name)),
                      Cell("td", FormatNumber(p.deltas[k], 4), "num"),
                      Cell("td", FormatNumber(p.nominal + p.deltas[k], 6), "num"),
                      Cell("td", absl::StrCat(p.runs[k]), "num"),
                      Cell("td", FormatNumber(p.distances[k], 5), "num"),
                      Cell("td", FormatNumber(p.changes[k], 4), "num"), "</tr>\n");
    }
  }
  absl::StrAppend(&html, "</tbody></table></div>\n</section>\n");
  return html;
}

std::string QuantitiesHtml(const SensitivityReport& report) {
  std::string html =
      "<section id=\"quantity-sensitivities\">\n<h2>Quantities of interest</h2>\n"
      "<p class=\"explain\">The same derivatives of each quantity's statistic: its AVM against "
      "the reference runs (avm), or its mean over the point's runs (mean).</p>\n";
  if (report.quantities.empty()) {
    absl::StrAppend(&html, Note("No quantity of interest was given."), "</section>\n");
    return html;
  }
  absl::StrAppend(
      &html,
      "<div class=\"table-scroll\"><table class=\"metrics\"><thead><tr>"
      "<th>Quantity</th><th>Statistic</th><th>Parameter</th>"
      "<th class=\"num\">At nominal</th><th>Scheme</th><th class=\"num\">Derivative</th>"
      "<th class=\"num\">Second derivative</th><th class=\"num\">Remainder</th>"
      "<th class=\"num\">Normalised</th></tr></thead><tbody>\n");
  for (const QuantitySensitivity& q : report.quantities) {
    absl::StrAppend(&html, "<tr>",
                    Cell("td", absl::StrCat("<code>", EscapeHtml(q.quantity), "</code>")),
                    Cell("td", EscapeHtml(q.statistic)), Cell("td", ParameterHtml(q.parameter)),
                    Cell("td", FormatNumber(q.nominal_value, 5), "num"), EstimateCells(q.estimate),
                    SecondOrderCells(q.estimate), "</tr>\n");
  }
  absl::StrAppend(&html, "</tbody></table></div>\n</section>\n");
  return html;
}

}  // namespace

absl::StatusOr<std::string> RenderSensitivityHtml(const SensitivityReport& report,
                                                  const HtmlReportOptions& options) {
  if (absl::Status s = CheckReport(report); !s.ok()) return s;
  Tornado tornado = TornadoSection(report);
  const Page page{
      .title = PageTitle(options, kTitle),
      .banner = SensitivityBanner(report, options),
      .main = absl::StrCat(
          SummaryHtml(report), tornado.html, DerivativesHtml(report), DeviationsHtml(report),
          QuantitiesHtml(report), PointsSectionHtml(report.names, report.points, report.fixed),
          StudySectionHtml(
              report.summary, report.points.size(),
              KeyValueRow("Pair cost", absl::StrCat(FormatNumber(report.pair_cost, 4),
                                                    " <span class=\"unit\">machine time of a "
                                                    "dependent trial over one run</span>")),
              options)),
      .data = {{"tornado", std::move(tornado.data)}},
      .script = html_assets::StudyScript()};
  return PageHtml(page, options);
}

}  // namespace wasserwarp
