#include "pipeline/validation_bands.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "pipeline/plan_parallel.h"
#include "wasserwarp/field_error.h"

namespace wasserwarp {

std::vector<PairBand> ScoreBands(const PreparedRuns& runs, const std::vector<PlanEntry>& plan,
                                 const std::vector<ToleranceBand>& bands,
                                 const std::vector<size_t>& band_channels,
                                 const CostMatrixOptions& compute) {
  std::vector<PairBand> scored(plan.size() * bands.size());
  ForEachPlanEntry(plan, compute.max_threads, [&](size_t k) {
    const PlanEntry& entry = plan[k];
    for (size_t b = 0; b < bands.size(); ++b) {
      const size_t c = band_channels[b];
      scored[k * bands.size() + b] = {
          entry.row, entry.col, static_cast<int>(b),
          ScoreToleranceBand(runs.simulation[entry.row], runs.reference[entry.col], c,
                             runs.channel_divisors.empty() ? 1.0 : runs.channel_divisors[c],
                             bands[b])};
    }
  });
  return scored;
}

absl::StatusOr<std::vector<size_t>> BandChannels(const std::vector<ToleranceBand>& bands,
                                                 const std::vector<std::string>& channels) {
  std::vector<size_t> indices;
  for (const ToleranceBand& band : bands) {
    const auto found = std::find(channels.begin(), channels.end(), band.channel);
    if (found == channels.end()) {
      return InvalidFieldError(
          "bands", absl::StrCat("band of channel \"", band.channel,
                                "\": the runs compared have no such channel (they have ",
                                absl::StrJoin(channels, ", "), ")"));
    }
    indices.push_back(static_cast<size_t>(found - channels.begin()));
  }
  return indices;
}

VerdictRule BandRule(const std::vector<PairBand>& bands, double min_inside) {
  const double worst = WorstBandInside(bands);
  return {.name = "band_min_inside",
          .basis = "the smallest share of samples inside a tolerance band over the plan's pairs",
          .value = worst,
          .threshold = min_inside,
          .pass = worst >= min_inside};
}

}  // namespace wasserwarp
