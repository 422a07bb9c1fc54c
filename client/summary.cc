#include "summary.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "wasserwarp/transport.h"

namespace wasserwarp::cli {
namespace {

constexpr size_t kWorstRuns = 5;
constexpr size_t kMatchesShown = 3;

// Reference ids that simulated run `sim` sends mass to, the first few of them.
std::string MatchedReferences(const ValidationReport& report, int sim) {
  std::vector<std::string> ids;
  size_t matched = 0;
  for (const PlanEntry& entry : report.plan) {
    if (entry.row != sim) continue;
    if (++matched <= kMatchesShown) ids.push_back(report.reference[entry.col].id);
  }
  std::string text = absl::StrJoin(ids, ", ");
  if (matched > kMatchesShown)
    absl::StrAppendFormat(&text, " and %d more", matched - kMatchesShown);
  return text;
}

void AppendWorstRuns(const ValidationReport& report, std::string& out) {
  const std::vector<double>& contributions = report.sim_contributions;
  std::vector<int> order(contributions.size());
  std::iota(order.begin(), order.end(), 0);
  const size_t shown = std::min(kWorstRuns, order.size());
  std::partial_sort(order.begin(), order.begin() + shown, order.end(), [&](int a, int b) {
    return contributions[a] > contributions[b] || (contributions[a] == contributions[b] && a < b);
  });
  order.resize(shown);

  const double total = std::accumulate(contributions.begin(), contributions.end(), 0.0);
  size_t id_width = 0;
  for (int i : order) id_width = std::max(id_width, report.simulation[i].id.size());
  absl::StrAppendFormat(&out, "worst simulated runs by contribution to W^%g:\n", report.order);
  for (int i : order) {
    const double share = total > 0.0 ? 100.0 * contributions[i] / total : 0.0;
    absl::StrAppendFormat(&out, "  %-*s  %-12.6g %5.1f%%  matched to %s\n",
                          static_cast<int>(id_width), report.simulation[i].id, contributions[i],
                          share, MatchedReferences(report, i));
  }
}

void AppendMatchedPairMetrics(const ValidationReport& report, std::string& out) {
  if (report.pair_metrics_average.empty()) return;
  out += "matched pairs, plan-weighted (RMSE, Theil U, Q3, Sprague-Geers M/P/C, lag s):\n";
  bool undefined = false;
  const auto metric = [&](const absl::FormatSpec<double>& format, double value) {
    undefined |= std::isnan(value);
    return std::isnan(value) ? std::string("-") : absl::StrFormat(format, value);
  };
  for (size_t c = 0; c < report.pair_metrics_average.size(); ++c) {
    const ChannelMetrics& m = report.pair_metrics_average[c];
    absl::StrAppend(&out, "  ", report.channels[c], ": ", metric("%.4g", m.rmse), "  ",
                    metric("%.3f", m.theil_u), "  ", metric("%.3f", m.q3), "  ",
                    metric("%+.3f", m.sprague_geers_m), "/", metric("%.3f", m.sprague_geers_p), "/",
                    metric("%.3f", m.sprague_geers_c), "  ", metric("%+.4g", m.lag), "\n");
  }
  // NaN would read as a failure of the tool; it is a property of the runs.
  if (undefined) {
    out +=
        "  -: undefined for every matched pair: the runs share no span of time (runs of one\n"
        "     sample), or a channel is constant or silent\n";
  }
}

void AppendIso18571(const ValidationReport& report, std::string& out) {
  AppendIso18571Averages("", report.channels, report.iso18571_average, report.iso18571_warnings,
                         out);
}

void AppendQuantities(const ValidationReport& report, std::string& out) {
  for (const QuantityComparison& quantity : report.quantities) {
    absl::StrAppendFormat(&out, "area validation metric %s:%s: %.6g\n", quantity.channel,
                          quantity.quantity, quantity.avm);
  }
}

// Per band, its worst pair: the one with the smallest share inside.
void AppendBands(const ValidationReport& report, std::string& out) {
  for (size_t b = 0; b < report.tolerance_bands.size(); ++b) {
    const PairBand* worst = nullptr;
    for (const PairBand& pair : report.bands) {
      if (pair.band != static_cast<int>(b)) continue;
      if (worst == nullptr || !(pair.score.inside >= worst->score.inside)) worst = &pair;
    }
    absl::StrAppendFormat(&out, "band %s:", ToleranceBandSpec(report.tolerance_bands[b]));
    if (worst == nullptr) {
      out += " no pairs\n";
      continue;
    }
    absl::StrAppendFormat(&out, " worst pair %s vs %s: %.1f%% inside, max excursion %.4g",
                          report.simulation[worst->sim].id, report.reference[worst->ref].id,
                          100.0 * worst->score.inside, worst->score.max_excursion);
    if (worst->score.first_violation.has_value()) {
      absl::StrAppendFormat(&out, ", first outside at %.6g s", *worst->score.first_violation);
    }
    out += "\n";
  }
}

void AppendVerdict(const Verdict& verdict, std::string& out) {
  absl::StrAppendFormat(&out, "permutation test: p = %.4g (%d permutations, seed %d)\n",
                        verdict.p_value, verdict.permutations, verdict.seed);
  if (verdict.baseline.has_value()) {
    const Baseline& b = *verdict.baseline;
    absl::StrAppendFormat(&out,
                          "baseline (groups of %d): ref-ref %.4g [%.4g, %.4g], sim-ref %.4g "
                          "[%.4g, %.4g], ratio %.3g (%g%% interval [%.3g, %.3g])\n",
                          b.subset_size, b.ref_ref_median, b.ref_ref_p05, b.ref_ref_p95,
                          b.sim_ref_median, b.sim_ref_p05, b.sim_ref_p95, b.ratio,
                          100 * b.ratio_confidence, b.ratio_interval_lo, b.ratio_interval_hi);
  }
  if (!verdict.same_grid_as_distance && verdict.resample_rate.has_value()) {
    absl::StrAppendFormat(&out, "verdict computed on runs thinned to %.6g Hz\n",
                          *verdict.resample_rate);
  }
  for (const std::string& warning : verdict.warnings) {
    absl::StrAppendFormat(&out, "warning: %s\n", warning);
  }
  for (const VerdictRule& rule : verdict.rules) {
    const char* relation =
        rule.name == "alpha" || rule.name == "band_min_inside" || rule.name == "min_iso_rating"
            ? ">="
            : "<=";
    absl::StrAppendFormat(&out, "rule %s: %.4g %s %.4g: %s (%s)\n", rule.name, rule.value, relation,
                          rule.threshold, rule.pass ? "pass" : "FAIL", rule.basis);
  }
  if (verdict.pass.has_value()) {
    absl::StrAppendFormat(&out, "verdict: %s\n", *verdict.pass ? "PASS" : "FAIL");
  }
}

}  // namespace

void AppendIso18571Averages(std::string_view prefix, const std::vector<std::string>& channels,
                            const std::vector<Iso18571Average>& averages,
                            const std::vector<std::string>& warnings, std::string& out) {
  if (averages.empty()) return;
  absl::StrAppendFormat(
      &out,
      "%sISO/TS 18571, plan-weighted (r grade, corridor, phase, magnitude, slope; lowest r):\n",
      prefix);
  for (size_t c = 0; c < averages.size(); ++c) {
    const Iso18571Average& a = averages[c];
    absl::StrAppendFormat(&out, "  %s: %.3f %s  %.3f  %.3f  %.3f  %.3f; %.3f\n", channels[c], a.r,
                          Iso18571Grade(a.r), a.z, a.ep, a.em, a.es, a.min_r);
  }
  for (const std::string& warning : warnings) {
    absl::StrAppendFormat(&out, "%swarning: %s\n", prefix, warning);
  }
}

std::string FormatSummary(const ValidationReport& report, double total_seconds) {
  std::string out;
  for (const std::string& note : report.input_notes) absl::StrAppend(&out, "note: ", note, "\n");
  for (const UntriggeredRun& run : report.untriggered) {
    if (report.window.has_value()) {
      absl::StrAppend(&out, "note: ", UntriggeredNote(run, *report.window), "\n");
    }
  }
  for (const std::string& warning : report.unit_warnings) {
    absl::StrAppend(&out, "warning: ", warning, "\n");
  }
  absl::StrAppendFormat(&out, "distance: %.17g (Wasserstein order %g of TWED)\n", report.distance,
                        report.order);
  absl::StrAppendFormat(&out, "solver: %s\n", TransportSolverName(report.solver));
  absl::StrAppendFormat(
      &out, "sizes: %d simulated runs, %d reference runs, %d channels, %d DP cells\n",
      report.simulation.size(), report.reference.size(), report.channels.size(), report.dp_cells);
  AppendWorstRuns(report, out);
  AppendMatchedPairMetrics(report, out);
  AppendIso18571(report, out);
  AppendQuantities(report, out);
  AppendBands(report, out);
  absl::StrAppendFormat(&out, "certificate: max dual violation %.3g, primal-dual gap %.3g\n",
                        report.certificate.max_dual_violation, report.certificate.primal_dual_gap);
  if (report.weight_rounding_bound != 0.0) {
    absl::StrAppendFormat(&out, "weight rounding bound: %.3g\n", report.weight_rounding_bound);
  }
  absl::StrAppendFormat(&out, "time: %.3f s (validation %.3f s)\n", total_seconds, report.seconds);
  if (!report.link.empty()) absl::StrAppend(&out, "record: ", report.link, "\n");
  // Last, where a CI log's reader looks first.
  if (report.verdict.has_value()) AppendVerdict(*report.verdict, out);
  return out;
}

}  // namespace wasserwarp::cli
