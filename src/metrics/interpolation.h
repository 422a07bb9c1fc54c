// Linear interpolation of a run's channels at given times, and a run's median sampling step:
// what the rigid pair metrics and the ISO/TS 18571 rating both put a pair of runs on a common
// grid with.

#ifndef WASSERWARP_SRC_METRICS_INTERPOLATION_H_
#define WASSERWARP_SRC_METRICS_INTERPOLATION_H_

#include <algorithm>
#include <cstddef>
#include <vector>

#include "wasserwarp/series.h"

namespace wasserwarp {

// Where a time falls among a run's increasing timestamps: `fraction` of the
// way from sample `left` to sample `left + 1`.
struct InterpolationPoint {
  size_t left = 0;
  double fraction = 0.0;
};

// `count` increasing times, time_of(k) for k < count, each inside the run's
// time range up to rounding.
template <typename TimeOf>
std::vector<InterpolationPoint> Locate(const std::vector<double>& run_times, size_t count,
                                       TimeOf time_of) {
  std::vector<InterpolationPoint> points(count);
  const size_t n = run_times.size();
  if (n < 2) return points;
  size_t left = 0;
  for (size_t k = 0; k < count; ++k) {
    const double t = time_of(k);
    while (left + 2 < n && run_times[left + 1] <= t) ++left;
    const double fraction = (t - run_times[left]) / (run_times[left + 1] - run_times[left]);
    points[k] = {left, std::clamp(fraction, 0.0, 1.0)};
  }
  return points;
}

// Channel `channel` of `run` at `points`, times `factor`. A point on a sample
// takes the sample's value exactly, so identical runs compare as equal.
std::vector<double> Interpolate(const Series& run, size_t channel,
                                const std::vector<InterpolationPoint>& points, double factor);

}  // namespace wasserwarp

#endif  // WASSERWARP_SRC_METRICS_INTERPOLATION_H_
