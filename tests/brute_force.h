// Brute-force optima that the solvers are checked against.

#ifndef WASSERWARP_TESTS_BRUTE_FORCE_H_
#define WASSERWARP_TESTS_BRUTE_FORCE_H_

#include <algorithm>
#include <limits>
#include <numeric>
#include <vector>

#include "wasserwarp/cost_matrix.h"

namespace wasserwarp::test_data {

// min over all permutations sigma of sum_i costs(i, sigma(i)), by enumeration.
inline double MinPermutationCost(const CostMatrix& costs) {
  std::vector<int> perm(costs.rows);
  std::iota(perm.begin(), perm.end(), 0);
  double best = std::numeric_limits<double>::infinity();
  do {
    double cost = 0.0;
    for (size_t i = 0; i < costs.rows; ++i) cost += costs.at(i, perm[i]);
    best = std::min(best, cost);
  } while (std::next_permutation(perm.begin(), perm.end()));
  return best;
}

}  // namespace wasserwarp::test_data

#endif  // WASSERWARP_TESTS_BRUTE_FORCE_H_
