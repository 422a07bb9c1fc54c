// The ISO/TS 18571 (edition 2) objective rating of a simulated (CAE) curve against a test
// curve, on one matched pair of runs per channel: corridor, phase, magnitude and slope scores,
// their weighted sum and its grade. The definition, constants and tie rules are those of
// issue 42; src/metrics/iso18571.cc computes it.
#ifndef WASSERWARP_ISO18571_H_
#define WASSERWARP_ISO18571_H_

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "wasserwarp/series.h"
#include "wasserwarp/transport.h"

namespace wasserwarp {

// A pair with fewer grid samples than this has no rating (NaN scores, and a warning).
inline constexpr uint64_t kMinIso18571Samples = 10;

// One channel of one pair. Every score is in [0, 1], 1 = identical; all NaN for a pair
// with fewer than kMinIso18571Samples samples.
struct Iso18571Rating {
  uint64_t samples = 0;  // n, the common grid's
  double r = 0.0;        // 0.4 z + 0.2 ep + 0.2 em + 0.2 es
  double z = 0.0;        // corridor
  double ep = 0.0;       // phase
  double em = 0.0;       // magnitude, on the shifted curves warped by DTW
  double es = 0.0;       // slope, on the shifted curves
  // The phase shift kept: positive when the simulated curve is late, C[k:] against T[:n-k].
  int64_t shift_samples = 0;
  double shift_seconds = 0.0;  // shift_samples times the grid's step
};

// "excellent" above 0.94, "good" above 0.80, "fair" above 0.58, else "poor"; "" for NaN.
std::string_view Iso18571Grade(double r);

// The rating of `cae` against `test`, two curves of one length n on one uniform grid of
// `step` seconds.
Iso18571Rating RateCurves(std::span<const double> test, std::span<const double> cae, double step);

// Per channel of `sim` and `ref` (the same channels in the same order): both put on the grid
// of the time range they both cover, at the reference's median step from its start, or on
// their timestamps where these agree; `channel_divisors` as for CompareMatchedPair.
// `ref_step` > 0 is that median step as the reference was recorded, where `ref` is a window
// cut from it (PreparedRuns::reference_steps); 0: `ref`'s own.
std::vector<Iso18571Rating> RateMatchedPair(const Series& sim, const Series& ref,
                                            const std::vector<double>& channel_divisors = {},
                                            double ref_step = 0.0);

// At most the grid samples RateMatchedPair rates a pair on, from the runs' spans (seconds), the
// reference's median sampling step and its sample count alone, wherever the alignment puts them:
// the larger of the interpolated grid's count (exact where the simulated run's span covers the
// reference's) and the reference's samples (the grid where both runs share their timestamps).
uint64_t Iso18571GridSamples(double sim_span, double ref_span, double ref_median_step,
                             uint64_t ref_samples);

// The DTW cells one channel of a pair of n grid samples costs at most: n (2 w - 1) with the
// band half-width w = max(1, ceil(0.1 n)).
uint64_t Iso18571DtwCells(uint64_t n);

struct PairIso18571 {
  int sim = 0;
  int ref = 0;
  int channel = 0;
  Iso18571Rating rating;
};

// Per channel: the plan-weighted means of r, z, ep, em and es over the rated pairs (as
// PlanWeightedMetrics weighs them) and the lowest r of any rated pair; NaN where no pair of
// the channel has a rating.
struct Iso18571Average {
  double r = 0.0;
  double z = 0.0;
  double ep = 0.0;
  double em = 0.0;
  double es = 0.0;
  double min_r = 0.0;
};
std::vector<Iso18571Average> PlanWeightedIso18571(const std::vector<PairIso18571>& pairs,
                                                  const std::vector<PlanEntry>& plan,
                                                  size_t channels);

}  // namespace wasserwarp

#endif  // WASSERWARP_ISO18571_H_
