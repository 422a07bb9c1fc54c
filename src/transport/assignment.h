// Minimum-cost perfect assignment on a square dense cost matrix by shortest
// augmenting paths (Jonker-Volgenant), with its dual certificate.

#ifndef WASSERWARP_SRC_TRANSPORT_ASSIGNMENT_H_
#define WASSERWARP_SRC_TRANSPORT_ASSIGNMENT_H_

#include <vector>

#include "absl/status/statusor.h"
#include "wasserwarp/cost_matrix.h"

namespace wasserwarp {

struct Assignment {
  std::vector<int> row_to_col;  // a permutation
  std::vector<double> u;        // row duals
  std::vector<double> v;        // column duals; u_i + v_j <= c_ij, equality on the assignment
  double cost = 0.0;            // sum_i c(i, row_to_col[i])
};

// InvalidArgument for an empty or non-square matrix or a non-finite entry.
absl::StatusOr<Assignment> SolveAssignment(const CostMatrix& costs);

}  // namespace wasserwarp

#endif  // WASSERWARP_SRC_TRANSPORT_ASSIGNMENT_H_
