#include "wasserwarp/transport.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <new>
#include <numeric>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "common/absl_view.h"
#include "tbb/blocked_range.h"
#include "tbb/parallel_reduce.h"
#include "transport/assignment.h"
#include "transport/monotone.h"
#include "transport/network_simplex.h"
#include "transport/row_blocks.h"
#include "transport/transport_weights.h"
#include "wasserwarp/cost_matrix.h"
#include "wasserwarp/field_error.h"

namespace wasserwarp {
namespace {

using transport_weights::IntegerSides;
using transport_weights::NormaliseWeights;
using transport_weights::SideWeights;
using transport_weights::ToIntegerSides;

constexpr double kInf = std::numeric_limits<double>::infinity();

// Certificate tolerance, relative to max C^q. The solvers work on costs
// scaled by a power of two to a maximum near 1, and RefineDuals leaves the
// duals feasible to a few ulps; what remains is rounding in the potentials
// (LEMON's carry an artificial offset of up to 2 (n + m) through every
// pivot's update) and in the primal and dual sums, which are convex
// combinations. Measured at 2000 x 3000: violations of a few ulps, gaps of 1e-13
// to 6e-13. 1e-9 keeps three orders of magnitude above that for larger and
// less benign inputs while still pinning W_q^q to 1e-9 of the largest cost.
constexpr double kRelativeTolerance = 1e-9;

// Entries from which SolveTransport first tries the corner rule (transport/monotone.h): below
// 64 x 64 the general solvers take well under a millisecond.
constexpr size_t kMinMonotoneEntries = 4096;

// How far, relative to max C^q, an adjacent 2 x 2 block may miss the Monge inequality and still
// let the corner rule try: the rounding of |x - y|^q is a few ulps of the largest cost, and the
// certificate, not this check, proves the plan optimal.
constexpr double kMongeTolerance = 1e-12;

// Potentials are only defined up to (u + t, v - t), and the network
// simplex's carry an artificial offset of order (n + m) max C^q that would
// dominate the rounding of u_i + v_j; shifting to min v = 0 removes it. The
// two c-transforms that follow (v_j = min_i C_ij - u_i, then u_i = min_j C_ij
// - v_j) make the pair feasible to a few ulps and never lower the dual
// objective of a feasible pair, so the certificate measures the solution, not
// the rounding accumulated in the solver's potentials.
void RefineDuals(const CostMatrix& costs_to_q, std::vector<double>& u, std::vector<double>& v) {
  const double shift = *std::min_element(v.begin(), v.end());
  for (double& x : u) x += shift;
  std::fill(v.begin(), v.end(), kInf);
  const size_t rows = costs_to_q.rows;
  const size_t cols = costs_to_q.cols;
  // By blocks of columns, each reading its stretch of every row.
  row_blocks::ForBlocks(cols, rows, [&](size_t begin, size_t end) {
    for (size_t i = 0; i < rows; ++i) {
      const double* row = costs_to_q.values.data() + i * cols;
      for (size_t j = begin; j < end; ++j) v[j] = std::min(v[j], row[j] - u[i]);
    }
  });
  row_blocks::ForBlocks(rows, cols, [&](size_t begin, size_t end) {
    for (size_t i = begin; i < end; ++i) {
      const double* row = costs_to_q.values.data() + i * cols;
      double min = kInf;
      for (size_t j = 0; j < cols; ++j) min = std::min(min, row[j] - v[j]);
      u[i] = min;
    }
  });
}

struct Solution {
  TransportSolver solver = TransportSolver::kAssignment;
  std::vector<double> row_weights;
  std::vector<double> col_weights;
  std::vector<PlanEntry> plan;
  std::vector<double> u;
  std::vector<double> v;
  double weight_rounding_bound = 0.0;
  double weight_variation = 0.0;
};

absl::StatusOr<Solution> SolveByAssignment(const CostMatrix& costs, const CostMatrix& costs_to_q) {
  absl::StatusOr<Assignment> assignment = SolveAssignment(costs_to_q);
  if (!assignment.ok()) return assignment.status();
  const size_t n = costs.rows;
  const double mass = 1.0 / static_cast<double>(n);
  Solution solution;
  solution.solver = TransportSolver::kAssignment;
  solution.row_weights.assign(n, mass);
  solution.col_weights.assign(n, mass);
  solution.plan.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    const int j = assignment->row_to_col[i];
    solution.plan.push_back(
        {.row = static_cast<int>(i), .col = j, .mass = mass, .cost = costs.at(i, j)});
  }
  solution.u = std::move(assignment->u);
  solution.v = std::move(assignment->v);
  return solution;
}

// Why weight_rounding_bound bounds |OT(a, b) - OT(a', b')| for costs in
// [0, M], M = max C^q: take a coupling Q of a' and a with Q(i' != i) =
// TV(a, a') (the maximal coupling) and an optimal plan P for (a, b). Then
// P'(i', j) = sum_i Q(i', i) P(i, j) / a_i has marginals a' and b; its mass
// with i' = i is at most P(i, j), costing at most OT(a, b) in total, and the
// rest, TV(a, a') in all, costs at most M per unit. So OT(a', b) <= OT(a, b) +
// M TV(a, a'), the same holds with a and a' swapped, and likewise for b.
Solution FromFlows(TransportSolver solver, const CostMatrix& costs, const IntegerSides& sides,
                   NetworkSimplexSolution flow, double max_cost_q) {
  // Dividing (not multiplying by 1 / total) rounds each mass once.
  const auto total_mass = static_cast<double>(sides.total);
  Solution solution;
  solution.solver = solver;
  solution.row_weights.resize(costs.rows);
  solution.col_weights.resize(costs.cols);
  for (size_t i = 0; i < costs.rows; ++i) {
    solution.row_weights[i] = static_cast<double>(sides.supply[i]) / total_mass;
  }
  for (size_t j = 0; j < costs.cols; ++j) {
    solution.col_weights[j] = static_cast<double>(sides.demand[j]) / total_mass;
  }
  solution.plan.reserve(flow.flows.size());
  for (const FlowEntry& entry : flow.flows) {
    solution.plan.push_back({.row = entry.row,
                             .col = entry.col,
                             .mass = static_cast<double>(entry.flow) / total_mass,
                             .cost = costs.at(entry.row, entry.col)});
  }
  solution.u = std::move(flow.u);
  solution.v = std::move(flow.v);
  solution.weight_variation = sides.variation;
  solution.weight_rounding_bound = max_cost_q * sides.variation;
  return solution;
}

absl::StatusOr<Solution> SolveByNetworkSimplex(const CostMatrix& costs,
                                               const CostMatrix& costs_to_q,
                                               const IntegerSides& sides, double max_cost_q) {
  absl::StatusOr<NetworkSimplexSolution> flow =
      SolveNetworkSimplex(costs_to_q, sides.supply, sides.demand);
  if (!flow.ok()) return flow.status();
  return FromFlows(TransportSolver::kNetworkSimplex, costs, sides, *std::move(flow), max_cost_q);
}

// The corner rule where the costs are distances between points on a line
// (transport/monotone.h), `largest` the index of a largest entry; nullopt elsewhere, and on
// problems too small for the general solvers to take more than the order search and check.
std::optional<Solution> SolveIfMonotone(const CostMatrix& costs, const CostMatrix& costs_to_q,
                                        const IntegerSides& sides, size_t largest) {
  if (costs.rows < 2 || costs.cols < 2 || costs.rows * costs.cols < kMinMonotoneEntries) {
    return std::nullopt;
  }
  const double max_cost_q = costs_to_q.values[largest];
  std::optional<MonotoneOrder> order =
      FindMonotoneOrder(costs, costs_to_q, largest, kMongeTolerance * max_cost_q);
  if (!order.has_value()) return std::nullopt;
  return FromFlows(TransportSolver::kMonotone, costs, sides,
                   NorthWestCorner(costs_to_q, *order, sides.supply, sides.demand), max_cost_q);
}

// Largest |plan marginal - transported weight| over both sides.
double MarginalError(const Solution& solution) {
  std::vector<double> row_mass(solution.row_weights.size(), 0.0);
  std::vector<double> col_mass(solution.col_weights.size(), 0.0);
  for (const PlanEntry& entry : solution.plan) {
    row_mass[entry.row] += entry.mass;
    col_mass[entry.col] += entry.mass;
  }
  double error = 0.0;
  for (size_t i = 0; i < row_mass.size(); ++i) {
    error = std::max(error, std::abs(row_mass[i] - solution.row_weights[i]));
  }
  for (size_t j = 0; j < col_mass.size(); ++j) {
    error = std::max(error, std::abs(col_mass[j] - solution.col_weights[j]));
  }
  return error;
}

bool IsCost(double c) { return std::isfinite(c) && c >= 0.0; }

absl::Status ValidateCosts(const CostMatrix& costs) {
  if (costs.rows == 0 || costs.cols == 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "transport needs at least one row and one column, got ", costs.rows, " x ", costs.cols));
  }
  if (costs.values.size() != costs.rows * costs.cols) {
    return absl::InvalidArgumentError(absl::StrCat("cost matrix of ", costs.rows, " x ", costs.cols,
                                                   " holds ", costs.values.size(), " values"));
  }
  const double any_bad =
      row_blocks::MaxOverBlocks(costs.rows, costs.cols, 0.0, [&](size_t begin, size_t end) {
        const auto first = costs.values.begin() + static_cast<ptrdiff_t>(begin * costs.cols);
        const auto last = costs.values.begin() + static_cast<ptrdiff_t>(end * costs.cols);
        return std::all_of(first, last, IsCost) ? 0.0 : 1.0;
      });
  if (any_bad == 0.0) return absl::OkStatus();
  // The first bad entry, whatever block found one.
  const auto k = static_cast<size_t>(
      std::find_if_not(costs.values.begin(), costs.values.end(), IsCost) - costs.values.begin());
  return absl::InvalidArgumentError(absl::StrCat("cost (", k / costs.cols, ", ", k % costs.cols,
                                                 ") = ", costs.values[k],
                                                 " is not a finite non-negative number"));
}

