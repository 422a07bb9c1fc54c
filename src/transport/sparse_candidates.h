// The candidate entries of the sparse assignment solver: how they start, how
// the whole matrix is priced against them, and how they grow.

#ifndef WASSERWARP_SRC_TRANSPORT_SPARSE_CANDIDATES_H_
#define WASSERWARP_SRC_TRANSPORT_SPARSE_CANDIDATES_H_

#include <vector>

namespace wasserwarp::assignment_internal {

// Entries of an n x n matrix, row by row, columns ascending within a row; the
// costs are copied so that a row's candidates lie together in memory.
struct Candidates {
  std::vector<int> start;  // n + 1 offsets into col and cost
  std::vector<int> col;
  std::vector<double> cost;
};

// Each row's and each column's `k` cheapest entries of the row-major n x n
// matrix `c` (ties to the lower index) and the diagonal.
Candidates InitialCandidates(const double* c, int n, int k);

// Per row i, the columns j outside `arcs` with c(i, j) - v(j) < c(i, x_i) -
// v(x_i), computed exactly as the solver computes reduced costs, up to `cap`
// of them, the most undercutting first (ties to the lower column), listed in
// ascending order. Rows are priced in parallel, each on its own, so the result
// does not depend on the thread count.
std::vector<std::vector<int>> Violators(const double* c, int n, const std::vector<int>& x,
                                        const std::vector<double>& v, const Candidates& arcs,
                                        int cap);

// `arcs` with `added[i]` (disjoint from them, ascending) merged into row i.
Candidates AddCandidates(const double* c, int n, const Candidates& arcs,
                         const std::vector<std::vector<int>>& added);

}  // namespace wasserwarp::assignment_internal

#endif  // WASSERWARP_SRC_TRANSPORT_SPARSE_CANDIDATES_H_
