// Uniform and normal variates that are the same on every platform for a
// given seed. std::mt19937_64 is fully specified by the standard, but the
// standard distributions are not, so the conversions are done here.

#ifndef WASSERWARP_EXAMPLES_RANDOM_SOURCE_H_
#define WASSERWARP_EXAMPLES_RANDOM_SOURCE_H_

#include <cstdint>
#include <optional>
#include <random>

namespace wasserwarp::examples {

class RandomSource {
 public:
  explicit RandomSource(uint64_t seed) : engine_(seed) {}

  // In [0, 1).
  double Uniform();
  // In [center * (1 - fraction), center * (1 + fraction)).
  double Scatter(double center, double fraction);
  // Standard normal, by the Box-Muller transform.
  double Normal();

 private:
  std::mt19937_64 engine_;
  // Box-Muller yields two variates per draw; the second waits here.
  std::optional<double> spare_normal_;
};

}  // namespace wasserwarp::examples

#endif  // WASSERWARP_EXAMPLES_RANDOM_SOURCE_H_
