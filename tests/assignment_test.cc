#include "transport/assignment.h"

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
#include "tbb/task_arena.h"
#include "transport/assignment_internal.h"
#include "transport/network_simplex.h"
#include "wasserwarp/cost_matrix.h"
#include "wasserwarp/transport.h"

namespace wasserwarp {
namespace {

using test_data::IntegerCosts;
using test_data::MetricCosts;
using test_data::MinPermutationCost;
using test_data::UniformCosts;
using ::testing::HasSubstr;

namespace internal = assignment_internal;

double MaxAbs(const CostMatrix& costs) {
  double max = 0.0;
  for (double c : costs.values) max = std::max(max, std::abs(c));
  return max;
}

// A permutation whose cost is `cost`, with duals feasible everywhere and tight
// on the assignment, all to `tolerance`.
void ExpectCertified(const CostMatrix& costs, const Assignment& result, double tolerance) {
  const size_t n = costs.rows;
  ASSERT_EQ(result.row_to_col.size(), n);
  ASSERT_EQ(result.u.size(), n);
  ASSERT_EQ(result.v.size(), n);
  std::vector<bool> used(n, false);
  double cost = 0.0;
  for (size_t i = 0; i < n; ++i) {
    const int j = result.row_to_col[i];
    ASSERT_GE(j, 0);
    ASSERT_LT(j, static_cast<int>(n));
    ASSERT_FALSE(used[j]) << "column " << j << " assigned twice";
    used[j] = true;
    cost += costs.at(i, j);
    EXPECT_NEAR(result.u[i] + result.v[j], costs.at(i, j), tolerance) << "row " << i;
  }
  EXPECT_NEAR(result.cost, cost, tolerance * n);
  double violation = 0.0;
  for (size_t i = 0; i < n; ++i) {
    for (size_t j = 0; j < n; ++j) {
      violation = std::max(violation, result.u[i] + result.v[j] - costs.at(i, j));
    }
  }
  EXPECT_LE(violation, tolerance);
  const double dual = std::accumulate(result.u.begin(), result.u.end(), 0.0) +
                      std::accumulate(result.v.begin(), result.v.end(), 0.0);
  EXPECT_NEAR(dual, result.cost, tolerance * n);
}

double NetworkSimplexCost(const CostMatrix& costs) {
  absl::StatusOr<NetworkSimplexSolution> flow = SolveNetworkSimplex(
      costs, std::vector<int64_t>(costs.rows, 1), std::vector<int64_t>(costs.cols, 1));
  EXPECT_TRUE(flow.ok()) << flow.status();
  if (!flow.ok()) return 0.0;
  double cost = 0.0;
  for (const FlowEntry& entry : flow->flows) {
    cost += entry.flow * costs.at(entry.row, entry.col);
  }
  return cost;
}

TEST(AssignmentTest, MatchesBruteForceOnRandomCosts) {
  for (size_t n = 1; n <= 7; ++n) {
    for (uint64_t seed = 0; seed < 20; ++seed) {
      const CostMatrix costs = UniformCosts(n, n, 100 * n + seed);
      absl::StatusOr<Assignment> result = SolveAssignment(costs);
      ASSERT_TRUE(result.ok()) << result.status();
      EXPECT_NEAR(result->cost, MinPermutationCost(costs), 1e-12) << "n=" << n << " seed=" << seed;
      ExpectCertified(costs, *result, 1e-12);
    }
  }
}

TEST(AssignmentTest, MatchesBruteForceOnIntegerCostsWithTies) {
  for (size_t n = 1; n <= 7; ++n) {
    for (int max_value : {0, 1, 2, 5}) {
      for (uint64_t seed = 0; seed < 10; ++seed) {
        const CostMatrix costs = IntegerCosts(n, n, max_value, 1000 * n + 10 * max_value + seed);
        absl::StatusOr<Assignment> result = SolveAssignment(costs);
        ASSERT_TRUE(result.ok()) << result.status();
        // Integers: every operation is exact.
        EXPECT_EQ(result->cost, MinPermutationCost(costs)) << "n=" << n << " seed=" << seed;
        ExpectCertified(costs, *result, 0.0);
      }
    }
  }
}

TEST(AssignmentTest, MatchesBruteForceWithNegativeCosts) {
  for (size_t n = 2; n <= 7; ++n) {
    const CostMatrix costs = UniformCosts(n, n, 7 * n, -5.0, 3.0);
    absl::StatusOr<Assignment> result = SolveAssignment(costs);
    ASSERT_TRUE(result.ok()) << result.status();
    EXPECT_NEAR(result->cost, MinPermutationCost(costs), 1e-12);
    ExpectCertified(costs, *result, 1e-12);
  }
}

TEST(AssignmentTest, SingleEntry) {
  CostMatrix costs(1, 1, 3.5);
  absl::StatusOr<Assignment> result = SolveAssignment(costs);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->row_to_col, std::vector<int>{0});
  EXPECT_EQ(result->cost, 3.5);
  EXPECT_EQ(result->u[0] + result->v[0], 3.5);
}

TEST(AssignmentTest, ConstantMatrix) {
  for (size_t n : {2, 3, 50, 257}) {
    const CostMatrix costs(n, n, 2.25);
    absl::StatusOr<Assignment> result = SolveAssignment(costs);
    ASSERT_TRUE(result.ok()) << result.status();
    EXPECT_EQ(result->cost, 2.25 * n);
    ExpectCertified(costs, *result, 0.0);
  }
}

TEST(AssignmentTest, IdentityLikeMatrices) {
  const size_t n = 40;
  CostMatrix diagonal(n, n, 1.0);
  CostMatrix shifted(n, n, 1.0);
  for (size_t i = 0; i < n; ++i) {
    diagonal.at(i, i) = 0.0;
    shifted.at(i, (i + 7) % n) = 0.0;
  }
  absl::StatusOr<Assignment> result = SolveAssignment(diagonal);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->cost, 0.0);
  for (size_t i = 0; i < n; ++i) EXPECT_EQ(result->row_to_col[i], static_cast<int>(i));
  ExpectCertified(diagonal, *result, 0.0);

