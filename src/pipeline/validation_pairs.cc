#include "pipeline/validation_pairs.h"

#include <cstddef>

#include "pipeline/plan_parallel.h"
#include "twed/pair_requests.h"

namespace wasserwarp {

absl::StatusOr<std::vector<PairDiagnostics>> DiagnosePairs(const PreparedRuns& runs,
                                                           const std::vector<PlanEntry>& plan,
                                                           const TwedParams& params,
                                                           const CostMatrixOptions& compute) {
  const size_t m = runs.reference.size();
  std::vector<size_t> pairs;
  for (const PlanEntry& entry : plan) {
    pairs.push_back(static_cast<size_t>(entry.row) * m + static_cast<size_t>(entry.col));
  }
  absl::StatusOr<std::vector<EditPathSummary>> paths =
      ComputePairPaths(runs.simulation, runs.reference, params, pairs, compute);
  if (!paths.ok()) return paths.status();
  std::vector<PairDiagnostics> diagnostics;
  for (size_t k = 0; k < plan.size(); ++k) {
    const EditPathSummary& path = (*paths)[k];
    diagnostics.push_back({plan[k].row, plan[k].col, path.distance, path.matches, path.a_deletions,
                           path.b_deletions, path.mean_time_shift});
  }
  return diagnostics;
}

std::vector<PairMetrics> MeasurePairs(const PreparedRuns& runs, const std::vector<PlanEntry>& plan,
                                      const CostMatrixOptions& compute) {
  const size_t channels = runs.channels.size();
  std::vector<PairMetrics> metrics(plan.size() * channels);
  ForEachPlanEntry(plan, compute.max_threads, [&](size_t k) {
    const PlanEntry& entry = plan[k];
    const std::vector<ChannelMetrics> pair = CompareMatchedPair(
        runs.simulation[entry.row], runs.reference[entry.col], runs.channel_divisors);
    for (size_t c = 0; c < channels; ++c) {
      metrics[k * channels + c] = {entry.row, entry.col, static_cast<int>(c), pair[c]};
    }
  });
  return metrics;
}

}  // namespace wasserwarp