// The index of the first largest entry in row-major order, whatever the blocks.
size_t LargestEntry(const CostMatrix& costs) {
  struct Largest {
    double value = -kInf;
    size_t index = 0;
  };
  const auto in_rows = [&](size_t begin, size_t end, Largest largest) {
    for (size_t k = begin * costs.cols; k < end * costs.cols; ++k) {
      if (costs.values[k] > largest.value) largest = {costs.values[k], k};
    }
    return largest;
  };
  if (costs.values.size() < row_blocks::kParallelEntries) return in_rows(0, costs.rows, {}).index;
  return tbb::parallel_reduce(
             tbb::blocked_range<size_t>(0, costs.rows, row_blocks::Grain(costs.cols)), Largest{},
             [&](const tbb::blocked_range<size_t>& block, Largest largest) {
               return in_rows(block.begin(), block.end(), largest);
             },
             [](const Largest& a, const Largest& b) {
               return b.value > a.value || (b.value == a.value && b.index < a.index) ? b : a;
             })
      .index;
}

// The plan certified optimal by its duals (refined on the true costs), with its marginals
// checked, as the result.
absl::StatusOr<TransportResult> Certified(Solution solution, const CostMatrix& costs,
                                          const CostMatrix& costs_to_q, double max_cost_q,
                                          double q) {
  RefineDuals(costs_to_q, solution.u, solution.v);
  TransportCertificate certificate =
      CertifyPlan(costs_to_q, solution.row_weights, solution.col_weights, solution.plan,
                  std::move(solution.u), std::move(solution.v));
  if (absl::Status status = CheckCertificate(certificate, max_cost_q, costs.rows, costs.cols,
                                             TransportSolverName(solution.solver));
      !status.ok()) {
    return status;
  }
  const std::string solver_name(TransportSolverName(solution.solver));
  // Masses sum to 1 on each side; their rounding is a few eps per entry.
  if (const double error = MarginalError(solution); !(error <= kRelativeTolerance)) {
    return absl::InternalError(absl::StrCat(solver_name, " plan misses the weights by ", error));
  }

  TransportResult result;
  result.order = q;
  result.solver = solution.solver;
  result.row_contributions.assign(costs.rows, 0.0);
  result.col_contributions.assign(costs.cols, 0.0);
  for (const PlanEntry& entry : solution.plan) {
    const double contribution = entry.mass * costs_to_q.at(entry.row, entry.col);
    result.row_contributions[entry.row] += contribution;
    result.col_contributions[entry.col] += contribution;
  }
  result.distance = q == 1.0 ? certificate.primal : std::pow(certificate.primal, 1.0 / q);
  result.row_weights = std::move(solution.row_weights);
  result.col_weights = std::move(solution.col_weights);
  result.plan = std::move(solution.plan);
  result.certificate = std::move(certificate);
  result.weight_rounding_bound = solution.weight_rounding_bound;
  result.weight_variation = solution.weight_variation;
  return result;
}

