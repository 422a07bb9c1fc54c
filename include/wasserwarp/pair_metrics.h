// The classic rigid metrics engineers know, on one matched pair of runs:
// the simulated run linearly interpolated onto the reference's timestamps,
// over the time range both cover.
#ifndef WASSERWARP_PAIR_METRICS_H_
#define WASSERWARP_PAIR_METRICS_H_

#include <cstdint>
#include <vector>

#include "wasserwarp/series.h"
#include "wasserwarp/transport.h"

namespace wasserwarp {

// One channel of one pair, in the channel's own units. A metric that is
// undefined for the data (no overlap, a silent reference for Sprague-Geers)
// is NaN; the JSON writes it as null.
struct ChannelMetrics {
  uint64_t samples = 0;  // reference samples inside the overlap
  double rmse = 0.0;
  double theil_u = 0.0;  // sqrt(mean (y-z)^2) / (sqrt(mean y^2) + sqrt(mean z^2)), 0 = perfect
  double q3 = 0.0;       // mean 1 / (1 + (y-z)^2), 1 = perfect
  // Sprague-Geers with the reference as measurement m, the simulation as c:
  // M = sqrt(sum c^2 / sum m^2) - 1 (magnitude), P = acos(sum c m /
  // sqrt(sum c^2 sum m^2)) / pi in [0, 1] (phase), C = sqrt(M^2 + P^2); 0 = perfect.
  double sprague_geers_m = 0.0;
  double sprague_geers_p = 0.0;
  double sprague_geers_c = 0.0;
  // Seconds; positive when the simulated run is late: sim(t) ~ ref(t - lag).
  // Both runs resampled on a common grid with the reference's median sampling
  // step (coarser when that would exceed about 10^6 points), the peak of the
  // Pearson correlation of their overlapping parts over every whole-step
  // shift that still overlaps half of the shorter one, refined by a parabola.
  // Of peaks about equally high (a periodic signal), the one comparing more of
  // the runs. NaN when either channel is constant.
  double lag = 0.0;
};

// Per channel of `sim` and `ref`, which hold the same channels in the same
// order. `channel_divisors` (one per channel, or empty for 1) multiply the
// values back into the channel's units when the runs were scaled.
std::vector<ChannelMetrics> CompareMatchedPair(const Series& sim, const Series& ref,
                                               const std::vector<double>& channel_divisors = {});

struct PairMetrics {
  int sim = 0;
  int ref = 0;
  int channel = 0;
  ChannelMetrics metrics;
};

// The plan-weighted mean of each metric per channel over `pairs` (which
// follow `plan`: one entry per plan entry and channel; each pair weighs the
// mass of the plan entry with its sim and ref), skipping NaNs and
// renormalising the remaining mass; NaN where nothing is left. `samples` is
// the total over the pairs.
std::vector<ChannelMetrics> PlanWeightedMetrics(const std::vector<PairMetrics>& pairs,
                                                const std::vector<PlanEntry>& plan,
                                                size_t channels);

}  // namespace wasserwarp

#endif  // WASSERWARP_PAIR_METRICS_H_