  result = SolveAssignment(shifted);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->cost, 0.0);
  for (size_t i = 0; i < n; ++i) EXPECT_EQ(result->row_to_col[i], static_cast<int>((i + 7) % n));
}

TEST(AssignmentTest, IdenticalRowsMakeEveryPermutationOptimal) {
  const size_t n = 120;
  CostMatrix costs(n, n);
  double expected = 0.0;
  for (size_t j = 0; j < n; ++j) {
    expected += 0.5 + j % 9;
    for (size_t i = 0; i < n; ++i) costs.at(i, j) = 0.5 + j % 9;
  }
  absl::StatusOr<Assignment> result = SolveAssignment(costs);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->cost, expected);
  ExpectCertified(costs, *result, 0.0);
}

// Entries equal up to the last few bits drive augmenting row reduction into
// long chains of tiny price changes; it must stay bounded and exact.
TEST(AssignmentTest, NearlyEqualEntriesTerminate) {
  const size_t n = 300;
  std::mt19937_64 rng(5);
  std::uniform_int_distribution<int> ulps(0, 8);
  CostMatrix costs(n, n);
  for (double& c : costs.values) c = 1.0 + ulps(rng) * std::numeric_limits<double>::epsilon();
  absl::StatusOr<Assignment> result = SolveAssignment(costs);
  ASSERT_TRUE(result.ok()) << result.status();
  ExpectCertified(costs, *result, 1e-13);

  const CostMatrix binary = IntegerCosts(n, n, 1, 6);
  result = SolveAssignment(binary);
  ASSERT_TRUE(result.ok()) << result.status();
  ExpectCertified(binary, *result, 0.0);
}

