// The two exact assignment solvers behind SolveAssignment, kept apart so that
// tests can run each on any matrix and compare them.

#ifndef WASSERWARP_SRC_TRANSPORT_ASSIGNMENT_INTERNAL_H_
#define WASSERWARP_SRC_TRANSPORT_ASSIGNMENT_INTERNAL_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "transport/assignment.h"
#include "wasserwarp/cost_matrix.h"

namespace wasserwarp::assignment_internal {

// A perfect assignment with column prices v such that every assigned pair is
// a row minimum of the reduced costs c(i, j) - v(j), which makes
// u_i = c(i, x_i) - v(x_i) and v a dual certificate.
struct PricedAssignment {
  std::vector<int> row_to_col;
  std::vector<double> v;
};

// Dense Jonker-Volgenant on row-major n x n finite costs `c` whose magnitudes
// leave room for sums of n of them (the caller scales them).
PricedAssignment SolveDense(const double* c, int n);

struct SparseOptions {
  // Each row's and each column's cheapest entries that start the candidate set. At n = 2000
  // (bench/assignment_solve), 16 against 8 solves the TWEDs of one-sample runs in 0.09 s
  // instead of 0.125 (three channels) and 0.12 s instead of 0.51 (one channel, where 8 scanned
  // past max_scanned_arcs_per_entry and fell back to the dense solver); on uniform and 10-D
  // metric costs it costs 10 to 45 % more, 11 ms at most at n = 2000 and 42 ms at 5000
  // (BM_Assignment).
  int candidates = 16;
  // Most violating entries per row that join the candidates in one round.
  int violators_per_row = 16;
  // Candidates the augmenting paths may scan, per matrix entry, before the dense solver takes
  // over: beyond it they are not paying off. At n = 2000 (bench/assignment_solve, with 8
  // candidates): 0.06 on uniform costs, 0.2 on 10-D metric ones, 0.9 on TWEDs of three-channel
  // runs, 3.5 on points on a line, all faster than or within 1.5x of the dense solver; but 360 on
  // TWEDs of one-sample one-channel runs, 96 rounds and 9.8 s where the dense solver takes 0.18 s.
  double max_scanned_arcs_per_entry = 4.0;
};

struct SparseStats {
  int rounds = 0;             // restricted solves, the first one included
  size_t arcs = 0;            // candidates at the end
  uint64_t scanned_arcs = 0;  // candidates the augmenting paths scanned, every round
  bool fell_back = false;     // gave up on candidates and solved densely
};

// The same problem by shortest augmenting paths on candidate entries, priced
// against the whole matrix until none is left out that would lower the cost.
// Falls back to SolveDense when the candidates grow too many to pay off, or the augmenting paths
// scan more of them than `options` allows.
PricedAssignment SolveSparse(const double* c, int n, const SparseOptions& options = {},
                             SparseStats* stats = nullptr);

enum class Method { kAuto, kDense, kSparse };

// SolveAssignment with a chosen solver; kAuto is what SolveAssignment does.
absl::StatusOr<Assignment> SolveAssignmentWith(const CostMatrix& costs, Method method,
                                               const SparseOptions& options = {},
                                               SparseStats* stats = nullptr);

}  // namespace wasserwarp::assignment_internal

#endif  // WASSERWARP_SRC_TRANSPORT_ASSIGNMENT_INTERNAL_H_
