// A bootstrap confidence interval for the baseline ratio
// median W(S, R2) / median W(R1, R2) (verdict.h's Baseline).
//
// Each resample draws the simulated and the reference runs with replacement, as many as
// there are, and computes the ratio anew over a few random splits of what was drawn. Copies
// of one reference run always go to the same half: two copies facing each other across the
// halves would cost 0, a pair that real data never has, and pull W(R1, R2) down. The interval
// is the resampled ratios' percentile interval. Repeated runs make a resample's W lumpier, more
// so for the spread-driven W(R1, R2) than for a W(S, R2) dominated by a systematic error, so
// for a model far off the interval sits a little below the ratio; where the truth is known
// (verdict_rates_test) it covered the truth in 79 of 80 data sets. The basic interval covered
// it in 63 of 80 there, and Efron's bias correction collapsed onto the largest resamples for
// the demo's failing variant, so neither is applied.

#ifndef WASSERWARP_SRC_VERDICT_RATIO_INTERVAL_H_
#define WASSERWARP_SRC_VERDICT_RATIO_INTERVAL_H_

#include <cstddef>
#include <cstdint>

#include "absl/status/statusor.h"
#include "verdict/resampling.h"
#include "wasserwarp/cost_matrix.h"
#include "wasserwarp/verdict.h"

namespace wasserwarp::resampling {

// Splits of each resample: enough that a resample's median is not one split's luck, few
// enough that the interval costs a small multiple of the baseline.
inline constexpr size_t kSplitsPerRatioResample = 16;

// across / within: +inf when a positive `across` meets references that coincide, 1 when both
// are 0.
double BaselineRatio(double across, double within);

struct RatioInterval {
  double lo = 0.0;
  double hi = 0.0;
};

// Transport solves of the interval with `resamples` resamples.
inline uint64_t RatioIntervalSolves(uint64_t resamples) {
  return resamples * 2 * kSplitsPerRatioResample;
}

// The interval for the baseline ratio at options.ratio_confidence over
// options.permutations resamples, on `pooled` whose first n runs are simulated, with subsets
// of h runs as the baseline's (h >= 1, at least 2h reference runs). [0, +inf] when no resample
// could split its references in two.
absl::StatusOr<RatioInterval> BootstrapRatioInterval(const CostMatrix& pooled, size_t n, size_t h,
                                                     double order, const VerdictOptions& options,
                                                     ResampleLoop& loop);

}  // namespace wasserwarp::resampling

#endif  // WASSERWARP_SRC_VERDICT_RATIO_INTERVAL_H_