TEST(AssignmentTest, HugeAndTinyMagnitudes) {
  const CostMatrix base = MetricCosts(60, 60, 3, 11);
  absl::StatusOr<Assignment> reference = SolveAssignment(base);
  ASSERT_TRUE(reference.ok()) << reference.status();
  for (double scale : {1e300, 1e-300, 1e-305, 0x1p-1000}) {
    CostMatrix scaled = base;
    for (double& c : scaled.values) c *= scale;
    absl::StatusOr<Assignment> result = SolveAssignment(scaled);
    ASSERT_TRUE(result.ok()) << result.status();
    EXPECT_NEAR(result->cost / scale, reference->cost, 1e-12 * reference->cost) << scale;
    ExpectCertified(scaled, *result, 1e-13 * MaxAbs(scaled));
  }
  // As large as a cost sum can be: intermediate prices would overflow unscaled.
  CostMatrix huge = base;
  const double top = std::numeric_limits<double>::max() / (2 * 60 * MaxAbs(base));
  for (double& c : huge.values) c *= top;
  absl::StatusOr<Assignment> result = SolveAssignment(huge);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_TRUE(std::isfinite(result->cost));
  for (size_t i = 0; i < 60; ++i) {
    ASSERT_TRUE(std::isfinite(result->u[i]) && std::isfinite(result->v[i]));
  }
  EXPECT_NEAR(result->cost / top, reference->cost, 1e-12 * reference->cost);
}

TEST(AssignmentTest, AgreesWithNetworkSimplexAtScale) {
  const size_t n = 300;
  for (const CostMatrix& costs : {MetricCosts(n, n, 10, 21), UniformCosts(n, n, 22)}) {
    absl::StatusOr<Assignment> result = SolveAssignment(costs);
    ASSERT_TRUE(result.ok()) << result.status();
    ExpectCertified(costs, *result, 1e-12);
    EXPECT_NEAR(result->cost, NetworkSimplexCost(costs), 1e-10);
  }
}

// Sizes where the Dijkstra phase does most of the work, with and without ties.
TEST(AssignmentTest, AgreesWithNetworkSimplexOnManySizes) {
  for (size_t n = 8; n <= 80; n += 8) {
    for (const CostMatrix& costs : {UniformCosts(n, n, 3 * n), IntegerCosts(n, n, 3, 3 * n + 1),
                                    MetricCosts(n, n, 2, 3 * n + 2)}) {
      absl::StatusOr<Assignment> result = SolveAssignment(costs);
      ASSERT_TRUE(result.ok()) << result.status();
      ExpectCertified(costs, *result, 1e-12);
      EXPECT_NEAR(result->cost, NetworkSimplexCost(costs), 1e-11) << "n=" << n;
    }
  }
}

TEST(AssignmentTest, IsDeterministic) {
  const CostMatrix costs = IntegerCosts(200, 200, 3, 9);
  absl::StatusOr<Assignment> first = SolveAssignment(costs);
  absl::StatusOr<Assignment> second = SolveAssignment(costs);
  ASSERT_TRUE(first.ok() && second.ok());
  EXPECT_EQ(first->row_to_col, second->row_to_col);
  EXPECT_EQ(first->u, second->u);
  EXPECT_EQ(first->v, second->v);
}

// Points on a line, |x_i - y_j| with a little noise: an optimal partner lies
// about sqrt(n) ranks away, far outside a row's few cheapest entries, so the
// candidate solver only gets there by pricing.
CostMatrix LineCosts(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> step(0.0, 1.0);
  std::vector<double> x(n);
  std::vector<double> y(n);
  double a = 0.0;
  double b = 0.0;
  for (size_t i = 0; i < n; ++i) {
    x[i] = a += step(rng);
    y[i] = b += step(rng);
  }
  CostMatrix costs(n, n);
  for (size_t i = 0; i < n; ++i) {
    for (size_t j = 0; j < n; ++j) costs.at(i, j) = std::abs(x[i] - y[j]) + 0.01 * step(rng);
  }
  return costs;
}

// a_i b_j plus noise: nearly every permutation costs about the same.
CostMatrix RankOneCosts(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> factor(1.0, 2.0);
  std::uniform_real_distribution<double> noise(0.0, 1e-3);
  std::vector<double> a(n);
  std::vector<double> b(n);
  for (double& e : a) e = factor(rng);
  for (double& e : b) e = factor(rng);
  CostMatrix costs(n, n);
  for (size_t i = 0; i < n; ++i) {
    for (size_t j = 0; j < n; ++j) costs.at(i, j) = a[i] * b[j] + noise(rng);
  }
  return costs;
}

