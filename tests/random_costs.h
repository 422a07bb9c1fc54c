// Deterministic random cost matrices for the transport tests and benchmarks, and their powers.

#ifndef WASSERWARP_TESTS_RANDOM_COSTS_H_
#define WASSERWARP_TESTS_RANDOM_COSTS_H_

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "wasserwarp/cost_matrix.h"

namespace wasserwarp::test_data {

// Euclidean distances between random points of [0, side]^dim, the shape of
// TWED matrices: many near-equal entries, unlike uniform random costs.
inline CostMatrix MetricCosts(size_t rows, size_t cols, size_t dim, uint64_t seed,
                              double side = 1.0) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> coordinate(0.0, side);
  std::vector<double> a(rows * dim);
  std::vector<double> b(cols * dim);
  for (double& x : a) x = coordinate(rng);
  for (double& x : b) x = coordinate(rng);
  CostMatrix costs(rows, cols);
  for (size_t i = 0; i < rows; ++i) {
    for (size_t j = 0; j < cols; ++j) {
      double sum = 0.0;
      for (size_t k = 0; k < dim; ++k) {
        const double d = a[i * dim + k] - b[j * dim + k];
        sum += d * d;
      }
      costs.at(i, j) = std::sqrt(sum);
    }
  }
  return costs;
}

inline CostMatrix UniformCosts(size_t rows, size_t cols, uint64_t seed, double low = 0.0,
                               double high = 1.0) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> dist(low, high);
  CostMatrix costs(rows, cols);
  for (double& c : costs.values) c = dist(rng);
  return costs;
}

// Small integers: many ties, many optimal plans.
inline CostMatrix IntegerCosts(size_t rows, size_t cols, int max_value, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> dist(0, max_value);
  CostMatrix costs(rows, cols);
  for (double& c : costs.values) c = dist(rng);
  return costs;
}

// C^q entry by entry: what SolveTransport transports at order q.
inline CostMatrix Powered(const CostMatrix& costs, double q) {
  CostMatrix powered = costs;
  for (double& c : powered.values) c = std::pow(c, q);
  return powered;
}

}  // namespace wasserwarp::test_data

#endif  // WASSERWARP_TESTS_RANDOM_COSTS_H_
