#include "random_source.h"

#include <cmath>
#include <numbers>

namespace wasserwarp::examples {

double RandomSource::Uniform() {
  // The top 53 bits fill a double's mantissa exactly.
  return static_cast<double>(engine_() >> 11) * 0x1.0p-53;
}

double RandomSource::Scatter(double center, double fraction) {
  return center * (1.0 + fraction * (2.0 * Uniform() - 1.0));
}

double RandomSource::Normal() {
  if (spare_normal_.has_value()) {
    const double spare = *spare_normal_;
    spare_normal_.reset();
    return spare;
  }
  // 1 - u lies in (0, 1], so the logarithm is finite.
  const double radius = std::sqrt(-2.0 * std::log(1.0 - Uniform()));
  const double angle = 2.0 * std::numbers::pi * Uniform();
  spare_normal_ = radius * std::sin(angle);
  return radius * std::cos(angle);
}

}  // namespace wasserwarp::examples