absl::StatusOr<Assignment> SolveSparse(const CostMatrix& costs, int candidates,
                                       internal::SparseStats* stats = nullptr) {
  return internal::SolveAssignmentWith(costs, internal::Method::kSparse,
                                       {.candidates = candidates, .violators_per_row = 4}, stats);
}

TEST(SparseAssignmentTest, MatchesBruteForce) {
  for (size_t n = 1; n <= 8; ++n) {
    for (int candidates : {1, 2, 8}) {
      for (uint64_t seed = 0; seed < (n == 8 ? 3 : 10); ++seed) {
        for (const CostMatrix& costs :
             {UniformCosts(n, n, 50 * n + seed), LineCosts(n, 60 * n + seed)}) {
          absl::StatusOr<Assignment> result = SolveSparse(costs, candidates);
          ASSERT_TRUE(result.ok()) << result.status();
          const double best = MinPermutationCost(costs);
          EXPECT_NEAR(result->cost, best, 1e-12 * std::max(1.0, std::abs(best)))
              << "n=" << n << " k=" << candidates << " seed=" << seed;
          ExpectCertified(costs, *result, 1e-12 * std::max(1.0, MaxAbs(costs)));
        }
        const CostMatrix ties = IntegerCosts(n, n, 2, 70 * n + seed);
        absl::StatusOr<Assignment> result = SolveSparse(ties, candidates);
        ASSERT_TRUE(result.ok()) << result.status();
        EXPECT_EQ(result->cost, MinPermutationCost(ties)) << "n=" << n << " seed=" << seed;
        ExpectCertified(ties, *result, 0.0);
      }
    }
  }
}

// Against the dense solver, with few candidates so that pricing does real work.
TEST(SparseAssignmentTest, AgreesWithDenseSolver) {
  uint64_t seed = 1;
  for (size_t n : {9, 31, 64, 100, 257, 400}) {
    for (int candidates : {1, 3, 8}) {
      const std::vector<CostMatrix> matrices = {
          UniformCosts(n, n, ++seed),    IntegerCosts(n, n, 3, ++seed),
          IntegerCosts(n, n, 1, ++seed), RankOneCosts(n, ++seed),
          LineCosts(n, ++seed),          MetricCosts(n, n, 2, ++seed),
          CostMatrix(n, n, 0.75),        UniformCosts(n, n, ++seed, -3.0, 1.0)};
      for (const CostMatrix& costs : matrices) {
        absl::StatusOr<Assignment> dense =
            internal::SolveAssignmentWith(costs, internal::Method::kDense);
        absl::StatusOr<Assignment> sparse = SolveSparse(costs, candidates);
        ASSERT_TRUE(dense.ok() && sparse.ok());
        const double scale = std::max(1.0, MaxAbs(costs));
        EXPECT_NEAR(sparse->cost, dense->cost, 1e-12 * std::max(1.0, std::abs(dense->cost)))
            << "n=" << n << " k=" << candidates << " seed=" << seed;
        ExpectCertified(costs, *sparse, 1e-12 * scale);
      }
    }
  }
}

TEST(SparseAssignmentTest, PricingAddsTheEntriesTheCandidatesMiss) {
  const CostMatrix costs = LineCosts(300, 3);
  internal::SparseStats stats;
  absl::StatusOr<Assignment> result = SolveSparse(costs, 2, &stats);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_GT(stats.rounds, 1);
  EXPECT_FALSE(stats.fell_back);
  ExpectCertified(costs, *result, 1e-12 * MaxAbs(costs));
  absl::StatusOr<Assignment> dense = internal::SolveAssignmentWith(costs, internal::Method::kDense);
  ASSERT_TRUE(dense.ok());
  EXPECT_NEAR(result->cost, dense->cost, 1e-12 * dense->cost);
}

