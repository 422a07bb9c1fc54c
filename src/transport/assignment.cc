// SolveAssignment: input checks, scaling, and the choice between the dense
// Jonker-Volgenant solver (dense_assignment.cc) and the one on candidate
// entries with pricing (sparse_assignment.cc). Both return column prices
// under which every assigned pair is a row minimum of the reduced costs; the
// row duals follow from them here.

#include "transport/assignment.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstddef>
#include <new>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "transport/assignment_internal.h"

namespace wasserwarp {
namespace assignment_internal {
namespace {

// Prices move by sums of up to n reduced costs, so with |c| near the top of
// the double range they could overflow, and near the bottom they would lose
// precision to subnormals. Matrices whose largest entry lies outside
// [2^-kMaxUnscaledExponent, 2^kMaxUnscaledExponent] are solved on a copy
// scaled by a power of two, which is exact; all others are read in place.
constexpr int kMaxUnscaledExponent = 256;

// Where the candidate solver takes over. Best of 7 (bench/assignment_solve
// --method), dense against candidates, uniform and 10-D metric costs: within
// 20% of each other from n = 256 to 1000 (e.g. 5.1 ms and 3.6 ms at 512
// uniform, 22 ms and 25 ms at 1000 metric, on a shared 2-core machine); at
// 2000 the candidates take a third to a sixth of the dense time. Below 256 the
// dense solver is ahead by up to 4x: selecting candidates and pricing are
// whole passes over a matrix that it barely scans.
constexpr int kSparseFromRows = 512;

absl::StatusOr<Assignment> SolveValidated(const CostMatrix& costs, Method method,
                                          const SparseOptions& options, SparseStats* stats) {
  const int n = static_cast<int>(costs.rows);
  double max_abs = 0.0;
  for (double c : costs.values) max_abs = std::max(max_abs, std::abs(c));
  int exponent = 0;
  std::frexp(max_abs, &exponent);
  if (std::abs(exponent) <= kMaxUnscaledExponent) exponent = 0;

  const double* c = costs.values.data();
  std::vector<double> scaled;
  if (exponent != 0) {
    scaled.resize(costs.values.size());
    for (size_t k = 0; k < scaled.size(); ++k) scaled[k] = std::ldexp(costs.values[k], -exponent);
    c = scaled.data();
  }
  if (method == Method::kAuto) method = n >= kSparseFromRows ? Method::kSparse : Method::kDense;
  PricedAssignment priced =
      method == Method::kSparse ? SolveSparse(c, n, options, stats) : SolveDense(c, n);

  Assignment result;
  result.row_to_col = std::move(priced.row_to_col);
  result.v = std::move(priced.v);
  for (double& v : result.v) v = std::ldexp(v, exponent);
  result.u.resize(n);
  for (int i = 0; i < n; ++i) {
    const int j = result.row_to_col[i];
    if (j < 0) return absl::InternalError(absl::StrCat("assignment left row ", i, " unassigned"));
    result.u[i] = costs.at(i, j) - result.v[j];
    result.cost += costs.at(i, j);
  }
  return result;
}

}  // namespace

absl::StatusOr<Assignment> SolveAssignmentWith(const CostMatrix& costs, Method method,
                                               const SparseOptions& options, SparseStats* stats) {
  if (costs.rows == 0 || costs.rows != costs.cols) {
    return absl::InvalidArgumentError(absl::StrCat(
        "assignment needs a non-empty square matrix, got ", costs.rows, " x ", costs.cols));
  }
  if (costs.rows > static_cast<size_t>(INT_MAX) || costs.values.size() != costs.rows * costs.cols) {
    return absl::InvalidArgumentError(absl::StrCat("cost matrix of ", costs.rows, " x ", costs.cols,
                                                   " holds ", costs.values.size(), " values"));
  }
  for (size_t k = 0; k < costs.values.size(); ++k) {
    if (!std::isfinite(costs.values[k])) {
      return absl::InvalidArgumentError(
          absl::StrCat("cost (", k / costs.cols, ", ", k % costs.cols, ") is not finite"));
    }
  }
  try {
    return SolveValidated(costs, method, options, stats);
  } catch (const std::bad_alloc&) {
    return absl::ResourceExhaustedError(
        absl::StrCat("out of memory solving a ", costs.rows, " x ", costs.cols, " assignment"));
  }
}

}  // namespace assignment_internal

absl::StatusOr<Assignment> SolveAssignment(const CostMatrix& costs) {
  return assignment_internal::SolveAssignmentWith(costs, assignment_internal::Method::kAuto);
}

}  // namespace wasserwarp
