#include "wasserwarp/transport.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <random>
#include <vector>

#include "brute_force.h"
#include "random_costs.h"
#include "transport/assignment.h"
#include "wasserwarp/cost_matrix.h"

namespace wasserwarp {
namespace {

using test_data::IntegerCosts;
using test_data::MetricCosts;
using test_data::Powered;
using test_data::UniformCosts;
using ::testing::HasSubstr;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

std::vector<double> RandomWeights(size_t count, uint64_t seed, double zero_share = 0.0) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> dist(0.1, 3.0);
  std::bernoulli_distribution zero(zero_share);
  std::vector<double> weights(count);
  for (double& w : weights) w = zero(rng) ? 0.0 : dist(rng);
  weights[0] = 1.0;  // never all zero
  return weights;
}

std::vector<double> Normalised(std::vector<double> weights, size_t count) {
  if (weights.empty()) weights.assign(count, 1.0);
  const double sum = std::accumulate(weights.begin(), weights.end(), 0.0);
  for (double& w : weights) w /= sum;
  return weights;
}

double MaxEntry(const CostMatrix& costs) {
  return *std::max_element(costs.values.begin(), costs.values.end());
}

// min over permutations of the mean of C^q.
double BruteForceAssignment(const CostMatrix& costs_to_q) {
  return test_data::MinPermutationCost(costs_to_q) / costs_to_q.rows;
}

// Solves the square system `a` x = `b` (row-major) by Gaussian elimination;
// false when it is singular.
bool SolveLinear(std::vector<double> a, std::vector<double> b, std::vector<double>& x) {
  const size_t k = b.size();
  for (size_t col = 0; col < k; ++col) {
    size_t pivot = col;
    for (size_t r = col + 1; r < k; ++r) {
      if (std::abs(a[r * k + col]) > std::abs(a[pivot * k + col])) pivot = r;
    }
    if (std::abs(a[pivot * k + col]) < 1e-9) return false;
    for (size_t c = 0; c < k; ++c) std::swap(a[col * k + c], a[pivot * k + c]);
    std::swap(b[col], b[pivot]);
    for (size_t r = 0; r < k; ++r) {
      if (r == col) continue;
      const double f = a[r * k + col] / a[col * k + col];
      for (size_t c = 0; c < k; ++c) a[r * k + c] -= f * a[col * k + c];
      b[r] -= f * b[col];
    }
  }
  x.resize(k);
  for (size_t r = 0; r < k; ++r) x[r] = b[r] / a[r * k + r];
  return true;
}

// The transportation LP's optimum by enumerating its bases: every choice of
// n + m - 1 cells whose row-sum and column-sum equations (one is redundant)
// determine the flows, kept when the flows are non-negative.
double LpByBasisEnumeration(const CostMatrix& costs_to_q, const std::vector<double>& a,
                            const std::vector<double>& b) {
  const size_t n = costs_to_q.rows;
  const size_t m = costs_to_q.cols;
  const size_t k = n + m - 1;
  std::vector<bool> chosen(n * m, false);
  std::fill(chosen.begin(), chosen.begin() + k, true);
  double best = std::numeric_limits<double>::infinity();
  do {
    std::vector<size_t> cells;
    for (size_t c = 0; c < n * m; ++c) {
      if (chosen[c]) cells.push_back(c);
    }
    // Equations: the n row sums and the first m - 1 column sums.
    std::vector<double> matrix(k * k, 0.0);
    std::vector<double> rhs(k);
    for (size_t e = 0; e < k; ++e) rhs[e] = e < n ? a[e] : b[e - n];
    for (size_t v = 0; v < k; ++v) {
      const size_t i = cells[v] / m;
      const size_t j = cells[v] % m;
      matrix[i * k + v] = 1.0;
      if (j < m - 1) matrix[(n + j) * k + v] = 1.0;
    }
    std::vector<double> flows;
    if (!SolveLinear(matrix, rhs, flows)) continue;
    if (std::any_of(flows.begin(), flows.end(), [](double f) { return f < -1e-12; })) continue;
    double cost = 0.0;
    for (size_t v = 0; v < k; ++v) cost += flows[v] * costs_to_q.values[cells[v]];
    best = std::min(best, cost);
  } while (std::prev_permutation(chosen.begin(), chosen.end()));
  return best;
}

// Everything the result promises, checked without trusting CertifyPlan.
void ExpectValidResult(const CostMatrix& costs, const TransportOptions& options,
                       const TransportResult& result) {
  const size_t n = costs.rows;
  const size_t m = costs.cols;
  const double q = options.order;
  const CostMatrix costs_to_q = Powered(costs, q);
  const double max_cost_q = MaxEntry(costs_to_q);
  const double tolerance = 1e-9 * max_cost_q;

  EXPECT_EQ(result.order, q);
  ASSERT_EQ(result.row_weights.size(), n);
  ASSERT_EQ(result.col_weights.size(), m);
  const std::vector<double> requested_rows = Normalised(options.row_weights, n);
  const std::vector<double> requested_cols = Normalised(options.col_weights, m);
  for (size_t i = 0; i < n; ++i) EXPECT_NEAR(result.row_weights[i], requested_rows[i], 1e-13);
  for (size_t j = 0; j < m; ++j) EXPECT_NEAR(result.col_weights[j], requested_cols[j], 1e-13);
  EXPECT_GE(result.weight_rounding_bound, 0.0);
  EXPECT_LE(result.weight_rounding_bound, max_cost_q * (n + m) * 0x1p-50);

  ASSERT_FALSE(result.plan.empty());
  EXPECT_LE(result.plan.size(), n + m - 1);
  std::vector<double> row_mass(n, 0.0);
  std::vector<double> col_mass(m, 0.0);
  std::vector<double> row_contribution(n, 0.0);
  std::vector<double> col_contribution(m, 0.0);
  double primal = 0.0;
  for (size_t k = 0; k < result.plan.size(); ++k) {
    const PlanEntry& entry = result.plan[k];
    ASSERT_GE(entry.row, 0);
    ASSERT_LT(entry.row, static_cast<int>(n));
    ASSERT_GE(entry.col, 0);
    ASSERT_LT(entry.col, static_cast<int>(m));
    EXPECT_GT(entry.mass, 0.0);
    EXPECT_EQ(entry.cost, costs.at(entry.row, entry.col));
    if (k > 0) {
      const PlanEntry& prev = result.plan[k - 1];
      EXPECT_TRUE(prev.row < entry.row || (prev.row == entry.row && prev.col < entry.col))
          << "plan not in row-major order at " << k;
    }
    row_mass[entry.row] += entry.mass;
    col_mass[entry.col] += entry.mass;
    const double contribution = entry.mass * costs_to_q.at(entry.row, entry.col);
    row_contribution[entry.row] += contribution;
    col_contribution[entry.col] += contribution;
    primal += contribution;
  }
  for (size_t i = 0; i < n; ++i) {
    EXPECT_NEAR(row_mass[i], result.row_weights[i], 1e-12) << "row " << i;
    EXPECT_NEAR(result.row_contributions[i], row_contribution[i], 1e-12 * max_cost_q);
  }
  for (size_t j = 0; j < m; ++j) {
    EXPECT_NEAR(col_mass[j], result.col_weights[j], 1e-12) << "col " << j;
    EXPECT_NEAR(result.col_contributions[j], col_contribution[j], 1e-12 * max_cost_q);
  }
  EXPECT_NEAR(result.certificate.primal, primal, 1e-12 * max_cost_q);
  EXPECT_NEAR(std::pow(result.distance, q), primal, 1e-12 * max_cost_q);

  const TransportCertificate& certificate = result.certificate;
  ASSERT_EQ(certificate.u.size(), n);
  ASSERT_EQ(certificate.v.size(), m);
  double violation = 0.0;
  for (size_t i = 0; i < n; ++i) {
    for (size_t j = 0; j < m; ++j) {
      violation = std::max(violation, certificate.u[i] + certificate.v[j] - costs_to_q.at(i, j));
    }
  }
  EXPECT_LE(violation, tolerance);
  EXPECT_LE(certificate.max_dual_violation, tolerance);
  double dual = 0.0;
  for (size_t i = 0; i < n; ++i) dual += result.row_weights[i] * certificate.u[i];
  for (size_t j = 0; j < m; ++j) dual += result.col_weights[j] * certificate.v[j];
  EXPECT_NEAR(dual, primal, tolerance);
  EXPECT_LE(certificate.primal_dual_gap, tolerance);
}

TEST(TransportTest, SolverNames) {
  EXPECT_EQ(TransportSolverName(TransportSolver::kAssignment), "assignment");
  EXPECT_EQ(TransportSolverName(TransportSolver::kNetworkSimplex), "network_simplex");
}

TEST(TransportTest, UniformSquareMatchesBruteForcePermutations) {
  for (double q : {1.0, 2.0}) {
    for (size_t n = 1; n <= 7; ++n) {
      for (uint64_t seed = 0; seed < 5; ++seed) {
        for (const CostMatrix& costs :
             {UniformCosts(n, n, 10 * n + seed), IntegerCosts(n, n, 2, 10 * n + seed)}) {
          TransportOptions options;
          options.order = q;
          absl::StatusOr<TransportResult> result = SolveTransport(costs, options);
          ASSERT_TRUE(result.ok()) << result.status();
          EXPECT_EQ(result->solver, TransportSolver::kAssignment);
          EXPECT_NEAR(std::pow(result->distance, q), BruteForceAssignment(Powered(costs, q)), 1e-12)
              << "n=" << n << " q=" << q;
          EXPECT_EQ(result->plan.size(), n);
          EXPECT_EQ(result->weight_rounding_bound, 0.0);
          ExpectValidResult(costs, options, *result);
        }
      }
    }
  }
}

// With m = k n, uniform weights: each row's mass 1/n splits into k columns of
// 1/m, so replicating every row k times gives an m x m assignment with the
// same optimum. Likewise for columns when n = k m.
CostMatrix ReplicateRows(const CostMatrix& costs, size_t k) {
  CostMatrix square(costs.rows * k, costs.cols);
  for (size_t i = 0; i < square.rows; ++i) {
    for (size_t j = 0; j < costs.cols; ++j) square.at(i, j) = costs.at(i / k, j);
  }
  return square;
}

CostMatrix Transposed(const CostMatrix& costs) {
  CostMatrix t(costs.cols, costs.rows);
  for (size_t i = 0; i < costs.rows; ++i) {
    for (size_t j = 0; j < costs.cols; ++j) t.at(j, i) = costs.at(i, j);
  }
  return t;
}

TEST(TransportTest, UnequalSizesMatchReplicatedBruteForce) {
  struct Shape {
    size_t n;
    size_t k;
  };
  for (Shape shape : {Shape{1, 5}, Shape{2, 2}, Shape{2, 3}, Shape{3, 2}}) {
    for (double q : {1.0, 2.0}) {
      for (uint64_t seed = 0; seed < 4; ++seed) {
        const CostMatrix costs = UniformCosts(shape.n, shape.n * shape.k, 77 + seed);
        TransportOptions options;
        options.order = q;
        absl::StatusOr<TransportResult> wide = SolveTransport(costs, options);
        ASSERT_TRUE(wide.ok()) << wide.status();
        EXPECT_EQ(wide->solver, TransportSolver::kNetworkSimplex);
        const double expected = BruteForceAssignment(Powered(ReplicateRows(costs, shape.k), q));
        EXPECT_NEAR(std::pow(wide->distance, q), expected, 1e-12);
        ExpectValidResult(costs, options, *wide);

        const CostMatrix tall_costs = Transposed(costs);
        absl::StatusOr<TransportResult> tall = SolveTransport(tall_costs, options);
        ASSERT_TRUE(tall.ok()) << tall.status();
        EXPECT_NEAR(std::pow(tall->distance, q), expected, 1e-12);
        ExpectValidResult(tall_costs, options, *tall);
      }
    }
  }
}

TEST(TransportTest, UnequalSizesMatchReplicatedAssignment) {
  for (size_t k : {2, 3, 5}) {
    const size_t n = 40;
    const CostMatrix costs = MetricCosts(n, n * k, 4, k, 10.0);
    for (double q : {1.0, 2.0}) {
      TransportOptions options;
      options.order = q;
      absl::StatusOr<TransportResult> result = SolveTransport(costs, options);
      ASSERT_TRUE(result.ok()) << result.status();
      absl::StatusOr<Assignment> assignment = SolveAssignment(Powered(ReplicateRows(costs, k), q));
      ASSERT_TRUE(assignment.ok()) << assignment.status();
      const double expected = assignment->cost / (n * k);
      EXPECT_NEAR(std::pow(result->distance, q), expected, 1e-12 * expected);
      ExpectValidResult(costs, options, *result);
    }
  }
}

TEST(TransportTest, UserWeightsMatchLpVertexEnumeration) {
  struct Shape {
    size_t n;
    size_t m;
  };
  for (Shape shape : {Shape{2, 3}, Shape{3, 4}, Shape{3, 3}, Shape{4, 2}}) {
    for (uint64_t seed = 0; seed < 6; ++seed) {
      for (double q : {1.0, 2.0}) {
        const CostMatrix costs = seed % 2 == 0 ? UniformCosts(shape.n, shape.m, seed)
                                               : IntegerCosts(shape.n, shape.m, 3, seed);
        TransportOptions options;
        options.order = q;
        options.row_weights = RandomWeights(shape.n, 100 + seed, seed == 4 ? 0.5 : 0.0);
        if (seed != 3) options.col_weights = RandomWeights(shape.m, 200 + seed);
        absl::StatusOr<TransportResult> result = SolveTransport(costs, options);
        ASSERT_TRUE(result.ok()) << result.status();
        EXPECT_EQ(result->solver, TransportSolver::kNetworkSimplex);
        ExpectValidResult(costs, options, *result);

        const CostMatrix costs_to_q = Powered(costs, q);
        const double transported =
            LpByBasisEnumeration(costs_to_q, result->row_weights, result->col_weights);
        EXPECT_NEAR(result->certificate.primal, transported, 1e-12);
        const double requested =
            LpByBasisEnumeration(costs_to_q, Normalised(options.row_weights, shape.n),
                                 Normalised(options.col_weights, shape.m));
        EXPECT_LE(std::abs(result->certificate.primal - requested),
                  result->weight_rounding_bound + 1e-14);
      }
    }
  }
}

TEST(TransportTest, CertifiedOnRandomInstances) {
  struct Case {
    size_t n;
    size_t m;
    double q;
    bool row_weights;
    bool col_weights;
  };
  for (const Case& c : {Case{1, 1, 1.0, false, false}, Case{1, 6, 1.5, false, true},
                        Case{6, 1, 2.0, true, false}, Case{20, 30, 1.0, false, false},
                        Case{30, 20, 3.0, true, true}, Case{50, 50, 1.0, true, false},
                        Case{300, 200, 1.0, false, false}, Case{300, 200, 2.0, true, true},
                        Case{200, 300, 1.0, true, true}, Case{150, 150, 2.0, false, false}}) {
    for (const CostMatrix& costs :
         {MetricCosts(c.n, c.m, 4, c.n + c.m, 10.0), IntegerCosts(c.n, c.m, 4, c.n * c.m)}) {
      TransportOptions options;
      options.order = c.q;
      if (c.row_weights) options.row_weights = RandomWeights(c.n, c.n, 0.2);
      if (c.col_weights) options.col_weights = RandomWeights(c.m, c.m + 1);
      absl::StatusOr<TransportResult> result = SolveTransport(costs, options);
      ASSERT_TRUE(result.ok()) << result.status();
      EXPECT_EQ(result->solver, c.n == c.m && !c.row_weights && !c.col_weights
                                    ? TransportSolver::kAssignment
                                    : TransportSolver::kNetworkSimplex);
      ExpectValidResult(costs, options, *result);
      if (!c.row_weights && !c.col_weights) {
        EXPECT_EQ(result->weight_rounding_bound, 0.0);
      }
    }
  }
}

TEST(TransportTest, EqualUserWeightsCountAsUniform) {
  const CostMatrix costs = MetricCosts(12, 12, 4, 3, 10.0);
  TransportOptions options;
  options.row_weights.assign(12, 2.5);
  absl::StatusOr<TransportResult> equal = SolveTransport(costs, options);
  ASSERT_TRUE(equal.ok()) << equal.status();
  EXPECT_EQ(equal->solver, TransportSolver::kAssignment);
  EXPECT_EQ(equal->weight_rounding_bound, 0.0);

  // The same problem through the network simplex, by a negligible tilt.
  options.row_weights[0] = 2.5 * (1 + 1e-14);
  absl::StatusOr<TransportResult> tilted = SolveTransport(costs, options);
  ASSERT_TRUE(tilted.ok()) << tilted.status();
  EXPECT_EQ(tilted->solver, TransportSolver::kNetworkSimplex);
  EXPECT_NEAR(tilted->distance, equal->distance, 1e-12);
  ExpectValidResult(costs, options, *tilted);
}

TEST(TransportTest, UniformSideStaysExactBesideUserWeights) {
  const CostMatrix costs = MetricCosts(7, 9, 4, 4, 10.0);
  TransportOptions options;
  options.col_weights = RandomWeights(9, 5);
  absl::StatusOr<TransportResult> result = SolveTransport(costs, options);
  ASSERT_TRUE(result.ok()) << result.status();
  for (double w : result->row_weights) EXPECT_DOUBLE_EQ(w, 1.0 / 7);
  ExpectValidResult(costs, options, *result);
}

TEST(TransportTest, ZeroWeightRowsShipNothing) {
  const CostMatrix costs = UniformCosts(5, 4, 8);
  TransportOptions options;
  options.row_weights = {0.0, 1.0, 0.0, 3.0, 0.0};
  absl::StatusOr<TransportResult> result = SolveTransport(costs, options);
  ASSERT_TRUE(result.ok()) << result.status();
  for (const PlanEntry& entry : result->plan) EXPECT_TRUE(entry.row == 1 || entry.row == 3);
  EXPECT_EQ(result->row_contributions[0], 0.0);
  ExpectValidResult(costs, options, *result);

  // A single source and a single sink: all mass on one cell.
  options.col_weights = {0.0, 0.0, 2.0, 0.0};
  options.row_weights = {0.0, 0.0, 0.0, 5.0, 0.0};
  result = SolveTransport(costs, options);
  ASSERT_TRUE(result.ok()) << result.status();
  ASSERT_EQ(result->plan.size(), 1u);
  EXPECT_EQ(result->plan[0].row, 3);
  EXPECT_EQ(result->plan[0].col, 2);
  EXPECT_EQ(result->plan[0].mass, 1.0);
  EXPECT_EQ(result->distance, costs.at(3, 2));
  ExpectValidResult(costs, options, *result);
}

TEST(TransportTest, ConstantAndZeroCosts) {
  for (double value : {0.0, 3.0}) {
    for (size_t m : {4, 6}) {
      const CostMatrix costs(4, m, value);
      absl::StatusOr<TransportResult> result = SolveTransport(costs);
      ASSERT_TRUE(result.ok()) << result.status();
      EXPECT_NEAR(result->distance, value, 1e-15);
      ExpectValidResult(costs, {}, *result);
    }
  }
}

TEST(TransportTest, ScalesWithTheCosts) {
  const CostMatrix base = MetricCosts(15, 25, 4, 6, 10.0);
  TransportOptions options;
  options.row_weights = RandomWeights(15, 7);
  absl::StatusOr<TransportResult> reference = SolveTransport(base, options);
  ASSERT_TRUE(reference.ok()) << reference.status();
  for (double q : {1.0, 2.0}) {
    options.order = q;
    for (double scale : {1e-150, 1e-100, 1e100, 1e150}) {
      CostMatrix scaled = base;
      for (double& c : scaled.values) c *= scale;
      absl::StatusOr<TransportResult> result = SolveTransport(scaled, options);
      ASSERT_TRUE(result.ok()) << result.status();
      if (q == 1.0) {
        EXPECT_NEAR(result->distance / scale, reference->distance, 1e-12);
      }
      ExpectValidResult(scaled, options, *result);
    }
  }
}

TEST(TransportTest, IsDeterministic) {
  const CostMatrix costs = IntegerCosts(60, 90, 3, 12);
  TransportOptions options;
  options.col_weights = RandomWeights(90, 13);
  absl::StatusOr<TransportResult> first = SolveTransport(costs, options);
  absl::StatusOr<TransportResult> second = SolveTransport(costs, options);
  ASSERT_TRUE(first.ok() && second.ok());
  ASSERT_EQ(first->plan.size(), second->plan.size());
  for (size_t k = 0; k < first->plan.size(); ++k) {
    EXPECT_EQ(first->plan[k].row, second->plan[k].row);
    EXPECT_EQ(first->plan[k].col, second->plan[k].col);
    EXPECT_EQ(first->plan[k].mass, second->plan[k].mass);
  }
  EXPECT_EQ(first->certificate.u, second->certificate.u);
  EXPECT_EQ(first->distance, second->distance);
}

TEST(TransportTest, CertifyPlanFlagsBadDuals) {
  const CostMatrix costs = UniformCosts(3, 3, 14);
  absl::StatusOr<TransportResult> result = SolveTransport(costs);
  ASSERT_TRUE(result.ok()) << result.status();
  std::vector<double> u = result->certificate.u;
  std::vector<double> v = result->certificate.v;
  u[1] += 0.25;
  const TransportCertificate raised =
      CertifyPlan(costs, result->row_weights, result->col_weights, result->plan, u, v);
  EXPECT_GT(raised.max_dual_violation, 0.2);
  EXPECT_NEAR(raised.primal_dual_gap, 0.25 / 3, 1e-12);

  const TransportCertificate short_duals = CertifyPlan(
      costs, result->row_weights, result->col_weights, result->plan, {0.0}, result->certificate.v);
  EXPECT_TRUE(std::isinf(short_duals.max_dual_violation));
  EXPECT_TRUE(std::isinf(short_duals.primal_dual_gap));

  std::vector<PlanEntry> negative = result->plan;
  negative.front().mass = -negative.front().mass;
  const TransportCertificate infeasible =
      CertifyPlan(costs, result->row_weights, result->col_weights, negative, result->certificate.u,
                  result->certificate.v);
  EXPECT_TRUE(std::isinf(infeasible.max_dual_violation));
}

TEST(TransportTest, SubnormalCostsSolveLikeTheirScaledTwins) {
  const CostMatrix base = UniformCosts(3, 5, 41);
  CostMatrix tiny = base;
  for (double& c : tiny.values) c = std::ldexp(c, -1060);
  CostMatrix twin = tiny;
  for (double& c : twin.values) c = std::ldexp(c, 1060);
  absl::StatusOr<TransportResult> small = SolveTransport(tiny);
  absl::StatusOr<TransportResult> large = SolveTransport(twin);
  ASSERT_TRUE(small.ok()) << small.status();
  ASSERT_TRUE(large.ok()) << large.status();
  ASSERT_EQ(small->plan.size(), large->plan.size());
  for (size_t k = 0; k < small->plan.size(); ++k) {
    EXPECT_EQ(small->plan[k].row, large->plan[k].row);
    EXPECT_EQ(small->plan[k].col, large->plan[k].col);
  }
  EXPECT_GT(small->distance, 0.0);
}

}  // namespace
}  // namespace wasserwarp