// Where augmenting paths scan more candidates than the matrix has entries times the budget, the
// dense solver takes over: the answer is the same, and the work is bounded by the dense solve.
TEST(SparseAssignmentTest, PathsThatScanTooMuchHandOverToTheDenseSolver) {
  const CostMatrix costs = LineCosts(300, 5);
  internal::SparseStats stats;
  absl::StatusOr<Assignment> result = internal::SolveAssignmentWith(
      costs, internal::Method::kSparse,
      {.candidates = 2, .violators_per_row = 4, .max_scanned_arcs_per_entry = 0.05}, &stats);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_TRUE(stats.fell_back);
  EXPECT_GT(stats.scanned_arcs, static_cast<uint64_t>(0.05 * 300 * 300));
  ExpectCertified(costs, *result, 1e-12 * MaxAbs(costs));
  absl::StatusOr<Assignment> dense = internal::SolveAssignmentWith(costs, internal::Method::kDense);
  ASSERT_TRUE(dense.ok());
  EXPECT_EQ(result->row_to_col, dense->row_to_col);
  EXPECT_EQ(result->cost, dense->cost);
}

TEST(SparseAssignmentTest, HugeAndTinyMagnitudes) {
  const CostMatrix base = UniformCosts(300, 300, 12);
  absl::StatusOr<Assignment> reference = SolveSparse(base, 8);
  ASSERT_TRUE(reference.ok());
  for (double scale : {1e300, 1e-300, 0x1p-1000}) {
    CostMatrix scaled = base;
    for (double& c : scaled.values) c *= scale;
    absl::StatusOr<Assignment> result = SolveSparse(scaled, 8);
    ASSERT_TRUE(result.ok()) << result.status();
    EXPECT_NEAR(result->cost / scale, reference->cost, 1e-12 * reference->cost) << scale;
    ExpectCertified(scaled, *result, 1e-13 * MaxAbs(scaled));
  }
}

// Pricing runs on oneTBB; its result must not depend on how many threads it gets.
TEST(SparseAssignmentTest, ResultDoesNotDependOnThreadCount) {
  for (const CostMatrix& costs : {IntegerCosts(600, 600, 3, 4), LineCosts(600, 5)}) {
    std::vector<Assignment> results;
    for (int threads : {1, 2, 5}) {
      tbb::task_arena arena(threads);
      absl::StatusOr<Assignment> result = arena.execute([&] { return SolveSparse(costs, 3); });
      ASSERT_TRUE(result.ok()) << result.status();
      results.push_back(*std::move(result));
    }
    for (size_t k = 1; k < results.size(); ++k) {
      EXPECT_EQ(results[k].row_to_col, results[0].row_to_col);
      EXPECT_EQ(results[k].u, results[0].u);
      EXPECT_EQ(results[k].v, results[0].v);
    }
  }
}

// SolveTransport refines and certifies the duals to 1e-9 of the largest cost;
// at n >= 512 they come from the candidate solver.
TEST(SparseAssignmentTest, CertifiedBySolveTransport) {
  for (const CostMatrix& costs : {UniformCosts(600, 600, 8), LineCosts(600, 9)}) {
    for (double order : {1.0, 2.0}) {
      absl::StatusOr<TransportResult> result = SolveTransport(costs, {.order = order});
      ASSERT_TRUE(result.ok()) << result.status();
      EXPECT_EQ(result->solver, TransportSolver::kAssignment);
      EXPECT_EQ(result->plan.size(), 600u);
    }
  }
}

TEST(AssignmentTest, RejectsBadMatrices) {
  EXPECT_THAT(SolveAssignment(CostMatrix()).status().message(), HasSubstr("0 x 0"));
  EXPECT_THAT(SolveAssignment(CostMatrix(2, 3)).status().message(), HasSubstr("2 x 3"));
  CostMatrix short_values(2, 2);
  short_values.values.pop_back();
  EXPECT_EQ(SolveAssignment(short_values).status().code(), absl::StatusCode::kInvalidArgument);
  for (double bad :
       {std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity()}) {
    CostMatrix costs(3, 3, 1.0);
    costs.at(1, 2) = bad;
    absl::Status status = SolveAssignment(costs).status();
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(status.message(), HasSubstr("(1, 2)"));
  }
}

}  // namespace
}  // namespace wasserwarp
