// W_q between two groups of runs picked out of one cost matrix: the one solve behind every
// resample of the verdict and of compare.

#ifndef WASSERWARP_SRC_VERDICT_SUBSET_DISTANCE_H_
#define WASSERWARP_SRC_VERDICT_SUBSET_DISTANCE_H_

#include <cstddef>
#include <vector>

#include "absl/status/statusor.h"
#include "wasserwarp/cost_matrix.h"

namespace wasserwarp::resampling {

// W_q between the measures on rows `rows` and on columns `cols` of `costs`, each run weighted
// by its count (a resample that draws a run twice gives it twice the mass); empty counts
// weigh every run alike. The solve sees the runs in the order given, so callers that want
// the same number for the same set pass them sorted.
absl::StatusOr<double> SubsetDistance(const CostMatrix& costs, const std::vector<size_t>& rows,
                                      const std::vector<double>& row_counts,
                                      const std::vector<size_t>& cols,
                                      const std::vector<double>& col_counts, double order);

}  // namespace wasserwarp::resampling

#endif  // WASSERWARP_SRC_VERDICT_SUBSET_DISTANCE_H_