absl::StatusOr<TransportResult> Solve(const CostMatrix& costs, const TransportOptions& options) {
  const double q = options.order;
  if (absl::Status status = ValidateOrder(q); !status.ok()) return status;
  if (absl::Status status = ValidateCosts(costs); !status.ok()) return status;
  absl::StatusOr<SideWeights> rows =
      NormaliseWeights("row_weights", options.row_weights, costs.rows, "rows");
  if (!rows.ok()) return rows.status();
  absl::StatusOr<SideWeights> cols =
      NormaliseWeights("col_weights", options.col_weights, costs.cols, "columns");
  if (!cols.ok()) return cols.status();

  CostMatrix powered;
  if (q != 1.0) {
    powered = CostMatrix(costs.rows, costs.cols);
    row_blocks::ForBlocks(costs.rows, costs.cols, [&](size_t begin, size_t end) {
      for (size_t k = begin * costs.cols; k < end * costs.cols; ++k) {
        const double c = costs.values[k];
        powered.values[k] = q == 2.0 ? c * c : std::pow(c, q);
      }
    });
  }
  const CostMatrix& costs_to_q = q != 1.0 ? powered : costs;
  // Powers are non-decreasing, so where one overflowed the largest did.
  const size_t largest = LargestEntry(costs_to_q);
  const double max_cost_q = costs_to_q.values[largest];
  if (std::isinf(max_cost_q)) {
    const auto k =
        static_cast<size_t>(std::find_if(costs_to_q.values.begin(), costs_to_q.values.end(),
                                         [](double c) { return std::isinf(c); }) -
                            costs_to_q.values.begin());
    return absl::InvalidArgumentError(absl::StrCat("cost (", k / costs.cols, ", ", k % costs.cols,
                                                   ") = ", costs.values[k], " to the power ", q,
                                                   " overflows"));
  }

  absl::StatusOr<IntegerSides> sides = ToIntegerSides(*rows, costs.rows, *cols, costs.cols);
  if (!sides.ok()) return sides.status();
  if (std::optional<Solution> monotone = SolveIfMonotone(costs, costs_to_q, *sides, largest)) {
    absl::StatusOr<TransportResult> result =
        Certified(*std::move(monotone), costs, costs_to_q, max_cost_q, q);
    // A guess within the check's tolerance that the certificate still refuses goes to the
    // general solvers, which certify their own plans.
    if (result.ok()) return result;
  }
  absl::StatusOr<Solution> solution =
      costs.rows == costs.cols && rows->uniform && cols->uniform
          ? SolveByAssignment(costs, costs_to_q)
          : SolveByNetworkSimplex(costs, costs_to_q, *sides, max_cost_q);
  if (!solution.ok()) return solution.status();
  return Certified(*std::move(solution), costs, costs_to_q, max_cost_q, q);
}

}  // namespace

