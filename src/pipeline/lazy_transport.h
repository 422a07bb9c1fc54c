// The Wasserstein distance between two sets of runs with TWED as ground
// cost, from the TWEDs of the pairs that can matter only (issue 19).
//
// The transport is solved on the pairs computed so far, with the largest
// TWED computed so far standing in for every other pair (its lower bound
// where that is larger), so that plans keep to computed pairs.
// Every pair not computed is then priced against its proven lower bound
// (docs/twed_bounds.md): a pair with u_i + v_j <= LB_ij^q cannot improve
// the plan and needs no TWED. The others are first bounded by the DP on 16-bit
// integers (twed/twed_quantized.h), at about a quarter of the cost of their
// TWED and within 1e-2 to 2e-2 of it, and stand in for the next solve at its
// estimate (within about 1e-4), whose duals then price out most of them; those
// still violated are bounded by the DP in single precision (twed/twed_single.h),
// at about half the cost and within about 1e-4, and stand in at that bound;
// what is still violated is computed, abandoned early once its TWED is known
// to exceed (u_i + v_j)^(1/q). That repeats until no
// pair violates. The last plan uses computed pairs only, and its duals are
// feasible for every pair: against the computed TWED where there is one and
// against a lower bound, hence against the TWED, elsewhere. So the plan is
// optimal for the full matrix, and the certificate says so for every pair.

#ifndef WASSERWARP_SRC_PIPELINE_LAZY_TRANSPORT_H_
#define WASSERWARP_SRC_PIPELINE_LAZY_TRANSPORT_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "wasserwarp/cost_matrix.h"
#include "wasserwarp/series.h"
#include "wasserwarp/transport.h"
#include "wasserwarp/twed.h"

namespace wasserwarp {

// How much of the full matrix a lazy solve computed.
struct LazyTransportStats {
  uint64_t pairs_total = 0;      // rows x cols
  uint64_t pairs_computed = 0;   // TWED known exactly
  uint64_t pairs_abandoned = 0;  // TWED started and stopped above its threshold, at least once
  uint64_t dp_cells = 0;         // DP cells evaluated, abandoned ones included
  uint64_t dp_cells_full = 0;    // DP cells of every pair, as the exhaustive matrix computes
  // Pairs bounded by the DP on 16-bit integers, and its cells (each about a quarter of a DP
  // cell's time), not counted in dp_cells.
  uint64_t pairs_int16_bounded = 0;
  uint64_t int16_cells = 0;
  // Pairs bounded by the DP in single precision, and its cells (each about half a DP cell's
  // time), not counted in dp_cells.
  uint64_t pairs_single_bounded = 0;
  uint64_t single_cells = 0;
  int rounds = 0;  // transport solves
  // The first priced round that computes TWEDs asked for more than 0.6 of the matrix's cells, the
  // rounds used up their budget of solves (pipeline/path_choice.h), or a time window was set:
  // every pair was computed at once, and the plan is that of the full matrix.
  bool exhaustive = false;
};

struct LazyTransportResult {
  // Its certificate covers every pair, with the bounds below for the pairs not computed.
  TransportResult transport;
  // TWED(rows[i], cols[j]) where computed(i, j), else a proven lower bound on it.
  CostMatrix bounds;
  std::vector<bool> computed;  // row-major, rows x cols
  LazyTransportStats stats;
};

// W_q between `rows` and `cols` under `transport`, with TWED under `twed` as ground cost:
// the same distance as SolveTransport on ComputeCostMatrix (to rounding where optimal plans
// tie), computed lazily as above. Errors as for those two; `compute` as for
// ComputeCostMatrix, its progress (in the lazy rounds) counting pairs settled (computed or priced
// out) of all pairs, and cells evaluated of the full matrix's cells.
absl::StatusOr<LazyTransportResult> SolveLazyTransport(const std::vector<Series>& rows,
                                                       const std::vector<Series>& cols,
                                                       const TwedParams& twed,
                                                       const TransportOptions& transport,
                                                       const CostMatrixOptions& compute = {});

}  // namespace wasserwarp

#endif  // WASSERWARP_SRC_PIPELINE_LAZY_TRANSPORT_H_
