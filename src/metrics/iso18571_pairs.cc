// ISO/TS 18571 on the transport plan's matched pairs: each pair's common grid, and the
// plan-weighted averages per channel.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <map>
#include <utility>
#include <vector>

#include "metrics/interpolation.h"
#include "series/sampling_rate.h"
#include "wasserwarp/iso18571.h"

namespace wasserwarp {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Timestamps closer than this share of a step are the same time.
constexpr double kSameTimeShare = 1e-9;

bool SameTimestamps(const Series& sim, const Series& ref, double step) {
  if (sim.samples() != ref.samples()) return false;
  for (size_t k = 0; k < ref.samples(); ++k) {
    if (!(std::abs(sim.times[k] - ref.times[k]) <= kSameTimeShare * step)) return false;
  }
  return true;
}

// The grid's sample count over [first, last] at `step`, counting a last point within
// rounding of `last`.
uint64_t GridCount(double first, double last, double step) {
  if (!(last >= first) || !(step > 0.0)) return 0;
  return static_cast<uint64_t>(std::floor((last - first) / step * (1.0 + kSameTimeShare))) + 1;
}

}  // namespace

uint64_t Iso18571GridSamples(double sim_span, double ref_span, double ref_median_step,
                             uint64_t ref_samples) {
  // Half of the steps are at least the median, so the reference may hold up to twice the
  // samples its span at the median step would.
  return std::max(GridCount(0.0, std::min(sim_span, ref_span), ref_median_step), ref_samples);
}

std::vector<Iso18571Rating> RateMatchedPair(const Series& sim, const Series& ref,
                                            const std::vector<double>& channel_divisors,
                                            double ref_step) {
  const size_t channels = ref.num_channels();
  if (sim.samples() < 2 || ref.samples() < 2) {
    return std::vector(channels, RateCurves({}, {}, 0.0));
  }
  const double step = ref_step > 0.0 ? ref_step : MedianStep(ref.times);
  std::vector<InterpolationPoint> sim_points;
  std::vector<InterpolationPoint> ref_points;
  if (SameTimestamps(sim, ref, step)) {
    sim_points.resize(ref.samples());
    for (size_t k = 0; k < ref.samples(); ++k) sim_points[k].left = k;
    ref_points = sim_points;
  } else {
    const double first = std::max(sim.times.front(), ref.times.front());
    const double last = std::min(sim.times.back(), ref.times.back());
    const auto time_of = [&](size_t k) {
      return std::min(last, first + static_cast<double>(k) * step);
    };
    const uint64_t count = GridCount(first, last, step);
    sim_points = Locate(sim.times, count, time_of);
    ref_points = Locate(ref.times, count, time_of);
  }
  std::vector<Iso18571Rating> ratings;
  ratings.reserve(channels);
  for (size_t c = 0; c < channels; ++c) {
    const double divisor = channel_divisors.empty() ? 1.0 : channel_divisors[c];
    ratings.push_back(RateCurves(Interpolate(ref, c, ref_points, divisor),
                                 Interpolate(sim, c, sim_points, divisor), step));
  }
  return ratings;
}

std::vector<Iso18571Average> PlanWeightedIso18571(const std::vector<PairIso18571>& pairs,
                                                  const std::vector<PlanEntry>& plan,
                                                  size_t channels) {
  static constexpr double Iso18571Rating::*kAveraged[] = {&Iso18571Rating::r, &Iso18571Rating::z,
                                                          &Iso18571Rating::ep, &Iso18571Rating::em,
                                                          &Iso18571Rating::es};
  static constexpr double Iso18571Average::*kAverage[] = {
      &Iso18571Average::r, &Iso18571Average::z, &Iso18571Average::ep, &Iso18571Average::em,
      &Iso18571Average::es};
  std::map<std::pair<int, int>, double> mass;
  for (const PlanEntry& entry : plan) mass[{entry.row, entry.col}] += entry.mass;

  // A pair's scores are all defined or all NaN, so one weight per channel serves them all.
  std::vector<Iso18571Average> sums(channels);
  std::vector<double> weight(channels, 0.0);
  std::vector<double> lowest(channels, std::numeric_limits<double>::infinity());
  for (const PairIso18571& pair : pairs) {
    if (pair.channel < 0 || static_cast<size_t>(pair.channel) >= channels) continue;
    if (std::isnan(pair.rating.r)) continue;
    const auto found = mass.find({pair.sim, pair.ref});
    if (found == mass.end() || !(found->second > 0.0)) continue;
    const size_t c = pair.channel;
    for (size_t k = 0; k < std::size(kAveraged); ++k) {
      sums[c].*kAverage[k] += found->second * pair.rating.*kAveraged[k];
    }
    weight[c] += found->second;
    lowest[c] = std::min(lowest[c], pair.rating.r);
  }
  std::vector<Iso18571Average> average(channels);
  for (size_t c = 0; c < channels; ++c) {
    for (size_t k = 0; k < std::size(kAverage); ++k) {
      average[c].*kAverage[k] = weight[c] > 0.0 ? sums[c].*kAverage[k] / weight[c] : kNaN;
    }
    average[c].min_r = weight[c] > 0.0 ? lowest[c] : kNaN;
  }
  return average;
}

}  // namespace wasserwarp
