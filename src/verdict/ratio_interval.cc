#include "verdict/ratio_interval.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <map>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "verdict/resampling_rng.h"
#include "verdict/resampling_summary.h"
#include "verdict/subset_distance.h"

namespace wasserwarp::resampling {
namespace {

constexpr uint64_t kRatioStream = 3;
constexpr double kNoRatio = std::numeric_limits<double>::quiet_NaN();

// A multiset of runs as sorted run indices and their counts.
struct Drawn {
  std::vector<size_t> runs;
  std::vector<double> counts;
};

Drawn Tally(const std::vector<size_t>& draws) {
  std::map<size_t, double> tally;
  for (size_t run : draws) tally[run] += 1.0;
  Drawn drawn;
  for (const auto& [run, count] : tally) {
    drawn.runs.push_back(run);
    drawn.counts.push_back(count);
  }
  return drawn;
}

// One resample's ratio; NaN when its references cannot be split in two.
absl::StatusOr<double> ResampledRatio(const CostMatrix& pooled, size_t n, size_t h, double order,
                                      ResampleRng& rng) {
  const size_t m = pooled.rows - n;
  std::vector<size_t> simulations(n);
  for (size_t& run : simulations) run = rng.Below(n);
  std::vector<double> reference_counts(m, 0.0);
  for (size_t k = 0; k < m; ++k) reference_counts[rng.Below(m)] += 1.0;
  std::vector<size_t> distinct;
  for (size_t j = 0; j < m; ++j) {
    if (reference_counts[j] > 0.0) distinct.push_back(n + j);
  }
  if (distinct.size() < 2) return kNoRatio;

  std::vector<double> within;
  std::vector<double> across;
  for (size_t split = 0; split < kSplitsPerRatioResample; ++split) {
    ShuffleFront(distinct, distinct.size(), rng);
    // Whole runs into the first half until it holds h draws; the second half keeps at
    // least one run.
    size_t first = 0;
    double held = 0.0;
    while (first + 1 < distinct.size() && held < static_cast<double>(h)) {
      held += reference_counts[distinct[first] - n];
      ++first;
    }
    std::vector<size_t> half_one(distinct.begin(), distinct.begin() + first);
    std::vector<size_t> half_two(distinct.begin() + first, distinct.end());
    const auto counted = [&](std::vector<size_t>& runs) {
      std::sort(runs.begin(), runs.end());
      Drawn drawn{.runs = runs, .counts = {}};
      for (size_t run : runs) drawn.counts.push_back(reference_counts[run - n]);
      return drawn;
    };
    const Drawn r1 = counted(half_one);
    const Drawn r2 = counted(half_two);
    ShuffleFront(simulations, h, rng);
    const Drawn s = Tally(std::vector<size_t>(simulations.begin(), simulations.begin() + h));
    absl::StatusOr<double> w_within =
        SubsetDistance(pooled, r1.runs, r1.counts, r2.runs, r2.counts, order);
    if (!w_within.ok()) return w_within.status();
    absl::StatusOr<double> w_across =
        SubsetDistance(pooled, s.runs, s.counts, r2.runs, r2.counts, order);
    if (!w_across.ok()) return w_across.status();
    within.push_back(*w_within);
    across.push_back(*w_across);
  }
  return BaselineRatio(Summarise(std::move(across)).median, Summarise(std::move(within)).median);
}

}  // namespace

double BaselineRatio(double across, double within) {
  if (within > 0.0) return across / within;
  return across > 0.0 ? std::numeric_limits<double>::infinity() : 1.0;
}

absl::StatusOr<RatioInterval> BootstrapRatioInterval(const CostMatrix& pooled, size_t n, size_t h,
                                                     double order, const VerdictOptions& options,
                                                     ResampleLoop& loop) {
  const auto resamples = static_cast<size_t>(options.permutations);
  std::vector<double> ratios(resamples);
  absl::Status status =
      loop.Run(resamples, 2 * kSplitsPerRatioResample, [&](size_t k) -> absl::Status {
        ResampleRng rng(options.seed, k, kRatioStream);
        absl::StatusOr<double> ratio = ResampledRatio(pooled, n, h, order, rng);
        if (!ratio.ok()) return ratio.status();
        ratios[k] = *ratio;
        return absl::OkStatus();
      });
  if (!status.ok()) return status;
  ratios.erase(std::remove_if(ratios.begin(), ratios.end(), [](double r) { return std::isnan(r); }),
               ratios.end());
  if (ratios.empty())
    return RatioInterval{.lo = 0.0, .hi = std::numeric_limits<double>::infinity()};
  std::sort(ratios.begin(), ratios.end());
  const double tail = (1.0 - options.ratio_confidence) / 2.0;
  return RatioInterval{.lo = Quantile(ratios, tail), .hi = Quantile(ratios, 1.0 - tail)};
}

}  // namespace wasserwarp::resampling
