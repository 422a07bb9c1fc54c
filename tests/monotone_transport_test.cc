// The corner rule for costs between points on a line (transport/monotone.h), through
// SolveTransport: W against the quantile formula of one-dimensional optimal transport, written
// here from its definition, and against the network simplex on the same problem; costs from
// anything but points on a line go to the general solvers as before.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <optional>
#include <random>
#include <vector>

#include "random_costs.h"
#include "tbb/global_control.h"
#include "transport/monotone.h"
#include "transport/network_simplex.h"
#include "wasserwarp/cost_matrix.h"
#include "wasserwarp/transport.h"

namespace wasserwarp {
namespace {

// Points of two sides on a line.
struct LinePoints {
  std::vector<double> rows;
  std::vector<double> cols;
};

CostMatrix Distances(const LinePoints& points) {
  CostMatrix costs(points.rows.size(), points.cols.size());
  for (size_t i = 0; i < points.rows.size(); ++i) {
    for (size_t j = 0; j < points.cols.size(); ++j) {
      costs.at(i, j) = std::abs(points.rows[i] - points.cols[j]);
    }
  }
  return costs;
}

// W_q between the weighted point sets from the definition in one dimension: the integral over
// t in [0, 1] of |F^-1(t) - G^-1(t)|^q, F and G the sides' distribution functions, summed over
// the intervals between the breakpoints of both.
double QuantileDistance(const std::vector<double>& x, std::vector<double> a,
                        const std::vector<double>& y, std::vector<double> b, double q) {
  if (a.empty()) a.assign(x.size(), 1.0);
  if (b.empty()) b.assign(y.size(), 1.0);
  const double a_total = std::accumulate(a.begin(), a.end(), 0.0);
  const double b_total = std::accumulate(b.begin(), b.end(), 0.0);
  std::vector<size_t> xs(x.size());
  std::vector<size_t> ys(y.size());
  std::iota(xs.begin(), xs.end(), size_t{0});
  std::iota(ys.begin(), ys.end(), size_t{0});
  std::sort(xs.begin(), xs.end(), [&](size_t p, size_t r) { return x[p] < x[r]; });
  std::sort(ys.begin(), ys.end(), [&](size_t p, size_t r) { return y[p] < y[r]; });
  double sum = 0.0;
  double t = 0.0;
  double f = a[xs[0]] / a_total;
  double g = b[ys[0]] / b_total;
  size_t i = 0;
  size_t j = 0;
  while (i < xs.size() && j < ys.size()) {
    const double next = std::min(f, g);
    sum += (next - t) * std::pow(std::abs(x[xs[i]] - y[ys[j]]), q);
    t = next;
    if (f <= next && i + 1 < xs.size()) {
      f += a[xs[++i]] / a_total;
    } else if (g <= next && j + 1 < ys.size()) {
      g += b[ys[++j]] / b_total;
    } else {
      break;
    }
  }
  return std::pow(sum, 1.0 / q);
}

std::vector<double> Draw(size_t count, double low, double high, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> coordinate(low, high);
  std::vector<double> points(count);
  for (double& p : points) p = coordinate(rng);
  return points;
}

std::vector<double> Weights(size_t count, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> weight(0.1, 3.0);
  std::vector<double> weights(count);
  for (double& w : weights) w = weight(rng);
  return weights;
}

struct Case {
  size_t rows;
  size_t cols;
  double q;
  bool weighted;
  double row_low, row_high, col_low, col_high;  // where the points of each side lie
};

// The largest entry's index, as SolveTransport passes it.
size_t Largest(const CostMatrix& costs) {
  return static_cast<size_t>(std::max_element(costs.values.begin(), costs.values.end()) -
                             costs.values.begin());
}

class MonotoneTransportTest : public ::testing::TestWithParam<Case> {};

TEST_P(MonotoneTransportTest, MatchesTheQuantileFormulaAndTheNetworkSimplex) {
  const Case& c = GetParam();
  for (uint64_t seed = 1; seed <= 5; ++seed) {
    std::mt19937_64 rng(seed * 7919 + c.rows);
    LinePoints points{Draw(c.rows, c.row_low, c.row_high, rng),
                      Draw(c.cols, c.col_low, c.col_high, rng)};
    // Repeated points: ties in every key of the order search.
    points.rows[1] = points.rows[0];
    points.cols[2] = points.cols[1];
    TransportOptions options;
    options.order = c.q;
    if (c.weighted) {
      options.row_weights = Weights(c.rows, rng);
      options.col_weights = Weights(c.cols, rng);
    }
    // Shuffled sides: the search finds the order, whatever the input's.
    std::shuffle(points.rows.begin(), points.rows.end(), rng);
    const CostMatrix costs = Distances(points);
    absl::StatusOr<TransportResult> result = SolveTransport(costs, options);
    ASSERT_TRUE(result.ok()) << result.status();
    EXPECT_EQ(result->solver, TransportSolver::kMonotone) << "seed " << seed;
    const double expected =
        QuantileDistance(points.rows, options.row_weights, points.cols, options.col_weights, c.q);
    // The transported weights are the requested ones rounded to a total near 2^50.
    EXPECT_NEAR(result->distance, expected,
                1e-12 * std::max(1.0, expected) + result->weight_rounding_bound)
        << "seed " << seed;

    // The network simplex on the same integer supplies: weights of whole numbers, so that
    // w_i * (sum of the other side's) are exact supplies of one total.
    std::vector<int64_t> supply(c.rows, static_cast<int64_t>(c.cols));
    std::vector<int64_t> demand(c.cols, static_cast<int64_t>(c.rows));
    if (c.weighted) {
      std::uniform_int_distribution<int64_t> whole(1, 5);
      for (int64_t& s : supply) s = whole(rng);
      for (int64_t& d : demand) d = whole(rng);
      const int64_t rows_total = std::accumulate(supply.begin(), supply.end(), int64_t{0});
      const int64_t cols_total = std::accumulate(demand.begin(), demand.end(), int64_t{0});
      for (int64_t& s : supply) s *= cols_total;
      for (int64_t& d : demand) d *= rows_total;
    }
    const CostMatrix costs_q = test_data::Powered(costs, c.q);
    const size_t largest = Largest(costs);
    const std::optional<MonotoneOrder> order =
        FindMonotoneOrder(costs, costs_q, largest, 1e-12 * costs_q.values[largest]);
    ASSERT_TRUE(order.has_value()) << "seed " << seed;
    const NetworkSimplexSolution corner = NorthWestCorner(costs_q, *order, supply, demand);
    absl::StatusOr<NetworkSimplexSolution> simplex = SolveNetworkSimplex(costs_q, supply, demand);
    ASSERT_TRUE(simplex.ok()) << simplex.status();
    const auto cost_of = [&](const NetworkSimplexSolution& plan) {
      double sum = 0.0;
      for (const FlowEntry& flow : plan.flows) {
        sum += static_cast<double>(flow.flow) * costs_q.at(flow.row, flow.col);
      }
      return sum;
    };
    const double simplex_cost = cost_of(*simplex);
    EXPECT_NEAR(cost_of(corner), simplex_cost, 1e-12 * std::max(1.0, simplex_cost))
        << "seed " << seed;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Lines, MonotoneTransportTest,
    ::testing::Values(Case{80, 80, 1.0, false, 0, 1, 0, 1},      // an assignment, overlapping
                      Case{80, 80, 2.0, false, 0, 1, 0.5, 2},    // shifted
                      Case{70, 110, 1.0, false, -1, 2, 0, 1},    // rows beyond both ends
                      Case{110, 70, 1.0, false, 0, 1, -1, 2},    // columns beyond both ends
                      Case{64, 96, 1.5, true, 0, 1, 0, 1},       // weighted, q = 1.5
                      Case{96, 64, 2.0, true, -3, -2, 2, 3},     // apart, weighted
                      Case{128, 72, 1.0, true, 0, 1, 0.9, 5}));  // barely overlapping

TEST(MonotoneTransport, CostsOffALineGoToTheGeneralSolvers) {
  for (size_t dim : {2, 3}) {
    const CostMatrix costs = test_data::MetricCosts(100, 120, dim, 17 + dim);
    EXPECT_FALSE(FindMonotoneOrder(costs, costs, Largest(costs), 0.0).has_value())
        << dim << "-D points";
    absl::StatusOr<TransportResult> result = SolveTransport(costs, {});
    ASSERT_TRUE(result.ok()) << result.status();
    EXPECT_EQ(result->solver, TransportSolver::kNetworkSimplex);
  }
  const CostMatrix uniform = test_data::UniformCosts(100, 100, 5);
  absl::StatusOr<TransportResult> result = SolveTransport(uniform, {});
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->solver, TransportSolver::kAssignment);
}

TEST(MonotoneTransport, SmallProblemsKeepTheGeneralSolvers) {
  std::mt19937_64 rng(3);
  const CostMatrix costs = Distances({Draw(63, 0, 1, rng), Draw(64, 0, 1, rng)});
  absl::StatusOr<TransportResult> result = SolveTransport(costs, {});
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->solver, TransportSolver::kNetworkSimplex);
}

// Rows at 10 and 0, columns at 11, 1 and 2 with supplies 6 : 6 and demands 6 : 3 : 3: sorted
// along the line, the corner rule ships the row at 0 to the columns at 1 and 2 and the row at 10
// to the column at 11, the optimum by hand. The farthest pair, 0 and 11, is the one whose
// column end is the line's (a double sweep from the row at 10 would stop at 10 and 1).
TEST(MonotoneTransport, CornerRuleOnAHandSolvedProblem) {
  const CostMatrix costs = Distances({{10.0, 0.0}, {11.0, 1.0, 2.0}});
  const std::optional<MonotoneOrder> order = FindMonotoneOrder(costs, costs, Largest(costs), 0.0);
  ASSERT_TRUE(order.has_value());
  const NetworkSimplexSolution plan = NorthWestCorner(costs, *order, {6, 6}, {6, 3, 3});
  ASSERT_EQ(plan.flows.size(), 3u);
  EXPECT_EQ(plan.flows[0].row, 0);  // 10 -> 11
  EXPECT_EQ(plan.flows[0].col, 0);
  EXPECT_EQ(plan.flows[0].flow, 6);
  EXPECT_EQ(plan.flows[1].row, 1);  // 0 -> 1 and 2
  EXPECT_EQ(plan.flows[1].col, 1);
  EXPECT_EQ(plan.flows[1].flow, 3);
  EXPECT_EQ(plan.flows[2].col, 2);
  EXPECT_EQ(plan.flows[2].flow, 3);
  // Duals tight on the staircase and feasible everywhere: u_i + v_j <= C_ij.
  for (size_t i = 0; i < 2; ++i) {
    for (size_t j = 0; j < 3; ++j) EXPECT_LE(plan.u[i] + plan.v[j], costs.at(i, j) + 1e-12);
  }
  for (const FlowEntry& flow : plan.flows) {
    EXPECT_DOUBLE_EQ(plan.u[flow.row] + plan.v[flow.col], costs.at(flow.row, flow.col));
  }
}

// The passes over the matrix run on blocks in parallel on large problems, and the duals,
// certificate and plan must not depend on it; off a line too, where the network simplex solves.
TEST(MonotoneTransport, OffALineTheSameResultOnOneThreadAndOnAll) {
  const CostMatrix costs = test_data::MetricCosts(300, 400, 3, 23);
  TransportOptions options;
  options.order = 2.0;
  std::mt19937_64 rng(5);
  options.row_weights = Weights(300, rng);
  options.col_weights = Weights(400, rng);
  absl::StatusOr<TransportResult> all = SolveTransport(costs, options);
  absl::StatusOr<TransportResult> one;
  {
    tbb::global_control single(tbb::global_control::max_allowed_parallelism, 1);
    one = SolveTransport(costs, options);
  }
  ASSERT_TRUE(all.ok() && one.ok());
  EXPECT_EQ(all->solver, TransportSolver::kNetworkSimplex);
  EXPECT_EQ(all->distance, one->distance);
  EXPECT_EQ(all->certificate.u, one->certificate.u);
  EXPECT_EQ(all->certificate.v, one->certificate.v);
  EXPECT_EQ(all->certificate.max_dual_violation, one->certificate.max_dual_violation);
  EXPECT_EQ(all->certificate.primal_dual_gap, one->certificate.primal_dual_gap);
  ASSERT_EQ(all->plan.size(), one->plan.size());
  for (size_t k = 0; k < all->plan.size(); ++k) {
    EXPECT_EQ(all->plan[k].row, one->plan[k].row);
    EXPECT_EQ(all->plan[k].col, one->plan[k].col);
    EXPECT_EQ(all->plan[k].mass, one->plan[k].mass);
  }
}

TEST(MonotoneTransport, TheSameResultOnOneThreadAndOnAll) {
  std::mt19937_64 rng(11);
  const CostMatrix costs = Distances({Draw(300, 0, 1, rng), Draw(200, 0, 1, rng)});
  absl::StatusOr<TransportResult> all = SolveTransport(costs, {});
  absl::StatusOr<TransportResult> one;
  {
    tbb::global_control single(tbb::global_control::max_allowed_parallelism, 1);
    one = SolveTransport(costs, {});
  }
  ASSERT_TRUE(all.ok() && one.ok());
  EXPECT_EQ(all->solver, TransportSolver::kMonotone);
  EXPECT_EQ(all->distance, one->distance);
  ASSERT_EQ(all->plan.size(), one->plan.size());
  for (size_t k = 0; k < all->plan.size(); ++k) {
    EXPECT_EQ(all->plan[k].row, one->plan[k].row);
    EXPECT_EQ(all->plan[k].col, one->plan[k].col);
    EXPECT_EQ(all->plan[k].mass, one->plan[k].mass);
  }
}

}  // namespace
}  // namespace wasserwarp
