// The random splits of the verdict's baseline, shared with parameter studies: both measure how
// far the references are from each other as W between two disjoint halves of them, and the
// same seed must give the same halves wherever that number is computed.

#ifndef WASSERWARP_SRC_VERDICT_BASELINE_SPLIT_H_
#define WASSERWARP_SRC_VERDICT_BASELINE_SPLIT_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <numeric>
#include <vector>

#include "verdict/resampling_rng.h"

namespace wasserwarp::resampling {

// The stream of the baseline's draws (the permutation test's is 1).
inline constexpr uint64_t kBaselineStream = 2;

// `end - begin` consecutive indices from `begin`.
inline std::vector<size_t> IndexRange(size_t begin, size_t end) {
  std::vector<size_t> indices(end - begin);
  std::iota(indices.begin(), indices.end(), begin);
  return indices;
}

// Sorted, so that the same set of runs always gives the same cost matrix.
inline std::vector<size_t> SortedSlice(const std::vector<size_t>& indices, size_t begin,
                                       size_t end) {
  std::vector<size_t> slice(indices.begin() + begin, indices.begin() + end);
  std::sort(slice.begin(), slice.end());
  return slice;
}

struct BaselineSplit {
  std::vector<size_t> references_a;  // h reference runs, sorted
  std::vector<size_t> references_b;  // h others, sorted
  std::vector<size_t> simulations;   // h simulated runs, sorted; empty without simulations
};

// Split k of `seed`: the references are the indices [first_reference, first_reference +
// reference_runs), the simulations [0, simulation_runs); 2 half <= reference_runs and, with
// simulations, half <= simulation_runs. The references are drawn first, so a split of the
// references alone equals the references of a split with simulations.
inline BaselineSplit DrawBaselineSplit(uint64_t seed, uint64_t k, size_t simulation_runs,
                                       size_t first_reference, size_t reference_runs, size_t half) {
  ResampleRng rng(seed, k, kBaselineStream);
  std::vector<size_t> references = IndexRange(first_reference, first_reference + reference_runs);
  ShuffleFront(references, 2 * half, rng);
  BaselineSplit split;
  split.references_a = SortedSlice(references, 0, half);
  split.references_b = SortedSlice(references, half, 2 * half);
  if (simulation_runs > 0) {
    std::vector<size_t> simulations = IndexRange(0, simulation_runs);
    ShuffleFront(simulations, half, rng);
    split.simulations = SortedSlice(simulations, 0, half);
  }
  return split;
}

}  // namespace wasserwarp::resampling

#endif  // WASSERWARP_SRC_VERDICT_BASELINE_SPLIT_H_
