#include "report/html_summary.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"
#include "report/html_escape.h"
#include "report/html_page.h"
#include "report/html_text.h"
#include "wasserwarp/prepare.h"
#include "wasserwarp/report.h"
#include "wasserwarp/runs_view.h"
#include "wasserwarp/series.h"
#include "wasserwarp/transport.h"

namespace wasserwarp {
namespace {

// "W<sub>q</sub>" for the report's order.
std::string DistanceSymbol(const ValidationReport& report) {
  return absl::StrCat("W<sub>", FormatNumber(report.order, 3), "</sub>");
}

std::string RuleMeaning(const ValidationReport& report, const VerdictRule& rule) {
  if (rule.name == "max_distance") {
    return absl::StrCat("distance ", DistanceSymbol(report), " \u2264 threshold");
  }
  if (rule.name == "max_ratio") return absl::StrCat(EscapeHtml(rule.basis), " \u2264 threshold");
  if (rule.name == "alpha") return "p-value \u2265 threshold (\u03b1)";
  if (rule.name == "band_min_inside" || rule.name == "min_iso_rating")
    return absl::StrCat(EscapeHtml(rule.basis), " \u2265 threshold");
  return "";
}

std::string VerdictSentence(const ValidationReport& report) {
  if (!report.verdict) {
    return "No statistical verdict was computed: the distance and the diagnostics below inform, "
           "they do not decide.";
  }
  const Verdict& verdict = *report.verdict;
  if (!verdict.pass) {
    return "No decision rule was given: the figures below inform, they do not decide.";
  }
  std::vector<std::string> failed;
  for (const VerdictRule& rule : verdict.rules) {
    if (!rule.pass) failed.push_back(EscapeHtml(rule.name));
  }
  const size_t total = verdict.rules.size();
  if (failed.empty()) {
    return total == 1 ? "The decision rule passes."
                      : absl::StrCat("All ", total, " decision rules pass.");
  }
  return absl::StrCat(failed.size(), " of ", total, " decision ",
                      total == 1 ? "rule fails" : "rules fail", ": ", absl::StrJoin(failed, ", "),
                      ".");
}

struct SideSummary {
  size_t runs = 0;
  size_t min_samples = 0;
  size_t max_samples = 0;
  double min_rate = NAN;  // Hz, (samples - 1) / duration over runs of 2+ samples
  double max_rate = NAN;
  double min_duration = NAN;  // seconds
  double max_duration = NAN;
};

// `runs` summarised; without them (a stored report whose samples are gone) the report's
// `summaries` give the runs and their samples, and the rates and durations read as unknown.
SideSummary Summarise(const RunsView& runs, const std::vector<RunSummary>& summaries) {
  if (runs.empty()) {
    SideSummary s{.runs = summaries.size()};
    for (size_t k = 0; k < summaries.size(); ++k) {
      const size_t n = static_cast<size_t>(summaries[k].samples);
      s.min_samples = k == 0 ? n : std::min(s.min_samples, n);
      s.max_samples = std::max(s.max_samples, n);
    }
    return s;
  }
  SideSummary s{.runs = runs.size()};
  for (size_t k = 0; k < runs.size(); ++k) {
    const Series& run = runs[k];
    const size_t n = run.samples();
    s.min_samples = k == 0 ? n : std::min(s.min_samples, n);
    s.max_samples = std::max(s.max_samples, n);
    if (n < 2) continue;
    const double duration = run.times.back() - run.times.front();
    const double rate = static_cast<double>(n - 1) / duration;
    s.min_duration = std::isnan(s.min_duration) ? duration : std::min(s.min_duration, duration);
    s.max_duration = std::isnan(s.max_duration) ? duration : std::max(s.max_duration, duration);
    s.min_rate = std::isnan(s.min_rate) ? rate : std::min(s.min_rate, rate);
    s.max_rate = std::isnan(s.max_rate) ? rate : std::max(s.max_rate, rate);
  }
  return s;
}

std::string WeightsText(const std::vector<RunSummary>& runs) {
  if (runs.empty()) return "\u2014";
  double low = runs.front().weight;
  double high = low;
  for (const RunSummary& run : runs) {
    low = std::min(low, run.weight);
    high = std::max(high, run.weight);
  }
  if (high - low <= 1e-12 * high) return "uniform";
  return absl::StrCat("given, ", FormatRange(low, high, 3));
}

// The range of the runs' triggers, each in its run's own time axis.
std::string TriggersText(const std::vector<RunSummary>& runs) {
  double low = NAN;
  double high = NAN;
  for (const RunSummary& run : runs) {
    if (!run.trigger_time.has_value()) continue;
    low = std::isnan(low) ? *run.trigger_time : std::min(low, *run.trigger_time);
    high = std::isnan(high) ? *run.trigger_time : std::max(high, *run.trigger_time);
  }
  return absl::StrCat(FormatRange(low, high, 4), " s");
}

// `windowed`: the runs as the event window cut them, with a column for their triggers.
std::string SideRow(absl::string_view name, const SideSummary& s,
                    const std::vector<RunSummary>& runs, bool windowed) {
  const std::string samples = s.min_samples == s.max_samples
                                  ? absl::StrCat(s.min_samples)
                                  : absl::StrCat(s.min_samples, " \u2013 ", s.max_samples);
  return absl::StrCat(
      "<tr>", Cell("th", name), Cell("td", absl::StrCat(s.runs), "num"), Cell("td", samples, "num"),
      Cell("td", absl::StrCat(FormatRange(s.min_rate, s.max_rate, 4), " Hz"), "num"),
      Cell("td", absl::StrCat(FormatRange(s.min_duration, s.max_duration, 4), " s"), "num"),
      windowed ? Cell("td", TriggersText(runs), "num") : "", Cell("td", WeightsText(runs)),
      "</tr>\n");
}

std::string MetricCells(const ChannelMetrics& m) {
  return absl::StrCat(
      Cell("td", absl::StrCat(m.samples), "num"), Cell("td", FormatNumber(m.rmse), "num"),
      Cell("td", FormatNumber(m.theil_u), "num"), Cell("td", FormatNumber(m.q3), "num"),
      Cell("td", FormatNumber(m.sprague_geers_m), "num"),
      Cell("td", FormatNumber(m.sprague_geers_p), "num"),
      Cell("td", FormatNumber(m.sprague_geers_c), "num"), Cell("td", FormatNumber(m.lag), "num"));
}

constexpr size_t kMaxPairMetricRows = 600;

}  // namespace

std::string VerdictBannerHtml(const ValidationReport& report, const HtmlReportOptions& options) {
  std::string word = "NO VERDICT";
  std::string cls = "verdict-none";
  if (report.verdict && report.verdict->pass) {
    word = *report.verdict->pass ? "PASS" : "FAIL";
    cls = *report.verdict->pass ? "verdict-pass" : "verdict-fail";
  } else if (report.verdict) {
    word = "NO RULES";
  }
  std::vector<std::string> meta = {absl::StrCat(report.simulation.size(), " simulated vs ",
                                                report.reference.size(), " reference runs")};
  for (std::string& item : ToolMeta(options)) meta.push_back(std::move(item));

  std::string figures =
      KeyFigure(absl::StrCat("Distance ", DistanceSymbol(report)), FormatNumber(report.distance, 5),
                absl::StrCat("TWED-based Wasserstein, order ", FormatNumber(report.order, 3)));
  if (report.verdict && report.verdict->baseline) {
    const Baseline& b = *report.verdict->baseline;
    absl::StrAppend(&figures,
                    KeyFigure("Baseline ratio", FormatNumber(b.ratio, 3),
                              absl::StrCat("sim\u2013ref ", FormatNumber(b.sim_ref_median, 4),
                                           " / ref\u2013ref ", FormatNumber(b.ref_ref_median, 4))));
  }
  if (report.verdict) {
    absl::StrAppend(&figures,
                    KeyFigure("p-value", FormatNumber(report.verdict->p_value, 3),
                              absl::StrCat(report.verdict->permutations, " permutations")));
  }
  return BannerHtml({.cls = cls,
                     .word = word,
                     .title = PageTitle(options, kValidationTitle),
                     .sentence = VerdictSentence(report),
                     .meta = std::move(meta),
                     .figures = std::move(figures)});
}

std::string VerdictSectionHtml(const ValidationReport& report) {
  std::string html = "<section id=\"verdict\">\n<h2>Verdict</h2>\n";
  if (!report.verdict) {
    absl::StrAppend(&html,
                    "<p class=\"note\">This validation ran without the statistical verdict "
                    "(permutation test, baseline and decision rules).</p>\n</section>\n");
    return html;
  }
  const Verdict& v = *report.verdict;
  if (v.rules.empty()) {
    absl::StrAppend(&html, "<p class=\"note\">No decision rule was given.</p>\n");
  } else {
    absl::StrAppend(&html,
                    "<table class=\"rules\"><thead><tr><th>Rule</th><th>Checks</th>"
                    "<th class=\"num\">Value</th><th class=\"num\">Threshold</th><th>Result</th>"
                    "</tr></thead><tbody>\n");
    for (const VerdictRule& rule : v.rules) {
      const absl::string_view result = rule.pass ? "pass" : "fail";
      absl::StrAppend(
          &html, "<tr class=\"", result, "\">", Cell("td", EscapeHtml(rule.name)),
          Cell("td", RuleMeaning(report, rule)), Cell("td", FormatNumber(rule.value, 5), "num"),
          Cell("td", FormatNumber(rule.threshold, 5), "num"),
          Cell("td", absl::StrCat("<span class=\"badge ", result, "\">", result, "</span>")),
          "</tr>\n");
    }
    absl::StrAppend(&html, "</tbody></table>\n");
  }

  absl::StrAppend(&html, "<div class=\"two-columns\">\n<table class=\"keyvalue\"><caption>",
                  "Permutation test</caption><tbody>\n");
  absl::StrAppend(
      &html,
      KeyValueRow("Statistic",
                  absl::StrCat(FormatNumber(v.statistic, 5), " <span class=\"unit\">W<sub>",
                               FormatNumber(report.order, 3),
                               "</sub> with uniform weights on the pooled matrix",
                               v.sampling_floor_subtracted ? ", sampling floor subtracted" : "",
                               "</span>")),
      KeyValueRow("p-value", absl::StrCat(FormatNumber(v.p_value, 4),
                                          " <span class=\"unit\">(1 + #{permuted \u2265 "
                                          "statistic}) / (K + 1)</span>")),
      KeyValueRow("Permutations K", absl::StrCat(v.permutations)),
      KeyValueRow("Seed", absl::StrCat(v.seed)));
  absl::StrAppend(&html, "</tbody></table>\n");
  if (v.baseline) {
    const Baseline& b = *v.baseline;
    absl::StrAppend(&html,
                    "<table class=\"keyvalue\"><caption>Baseline: W between same-size "
                    "groups</caption><tbody>\n");
    absl::StrAppend(
        &html, KeyValueRow("Group size", absl::StrCat(b.subset_size, " runs")),
        KeyValueRow("Reference vs reference",
                    absl::StrCat("median ", FormatNumber(b.ref_ref_median, 4),
                                 " <span class=\"unit\">(5\u201395 %: ",
                                 FormatRange(b.ref_ref_p05, b.ref_ref_p95, 4), ")</span>")),
        KeyValueRow("Simulated vs reference",
                    absl::StrCat("median ", FormatNumber(b.sim_ref_median, 4),
                                 " <span class=\"unit\">(5\u201395 %: ",
                                 FormatRange(b.sim_ref_p05, b.sim_ref_p95, 4), ")</span>")),
        KeyValueRow("Ratio", absl::StrCat(FormatNumber(b.ratio, 4),
                                          " <span class=\"unit\">sim\u2013ref median / "
                                          "ref\u2013ref median</span>")),
        KeyValueRow(
            absl::StrCat("Ratio, ", FormatNumber(100 * b.ratio_confidence, 3), " % interval"),
            absl::StrCat(FormatRange(b.ratio_interval_lo, b.ratio_interval_hi, 4),
                         " <span class=\"unit\">bootstrap over runs</span>")));
    absl::StrAppend(&html, "</tbody></table>\n");
  } else {
    absl::StrAppend(&html,
                    "<p class=\"note\">No baseline: it needs at least 2 reference "
                    "runs.</p>\n");
  }
  absl::StrAppend(&html, "</div>\n");
  absl::StrAppend(&html, WarningsHtml(v.warnings), "</section>\n");
  return html;
}

std::string InputsSectionHtml(const ValidationReport& report, const RunsView& simulation,
                              const RunsView& reference, const HtmlReportOptions& options) {
  // With a window the runs are as it cut them (RenderHtmlReport passes them so).
  const bool windowed = report.window.has_value();
  std::string html = absl::StrCat(
      "<section id=\"inputs\">\n<h2>Inputs and parameters</h2>\n"
      "<table class=\"inputs\"><thead><tr><th></th><th class=\"num\">Runs</th>"
      "<th class=\"num\">Samples per run</th><th class=\"num\">Sampling rate</th>",
      windowed ? "<th class=\"num\">Duration in the window</th><th class=\"num\">Trigger</th>"
               : "<th class=\"num\">Duration</th>",
      "<th>Weights</th></tr></thead><tbody>\n");
  absl::StrAppend(
      &html,
      SideRow("Simulated", Summarise(simulation, report.simulation), report.simulation, windowed),
      SideRow("Reference", Summarise(reference, report.reference), report.reference, windowed),
      "</tbody></table>\n", WarningsHtml(report.input_notes), WarningsHtml(report.unit_warnings));

  std::vector<std::string> channels;
  for (size_t c = 0; c < report.channels.size(); ++c) {
    std::string channel = absl::StrCat("<code>", EscapeHtml(report.channels[c]), "</code>");
    if (c < report.channel_units.size() && !report.channel_units[c].empty()) {
      absl::StrAppend(&channel, " [", EscapeHtml(report.channel_units[c]), "]");
    }
    if (c < report.simulation_channels.size() &&
        report.simulation_channels[c] != report.channels[c]) {
      absl::StrAppend(&channel, " (simulated: <code>", EscapeHtml(report.simulation_channels[c]),
                      "</code>)");
    }
    channels.push_back(std::move(channel));
  }
  const std::string window = report.twed.time_window
                                 ? absl::StrCat(FormatNumber(*report.twed.time_window, 4), " s")
                                 : "none";
  absl::StrAppend(&html,
                  "<div class=\"two-columns\">\n<table class=\"keyvalue\"><caption>"
                  "Parameters</caption><tbody>\n");
  absl::StrAppend(
      &html, KeyValueRow("Channels", absl::StrJoin(channels, ", ")),
      KeyValueRow("Scale", EscapeHtml(ScaleName(report.scale))),
      KeyValueRow("Align", EscapeHtml(AlignName(report.align))),
      KeyValueRow("Resampled to", report.resample_rate
                                      ? absl::StrCat(FormatNumber(*report.resample_rate, 6), " Hz")
                                      : "no resampling"),
      KeyValueRow("\u03bd (nu)", absl::StrCat(FormatNumber(report.twed.nu, 6),
                                              " <span class=\"unit\">per second</span>")),
      KeyValueRow("\u03bb (lambda)", absl::StrCat(FormatNumber(report.twed.lambda, 6),
                                                  " <span class=\"unit\">per deletion</span>")),
      KeyValueRow("p", FormatNumber(report.twed.p, 6)), KeyValueRow("Time window", window),
      KeyValueRow("Order q", FormatNumber(report.order, 6)),
      KeyValueRow("Transport solver", EscapeHtml(TransportSolverName(report.solver))));
  absl::StrAppend(&html,
                  "</tbody></table>\n<table class=\"keyvalue\"><caption>Certificate and "
                  "work</caption><tbody>\n");
  absl::StrAppend(
      &html,
      KeyValueRow("Max dual violation", FormatNumber(report.certificate.max_dual_violation, 3)),
      KeyValueRow("Primal\u2013dual gap", FormatNumber(report.certificate.primal_dual_gap, 3)),
      KeyValueRow("Weight rounding bound", FormatNumber(report.weight_rounding_bound, 3)),
      KeyValueRow("DP cells", GroupedDigits(report.dp_cells)),
      KeyValueRow("Wall time", absl::StrCat(FormatNumber(report.seconds, 4), " s")),
      ToolRowsHtml(options));
  absl::StrAppend(&html, "</tbody></table>\n</div>\n</section>\n");
  return html;
}

std::string PairMetricsSectionHtml(const ValidationReport& report) {
  std::string html =
      "<section id=\"pair-metrics\">\n<h2>Classic metrics of the matched pairs</h2>\n"
      "<p class=\"explain\">Rigid metrics on each pair of the transport plan: the simulated run "
      "interpolated onto the reference's timestamps over the time both cover, in channel "
      "units. Theil's U: 0 is perfect; Q3 = mean 1/(1+(y\u2212z)\u00b2): 1 is perfect; "
      "Sprague\u2013Geers magnitude M, phase P and combined C: 0 is perfect; lag: seconds the "
      "simulated run is late, from the cross-correlation.</p>\n";
  if (report.pair_metrics.empty()) {
    absl::StrAppend(&html, "<p class=\"note\">The report holds no pair metrics.</p>\n</section>\n");
    return html;
  }
  const std::string header =
      "<tr><th>Simulated</th><th>Reference</th><th class=\"num\">Mass</th><th>Channel</th>"
      "<th class=\"num\">Samples</th><th class=\"num\">RMSE</th><th class=\"num\">Theil U</th>"
      "<th class=\"num\">Q3</th><th class=\"num\">S&amp;G M</th><th class=\"num\">S&amp;G P</th>"
      "<th class=\"num\">S&amp;G C</th><th class=\"num\">Lag (s)</th></tr>";
  absl::StrAppend(&html, "<div class=\"table-scroll\"><table class=\"metrics\"><thead>", header,
                  "</thead><tbody>\n");
  for (size_t c = 0; c < report.pair_metrics_average.size() && c < report.channels.size(); ++c) {
    absl::StrAppend(&html, "<tr class=\"average\"><td colspan=\"3\">plan-weighted mean</td>",
                    Cell("td", absl::StrCat("<code>", EscapeHtml(report.channels[c]), "</code>")),
                    MetricCells(report.pair_metrics_average[c]), "</tr>\n");
  }
  const size_t shown = std::min(report.pair_metrics.size(), kMaxPairMetricRows);
  const size_t channels = std::max<size_t>(report.channels.size(), 1);
  for (size_t k = 0; k < shown; ++k) {
    const PairMetrics& pair = report.pair_metrics[k];
    // Plan order, then channel order.
    const size_t plan_index = k / channels;
    const double mass = plan_index < report.plan.size() ? report.plan[plan_index].mass : NAN;
    const auto id = [](const std::vector<RunSummary>& runs, int index) {
      return index >= 0 && static_cast<size_t>(index) < runs.size() ? EscapeHtml(runs[index].id)
                                                                    : absl::StrCat("#", index);
    };
    const std::string channel =
        pair.channel >= 0 && static_cast<size_t>(pair.channel) < report.channels.size()
            ? EscapeHtml(report.channels[pair.channel])
            : absl::StrCat("#", pair.channel);
    absl::StrAppend(&html, "<tr>", Cell("td", id(report.simulation, pair.sim)),
                    Cell("td", id(report.reference, pair.ref)),
                    Cell("td", FormatNumber(mass, 3), "num"),
                    Cell("td", absl::StrCat("<code>", channel, "</code>")),
                    MetricCells(pair.metrics), "</tr>\n");
  }
  absl::StrAppend(&html, "</tbody></table></div>\n");
  if (shown < report.pair_metrics.size()) {
    absl::StrAppend(&html, "<p class=\"note\">The first ", shown, " of ",
                    report.pair_metrics.size(),
                    " rows (pairs \u00d7 channels, in plan order) are shown.</p>\n");
  }
  absl::StrAppend(&html, "</section>\n");
  return html;
}

}  // namespace wasserwarp
