// Exact min-cost transportation on a dense bipartite cost matrix with LEMON's
// network simplex, kept out of the public headers so that LEMON stays a
// private dependency of wasserwarp_transport.

#ifndef WASSERWARP_SRC_TRANSPORT_NETWORK_SIMPLEX_H_
#define WASSERWARP_SRC_TRANSPORT_NETWORK_SIMPLEX_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "wasserwarp/cost_matrix.h"

namespace wasserwarp {

// LEMON's pivot rules worth choosing between on dense transportation problems.
enum class PivotRule { kBlockSearch, kCandidateList, kAlteringList };

// The defaults are what SolveTransport uses. Block search (LEMON's default) is the rule with
// the smallest worst case on 2000 x 3000 distances between points of 1, 3 and 10 dimensions
// (bench/transport_bench.cc, BM_NetworkSimplexOptions): 1.21, 0.18 and 0.14 s, against 1.86,
// 0.23 and 0.11 s for altering list, which was the default until TWED matrices of one-sample
// runs (points of one and three dimensions) took it 1.7 times as long as block search. Arc
// mixing gains nothing: the solver works on a sparse subset of the arcs, listed row by row.
struct NetworkSimplexOptions {
  PivotRule pivot_rule = PivotRule::kBlockSearch;
  // LEMON's arc_mixing: scan arcs in a strided order instead of row by row.
  bool arc_mixing = false;
};

struct FlowEntry {
  int row = 0;
  int col = 0;
  int64_t flow = 0;  // > 0
};

struct NetworkSimplexSolution {
  std::vector<FlowEntry> flows;  // positive flows, sorted by row, then column
  // Node potentials as transportation duals: u_i + v_j <= costs(i, j), with
  // equality on every positive flow, both up to rounding.
  std::vector<double> u;
  std::vector<double> v;
};

// Min sum flow_ij * costs(i, j) over non-negative integer flows with row sums
// `supply` and column sums `demand`. Costs must be finite and >= 0 (the
// caller's check: it is an O(nm) pass that SolveTransport already makes).
// InvalidArgument when the supplies or demands do not fit the matrix, are
// negative or have different totals, or the instance exceeds LEMON's int
// indices; Internal when the solver does not report an optimum or its flow
// misses the supplies or demands; ResourceExhausted when memory runs out.
absl::StatusOr<NetworkSimplexSolution> SolveNetworkSimplex(
    const CostMatrix& costs, const std::vector<int64_t>& supply, const std::vector<int64_t>& demand,
    const NetworkSimplexOptions& options = {});

}  // namespace wasserwarp

#endif  // WASSERWARP_SRC_TRANSPORT_NETWORK_SIMPLEX_H_
