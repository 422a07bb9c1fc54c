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

}  // namespace wasserwarp