absl::Status ValidateOrder(double q) {
  if (!std::isfinite(q) || q < 1.0) {
    return InvalidFieldError("order", absl::StrCat("must be a finite number >= 1, got ", q));
  }
  return absl::OkStatus();
}

std::string_view TransportSolverName(TransportSolver solver) {
  switch (solver) {
    case TransportSolver::kAssignment:
      return "assignment";
    case TransportSolver::kNetworkSimplex:
      return "network_simplex";
    case TransportSolver::kMonotone:
      return "monotone";
  }
  return "unknown";
}

absl::Status ValidateTransportOptions(const TransportOptions& options, size_t rows, size_t cols) {
  if (absl::Status status = ValidateOrder(options.order); !status.ok()) return status;
  if (absl::StatusOr<SideWeights> side =
          NormaliseWeights("row_weights", options.row_weights, rows, "rows");
      !side.ok()) {
    return side.status();
  }
  return NormaliseWeights("col_weights", options.col_weights, cols, "columns").status();
}

absl::Status CheckCertificate(const TransportCertificate& certificate, double max_cost_q,
                              size_t rows, size_t cols, std::string_view solver) {
  // The absolute term covers costs down in the subnormal range, where every
  // operation may round by up to half the smallest subnormal.
  const double tolerance =
      kRelativeTolerance * max_cost_q +
      4.0 * static_cast<double>(rows + cols) * std::numeric_limits<double>::denorm_min();
  // Negated comparisons so that a NaN fails too.
  if (!(certificate.max_dual_violation <= tolerance)) {
    return absl::InternalError(
        absl::StrCat(AbslView(solver), " duals violate u_i + v_j <= C_ij^q by ",
                     certificate.max_dual_violation, " > tolerance ", tolerance));
  }
  if (!(certificate.primal_dual_gap <= tolerance)) {
    return absl::InternalError(absl::StrCat(
        AbslView(solver), " plan is not certified optimal: primal ", certificate.primal, ", dual ",
        certificate.dual, ", gap ", certificate.primal_dual_gap, " > tolerance ", tolerance));
  }
  return absl::OkStatus();
}

