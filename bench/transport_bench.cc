// Solver timings at the sizes the targets are stated for: assignment at
// n = 1000 and 2000 (faster than scipy's linear_sum_assignment, about 0.08 s
// and 0.8 s there) and 5000 (at most half of scipy's time: make
// bench-assignment has the side-by-side table), on metric and on uniform
// costs, and each of its two solvers alone at 512 to 5000, for the crossover;
// network simplex at 2000 x 3000 (under 1.5 s) and 5000 x 3000 (under 6 s)
// with the defaults of NetworkSimplexOptions, and at 2000 x 3000 under each
// LEMON pivot rule, with and without arc mixing, on distances between points of 1, 3 and 10
// dimensions, to justify those defaults; the whole SolveTransport on points of 1, 3 and 10
// dimensions, the first through the corner rule, and that rule's search where it finds nothing.

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "random_costs.h"
#include "transport/assignment.h"
#include "transport/assignment_internal.h"
#include "transport/monotone.h"
#include "transport/network_simplex.h"
#include "wasserwarp/cost_matrix.h"
#include "wasserwarp/transport.h"

namespace wasserwarp {
namespace {

constexpr size_t kDimension = 10;

enum CostKind : int64_t { kMetric, kUniform };

CostMatrix Costs(int64_t kind, size_t rows, size_t cols) {
  return kind == kMetric ? test_data::MetricCosts(rows, cols, kDimension, 1)
                         : test_data::UniformCosts(rows, cols, 1);
}

void BM_Assignment(benchmark::State& state) {
  const size_t n = state.range(0);
  const CostMatrix costs = Costs(state.range(1), n, n);
  state.SetLabel(state.range(1) == kMetric ? "metric" : "uniform");
  for (auto _ : state) {
    absl::StatusOr<Assignment> result = SolveAssignment(costs);
    if (!result.ok()) state.SkipWithError(result.status().ToString().c_str());
    benchmark::DoNotOptimize(result);
  }
}
BENCHMARK(BM_Assignment)
    ->ArgsProduct({{1000, 2000}, {kMetric, kUniform}})
    ->Iterations(3)
    ->Unit(benchmark::kSecond);
BENCHMARK(BM_Assignment)
    ->ArgsProduct({{5000}, {kMetric, kUniform}})
    ->Iterations(1)
    ->Unit(benchmark::kSecond);

// Arguments: n, cost kind, solver (0: dense Jonker-Volgenant, 1: candidates and pricing).
void BM_AssignmentMethod(benchmark::State& state) {
  const size_t n = state.range(0);
  const CostMatrix costs = Costs(state.range(1), n, n);
  const bool sparse = state.range(2) != 0;
  state.SetLabel(absl::StrCat(state.range(1) == kMetric ? "metric" : "uniform",
                              sparse ? ", candidates" : ", dense"));
  const auto method =
      sparse ? assignment_internal::Method::kSparse : assignment_internal::Method::kDense;
  for (auto _ : state) {
    absl::StatusOr<Assignment> result = assignment_internal::SolveAssignmentWith(costs, method);
    if (!result.ok()) state.SkipWithError(result.status().ToString().c_str());
    benchmark::DoNotOptimize(result);
  }
}
BENCHMARK(BM_AssignmentMethod)
    ->ArgsProduct({{256, 512, 1000, 2000}, {kMetric, kUniform}, {0, 1}})
    ->Iterations(3)
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_AssignmentMethod)
    ->ArgsProduct({{5000}, {kMetric, kUniform}, {0, 1}})
    ->Iterations(1)
    ->Unit(benchmark::kSecond);

NetworkSimplexOptions Options(int64_t pivot_rule, int64_t arc_mixing) {
  NetworkSimplexOptions options;
  options.pivot_rule = static_cast<PivotRule>(pivot_rule);
  options.arc_mixing = arc_mixing != 0;
  return options;
}

// Uniform weights: every row supplies cols units, every column takes rows.
void RunNetworkSimplex(benchmark::State& state, const CostMatrix& costs,
                       const NetworkSimplexOptions& options) {
  const std::vector<int64_t> supply(costs.rows, static_cast<int64_t>(costs.cols));
  const std::vector<int64_t> demand(costs.cols, static_cast<int64_t>(costs.rows));
  for (auto _ : state) {
    absl::StatusOr<NetworkSimplexSolution> result =
        SolveNetworkSimplex(costs, supply, demand, options);
    if (!result.ok()) state.SkipWithError(result.status().ToString().c_str());
    benchmark::DoNotOptimize(result);
  }
}

// Arguments: rows, cols; the default options.
void BM_NetworkSimplex(benchmark::State& state) {
  RunNetworkSimplex(state, Costs(kMetric, state.range(0), state.range(1)), NetworkSimplexOptions{});
}
BENCHMARK(BM_NetworkSimplex)
    ->Args({2000, 3000})
    ->Args({5000, 3000})
    ->Iterations(1)
    ->Unit(benchmark::kSecond);

// Arguments: pivot rule, arc mixing, the dimension of the points whose distances are the costs;
// at 2000 x 3000. One-sample runs of one or three channels have TWEDs of one- and
// three-dimensional points; 10 dimensions stand for runs with more to tell them apart.
void BM_NetworkSimplexOptions(benchmark::State& state) {
  const NetworkSimplexOptions options = Options(state.range(0), state.range(1));
  const size_t dimension = static_cast<size_t>(state.range(2));
  state.SetLabel(absl::StrCat(options.pivot_rule == PivotRule::kBlockSearch     ? "block_search"
                              : options.pivot_rule == PivotRule::kCandidateList ? "candidate_list"
                                                                                : "altering_list",
                              options.arc_mixing ? ", arc mixing" : "", ", ", dimension, "-D"));
  RunNetworkSimplex(state, test_data::MetricCosts(2000, 3000, dimension, 1), options);
}
BENCHMARK(BM_NetworkSimplexOptions)
    ->ArgsProduct({{static_cast<int>(PivotRule::kBlockSearch),
                    static_cast<int>(PivotRule::kCandidateList),
                    static_cast<int>(PivotRule::kAlteringList)},
                   {0, 1},
                   {1, 3, kDimension}})
    ->Iterations(1)
    ->Unit(benchmark::kSecond);

// End to end, with weights, powering, dual refinement and certification. Arguments: q, user
// weights or uniform, the dimension of the points whose distances are the costs: on 1-D points
// (the TWEDs of one-sample one-channel runs) SolveTransport takes the corner rule
// (transport/monotone.h), on the others the network simplex.
void BM_SolveTransport(benchmark::State& state) {
  const size_t rows = 2000;
  const size_t cols = 3000;
  const auto dimension = static_cast<size_t>(state.range(2));
  const CostMatrix costs = test_data::MetricCosts(rows, cols, dimension, 1);
  TransportOptions options;
  options.order = static_cast<double>(state.range(0));
  if (state.range(1) != 0) {
    std::mt19937_64 rng(2);
    std::uniform_real_distribution<double> weight(0.5, 2.0);
    options.row_weights.resize(rows);
    options.col_weights.resize(cols);
    for (double& w : options.row_weights) w = weight(rng);
    for (double& w : options.col_weights) w = weight(rng);
  }
  std::string solver;
  for (auto _ : state) {
    absl::StatusOr<TransportResult> result = SolveTransport(costs, options);
    if (!result.ok()) state.SkipWithError(result.status().ToString().c_str());
    if (result.ok()) solver = std::string(TransportSolverName(result->solver));
    benchmark::DoNotOptimize(result);
  }
  state.SetLabel(absl::StrCat(state.range(1) != 0 ? "user weights" : "uniform weights", ", ",
                              dimension, "-D, ", solver));
}
BENCHMARK(BM_SolveTransport)
    ->ArgsProduct({{1, 2}, {0, 1}, {1, 3, kDimension}})
    ->Iterations(1)
    ->Unit(benchmark::kSecond);

// What the corner rule's order search and check cost where they find no order, on every
// problem of at least 64 x 64 entries that is not points on a line: 2000 x 3000 distances
// between points of 3 and 10 dimensions.
void BM_MonotoneOrderSearchOffALine(benchmark::State& state) {
  const auto dimension = static_cast<size_t>(state.range(0));
  const CostMatrix costs = test_data::MetricCosts(2000, 3000, dimension, 1);
  const auto largest = static_cast<size_t>(
      std::max_element(costs.values.begin(), costs.values.end()) - costs.values.begin());
  state.SetLabel(absl::StrCat(dimension, "-D"));
  for (auto _ : state) {
    std::optional<MonotoneOrder> order = FindMonotoneOrder(costs, costs, largest, 0.0);
    if (order.has_value()) state.SkipWithError("found an order off a line");
    benchmark::DoNotOptimize(order);
  }
}
BENCHMARK(BM_MonotoneOrderSearchOffALine)->Arg(3)->Arg(kDimension)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace wasserwarp

BENCHMARK_MAIN();
