// Transport between points on a line: the TWEDs of runs of one sample and one channel are
// |x - y|, and sorted along the line |x - y|^q (q >= 1) is a Monge matrix, C(i, j) + C(i', j') <=
// C(i, j') + C(i', j) for i < i' and j < j', on which the north-west corner rule gives an
// optimal plan for any weights (Hoffman 1963), in O(n + m) steps after sorting. The general
// solvers stall on such costs: the network simplex took 1.2 s at 2000 x 3000 and the assignment
// solver's candidates scanned past their limit, where sorting, a check and the corner rule take
// milliseconds. SolveTransport tries this first and certifies the plan as any other.

#ifndef WASSERWARP_SRC_TRANSPORT_MONOTONE_H_
#define WASSERWARP_SRC_TRANSPORT_MONOTONE_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "transport/network_simplex.h"
#include "wasserwarp/cost_matrix.h"

namespace wasserwarp {

// Rows and columns in their order along the line.
struct MonotoneOrder {
  std::vector<int> rows;
  std::vector<int> cols;
};

// An order of the rows and of the columns under which every adjacent 2 x 2 block of `costs_to_q`
// is Monge to within `tolerance`, guessed from `costs` read as distances |x - y| between points
// on a line: from the pair of the largest entry, `farthest` (row-major), keys measured from the
// ends of the line it finds. nullopt where the guess is not Monge, which for costs from anything
// but points on a line shows in the first few blocks. Both matrices finite, non-negative, of one
// shape, at least 2 x 2; `costs_to_q` a non-decreasing function of `costs` (C^q).
std::optional<MonotoneOrder> FindMonotoneOrder(const CostMatrix& costs,
                                               const CostMatrix& costs_to_q, size_t farthest,
                                               double tolerance);

// The north-west corner plan of integer `supply` and `demand` (equal totals) along `order`, and
// duals with u_i + v_j = costs_to_q(i, j) on the n + m - 1 cells of its staircase: the plan is
// optimal and the duals feasible where the order makes `costs_to_q` Monge. Flows sorted by row,
// then column, as the network simplex gives them.
NetworkSimplexSolution NorthWestCorner(const CostMatrix& costs_to_q, const MonotoneOrder& order,
                                       const std::vector<int64_t>& supply,
                                       const std::vector<int64_t>& demand);

}  // namespace wasserwarp

#endif  // WASSERWARP_SRC_TRANSPORT_MONOTONE_H_
