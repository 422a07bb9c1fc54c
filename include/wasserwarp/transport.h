// The Wasserstein distance of order q between two weighted sets of runs,
// from an exact optimal-transport solve with a checked dual certificate
// (shared/spec/transport.md).

#ifndef WASSERWARP_TRANSPORT_H_
#define WASSERWARP_TRANSPORT_H_

#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "wasserwarp/cost_matrix.h"

namespace wasserwarp {

enum class TransportSolver {
  kAssignment,      // n == m, uniform weights: Jonker-Volgenant
  kNetworkSimplex,  // otherwise: LEMON NetworkSimplex on integer supplies
  kMonotone,        // costs between points on a line, sorted: the north-west corner rule
};

std::string_view TransportSolverName(TransportSolver solver);

struct TransportOptions {
  double order = 1.0;               // q >= 1
  std::vector<double> row_weights;  // empty: uniform; else non-negative, positive sum
  std::vector<double> col_weights;
};

struct PlanEntry {
  int row = 0;
  int col = 0;
  double mass = 0.0;  // share of the unit total
  double cost = 0.0;  // ground cost C_ij (not raised to q)
};

// Proof of optimality: u_i + v_j <= C_ij^q up to max_dual_violation for every
// pair, and primal_dual_gap = |primal - dual| where primal = sum P_ij C_ij^q and
// dual = sum a_i u_i + sum b_j v_j.
struct TransportCertificate {
  std::vector<double> u;
  std::vector<double> v;
  double primal = 0.0;
  double dual = 0.0;
  double max_dual_violation = 0.0;
  double primal_dual_gap = 0.0;
};

struct TransportResult {
  double distance = 0.0;  // W_q = primal^(1/q)
  double order = 1.0;
  TransportSolver solver = TransportSolver::kAssignment;
  std::vector<double> row_weights;  // normalised weights actually transported
  std::vector<double> col_weights;
  std::vector<PlanEntry> plan;            // non-zero entries, row-major order
  std::vector<double> row_contributions;  // sum_j P_ij C_ij^q; sums to primal
  std::vector<double> col_contributions;  // sum_i P_ij C_ij^q; sums to primal
  TransportCertificate certificate;
  // Upper bound on |W_q^q(requested weights) - W_q^q(transported weights)|
  // caused by rounding user weights to integer supplies; 0 when exact. It is
  // max C_ij^q times weight_variation, the total variation between the requested
  // and the transported weights, both sides summed.
  double weight_rounding_bound = 0.0;
  double weight_variation = 0.0;
};

// Ok when q is a finite number >= 1; InvalidArgument on field "order" otherwise. Every stage
// that takes an order checks it here, so the rule has one wording wherever it is broken.
absl::Status ValidateOrder(double q);

// Ok when `options` fit a rows x cols problem: the checks SolveTransport makes
// before it looks at the costs, so callers can fail before computing them.
absl::Status ValidateTransportOptions(const TransportOptions& options, size_t rows, size_t cols);

// InvalidArgument for bad weights (wrong count, negative, non-finite, zero
// sum), q < 1, or a non-finite or negative cost; Internal when the solver's
// certificate does not hold within tolerance (never a silent number).
absl::StatusOr<TransportResult> SolveTransport(const CostMatrix& costs,
                                               const TransportOptions& options = {});

// Ok when `certificate` proves optimality within the tolerance every solve is held to: dual
// violation and primal-dual gap at most 1e-9 of max_cost_q, the largest C_ij^q, plus rounding
// in the subnormal range; Internal naming `solver` and the numbers otherwise.
absl::Status CheckCertificate(const TransportCertificate& certificate, double max_cost_q,
                              size_t rows, size_t cols, std::string_view solver);

// Checks u, v against the plan and costs and fills the certificate's numbers.
// Exposed so tests and other solvers share one definition of "certified".
TransportCertificate CertifyPlan(const CostMatrix& costs_to_q, const std::vector<double>& row_mass,
                                 const std::vector<double>& col_mass,
                                 const std::vector<PlanEntry>& plan, std::vector<double> u,
                                 std::vector<double> v);

}  // namespace wasserwarp

#endif  // WASSERWARP_TRANSPORT_H_
