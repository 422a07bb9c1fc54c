// Some pairs of a cost matrix, each computed only as far as its own threshold: the lazy
// transport's way of asking for the TWEDs that its duals cannot do without.

#ifndef WASSERWARP_SRC_TWED_PAIR_REQUESTS_H_
#define WASSERWARP_SRC_TWED_PAIR_REQUESTS_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "absl/status/statusor.h"
#include "twed/twed_pruned.h"
#include "wasserwarp/cost_matrix.h"
#include "wasserwarp/series.h"
#include "wasserwarp/twed.h"

namespace wasserwarp {

// TWED(rows[pair / cols.size()], cols[pair % cols.size()]) up to `threshold`, as TwedWithin.
struct PairRequest {
  size_t pair = 0;
  double threshold = 0.0;
};

// Called from worker threads, never concurrently with itself: request k is done.
using PairRequestDone = std::function<void(size_t k, const BoundedTwed& result)>;

// result[k] answers requests[k], the same numbers whatever the thread count: pairs of one row,
// or of one column, share SIMD lanes (BatchTwedWithin) where the kernel supports them, and so do
// lone requests for a whole TWED (BatchTwedPairs), each lane within exactly where TwedWithin is
// and with its value. `requests` sorted by pair; the series valid with one channel count (the
// lanes need it: SolveLazyTransport checks it first). The first failing pair's error in
// row-major order; Cancelled when `options.cancel` is set. `options.progress` is not called:
// `done` is.
absl::StatusOr<std::vector<BoundedTwed>> ComputePairRequests(
    const std::vector<Series>& rows, const std::vector<Series>& cols, const TwedParams& params,
    const std::vector<PairRequest>& requests, const CostMatrixOptions& options,
    const PairRequestDone& done);

// TwedWithPath of every pair of `pairs` (row-major, sorted): the plan's edit-path diagnostics.
// Pairs share SIMD lanes where PairsSupport holds (BatchTwedPairsWithPath, the same numbers),
// else each runs alone; the same numbers whatever the thread count. The first failing pair's error
// in row-major order; Cancelled when `options.cancel` is set.
absl::StatusOr<std::vector<EditPathSummary>> ComputePairPaths(const std::vector<Series>& rows,
                                                              const std::vector<Series>& cols,
                                                              const TwedParams& params,
                                                              const std::vector<size_t>& pairs,
                                                              const CostMatrixOptions& options);

// Called from worker threads, never concurrently with itself: `pairs` more bounded, over
// `cells` DP cells of single precision.
using PairBoundsDone = std::function<void(uint64_t pairs, uint64_t cells)>;

// result[k] <= the TWED of pairs[k] (row-major, sorted) as ComputeCostMatrix computes it, from
// the DP in single precision (twed/twed_single.h): within about 1e-4 of it on runs of thousands of
// samples, at about half the cost. All 0 where that bound does not apply (SingleSupports). The
// same numbers whatever the thread count. The series as for ComputePairRequests; Cancelled when
// `options.cancel` is set.
absl::StatusOr<std::vector<double>> ComputePairBounds(
    const std::vector<Series>& rows, const std::vector<Series>& cols, const TwedParams& params,
    const std::vector<size_t>& pairs, const CostMatrixOptions& options, const PairBoundsDone& done);

// What the 16-bit DP says of one pair (twed/twed_quantized.h).
struct PairQuantizedBound {
  double bound = 0.0;     // <= the TWED as ComputeCostMatrix computes it
  double estimate = 0.0;  // near the TWED, no bound (0 where the bound does not apply)
};

// result[k] for pairs[k] (row-major, sorted), from the DP over each pair's runs rounded to 16-bit
// integers: within 1e-2 to 2e-2 of the TWED on runs of thousands of samples, at about a quarter of
// its cost. All 0 where QuantizedSupports does not hold. Any QuantizedLanes() pairs share the
// lanes of one call, pairs of nearly one length side by side (of one length exactly where
// lambda > 0, as padding would loosen the bound there). The same numbers whatever the thread count;
// `done` and the rest as for ComputePairBounds.
absl::StatusOr<std::vector<PairQuantizedBound>> ComputePairQuantizedBounds(
    const std::vector<Series>& rows, const std::vector<Series>& cols, const TwedParams& params,
    const std::vector<size_t>& pairs, const CostMatrixOptions& options, const PairBoundsDone& done);

}  // namespace wasserwarp

#endif  // WASSERWARP_SRC_TWED_PAIR_REQUESTS_H_
