// Pooled matrices of points for the verdict's tests: Euclidean distances between uniform points,
// a metric with the structure of TWEDs at a fraction of their cost.

#ifndef WASSERWARP_TESTS_POOLED_POINTS_H_
#define WASSERWARP_TESTS_POOLED_POINTS_H_

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

#include "wasserwarp/cost_matrix.h"

namespace wasserwarp::test_data {

using Point = std::vector<double>;

inline std::vector<Point> UniformPoints(size_t count, size_t dim, double shift,
                                        std::mt19937_64& rng) {
  std::uniform_real_distribution<double> coordinate(0.0, 1.0);
  std::vector<Point> points(count, Point(dim));
  for (Point& point : points) {
    for (double& x : point) x = coordinate(rng) + shift;
  }
  return points;
}

// Euclidean distances between all points, simulated ones first.
inline CostMatrix PooledDistances(const std::vector<Point>& sim, const std::vector<Point>& ref) {
  std::vector<Point> all = sim;
  all.insert(all.end(), ref.begin(), ref.end());
  CostMatrix pooled(all.size(), all.size());
  for (size_t i = 0; i < all.size(); ++i) {
    for (size_t j = 0; j < all.size(); ++j) {
      double sum = 0.0;
      for (size_t k = 0; k < all[i].size(); ++k) {
        sum += (all[i][k] - all[j][k]) * (all[i][k] - all[j][k]);
      }
      pooled.at(i, j) = std::sqrt(sum);
    }
  }
  return pooled;
}

// Two groups of uniform points in the unit square, the simulated ones moved by `shift`.
inline CostMatrix RandomPooled(size_t n, size_t m, double shift, uint64_t seed) {
  std::mt19937_64 rng(seed);
  const std::vector<Point> sim = UniformPoints(n, 2, shift, rng);
  const std::vector<Point> ref = UniformPoints(m, 2, 0.0, rng);
  return PooledDistances(sim, ref);
}

}  // namespace wasserwarp::test_data

#endif  // WASSERWARP_TESTS_POOLED_POINTS_H_
