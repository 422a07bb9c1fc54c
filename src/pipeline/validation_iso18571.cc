#include "pipeline/validation_iso18571.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "pipeline/plan_parallel.h"

namespace wasserwarp {
namespace {

std::vector<std::string> ShortPairWarnings(const std::vector<PairIso18571>& pairs,
                                           const std::vector<std::string>& channels) {
  std::vector<std::string> warnings;
  for (size_t c = 0; c < channels.size(); ++c) {
    size_t unrated = 0;
    const PairIso18571* first = nullptr;
    for (const PairIso18571& pair : pairs) {
      if (static_cast<size_t>(pair.channel) != c || !std::isnan(pair.rating.r)) continue;
      if (first == nullptr) first = &pair;
      ++unrated;
    }
    if (first == nullptr) continue;
    warnings.push_back(absl::StrFormat(
        "channel %s: %d plan pair(s) have fewer than %d samples on their common grid and no "
        "ISO/TS 18571 rating (the first, simulated run %d against reference run %d, has %d)",
        channels[c], unrated, kMinIso18571Samples, first->sim, first->ref, first->rating.samples));
  }
  return warnings;
}

}  // namespace

PlanIso18571 RatePlanPairs(const PreparedRuns& runs, const std::vector<PlanEntry>& plan,
                           int max_threads) {
  const size_t channels = runs.channels.size();
  PlanIso18571 rated;
  rated.pairs.resize(plan.size() * channels);
  ForEachPlanEntry(plan, max_threads, [&](size_t k) {
    const PlanEntry& entry = plan[k];
    const std::vector<Iso18571Rating> pair = RateMatchedPair(
        runs.simulation[entry.row], runs.reference[entry.col], runs.channel_divisors,
        runs.reference_steps.empty() ? 0.0 : runs.reference_steps[entry.col]);
    for (size_t c = 0; c < channels; ++c) {
      rated.pairs[k * channels + c] = {entry.row, entry.col, static_cast<int>(c), pair[c]};
    }
  });
  rated.averages = PlanWeightedIso18571(rated.pairs, plan, channels);
  rated.warnings = ShortPairWarnings(rated.pairs, runs.channels);
  return rated;
}

VerdictRule MinIsoRatingRule(const std::vector<Iso18571Average>& averages, double threshold) {
  double lowest = averages.empty() ? NAN : averages.front().r;
  for (const Iso18571Average& average : averages) {
    if (std::isnan(average.r) || average.r < lowest) lowest = average.r;
    if (std::isnan(lowest)) break;
  }
  return {.name = "min_iso_rating",
          .basis = "lowest plan-weighted mean ISO/TS 18571 rating of a channel",
          .value = lowest,
          .threshold = threshold,
          .pass = lowest >= threshold};
}

}  // namespace wasserwarp