absl::StatusOr<TransportResult> SolveTransport(const CostMatrix& costs,
                                               const TransportOptions& options) {
  try {
    return Solve(costs, options);
  } catch (const std::bad_alloc&) {
    return absl::ResourceExhaustedError(absl::StrCat("out of memory solving a ", costs.rows, " x ",
                                                     costs.cols, " transport problem"));
  }
}

TransportCertificate CertifyPlan(const CostMatrix& costs_to_q, const std::vector<double>& row_mass,
                                 const std::vector<double>& col_mass,
                                 const std::vector<PlanEntry>& plan, std::vector<double> u,
                                 std::vector<double> v) {
  TransportCertificate certificate;
  const size_t rows = costs_to_q.rows;
  const size_t cols = costs_to_q.cols;
  const auto finite = [](const std::vector<double>& x) {
    return std::all_of(x.begin(), x.end(), [](double e) { return std::isfinite(e); });
  };
  // Weak duality proves optimality only for a feasible plan: no negative mass.
  const auto in_range = [&](const PlanEntry& entry) {
    return entry.row >= 0 && static_cast<size_t>(entry.row) < rows && entry.col >= 0 &&
           static_cast<size_t>(entry.col) < cols && std::isfinite(entry.mass) && entry.mass >= 0.0;
  };
  const bool well_formed = costs_to_q.values.size() == rows * cols && u.size() == rows &&
                           v.size() == cols && row_mass.size() == rows && col_mass.size() == cols &&
                           finite(u) && finite(v) &&
                           std::all_of(plan.begin(), plan.end(), in_range);
  if (!well_formed) {
    // Nothing is certified by potentials that do not fit the problem.
    certificate.max_dual_violation = kInf;
    certificate.primal_dual_gap = kInf;
  } else {
    for (const PlanEntry& entry : plan) {
      certificate.primal += entry.mass * costs_to_q.at(entry.row, entry.col);
    }
    for (size_t i = 0; i < rows; ++i) certificate.dual += row_mass[i] * u[i];
    for (size_t j = 0; j < cols; ++j) certificate.dual += col_mass[j] * v[j];
    certificate.max_dual_violation =
        row_blocks::MaxOverBlocks(rows, cols, 0.0, [&](size_t begin, size_t end) {
          double violation = 0.0;
          for (size_t i = begin; i < end; ++i) {
            const double* row = costs_to_q.values.data() + i * cols;
            for (size_t j = 0; j < cols; ++j) violation = std::max(violation, u[i] + v[j] - row[j]);
          }
          return violation;
        });
    const double gap = std::abs(certificate.primal - certificate.dual);
    certificate.primal_dual_gap = std::isnan(gap) ? kInf : gap;
  }
  certificate.u = std::move(u);
  certificate.v = std::move(v);
  return certificate;
}

}  // namespace wasserwarp
