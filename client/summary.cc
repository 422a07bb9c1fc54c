#include "summary.h"

#include <algorithm>
#include <numeric>
#include <string>
#include <vector>

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

}  // namespace

std::string FormatSummary(const ValidationReport& report, double total_seconds) {
  std::string out = absl::StrFormat("distance: %.17g (Wasserstein order %g of TWED)\n",
                                    report.distance, report.order);
  absl::StrAppendFormat(&out, "solver: %s\n", TransportSolverName(report.solver));
  absl::StrAppendFormat(
      &out, "sizes: %d simulated runs, %d reference runs, %d channels, %d DP cells\n",
      report.simulation.size(), report.reference.size(), report.channels.size(), report.dp_cells);
  AppendWorstRuns(report, out);
  absl::StrAppendFormat(&out, "certificate: max dual violation %.3g, primal-dual gap %.3g\n",
                        report.certificate.max_dual_violation, report.certificate.primal_dual_gap);
  if (report.weight_rounding_bound != 0.0) {
    absl::StrAppendFormat(&out, "weight rounding bound: %.3g\n", report.weight_rounding_bound);
  }
  absl::StrAppendFormat(&out, "time: %.3f s (validation %.3f s)\n", total_seconds, report.seconds);
  return out;
}

}  // namespace wasserwarp::cli
