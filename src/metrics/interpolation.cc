#include "metrics/interpolation.h"

#include <algorithm>
#include <cstddef>
#include <vector>

namespace wasserwarp {

std::vector<double> Interpolate(const Series& run, size_t channel,
                                const std::vector<InterpolationPoint>& points, double factor) {
  std::vector<double> values(points.size());
  for (size_t k = 0; k < points.size(); ++k) {
    const auto [left, fraction] = points[k];
    const double value = fraction == 0.0 ? run.value(left, channel)
                                         : (1.0 - fraction) * run.value(left, channel) +
                                               fraction * run.value(left + 1, channel);
    values[k] = value * factor;
  }
  return values;
}

double MedianStep(const std::vector<double>& times) {
  std::vector<double> steps(times.size() - 1);
  for (size_t i = 0; i + 1 < times.size(); ++i) steps[i] = times[i + 1] - times[i];
  const size_t middle = steps.size() / 2;
  std::nth_element(steps.begin(), steps.begin() + middle, steps.end());
  if (steps.size() % 2 == 1) return steps[middle];
  const double below = *std::max_element(steps.begin(), steps.begin() + middle);
  return 0.5 * (below + steps[middle]);
}

}  // namespace wasserwarp
