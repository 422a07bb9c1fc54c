// Solver timings at the sizes the targets are stated for: assignment at
// n = 1000 and 2000 (scipy's linear_sum_assignment takes about 0.08 s and
// 0.8 s there on metric costs), network simplex at 2000 x 3000 (target 2 s),
// the latter under each LEMON pivot rule, with and without arc mixing, to
// justify the defaults of NetworkSimplexOptions.

#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "absl/strings/str_cat.h"
#include "network_simplex.h"
#include "random_costs.h"
#include "wasserwarp/assignment.h"
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

void BM_NetworkSimplex(benchmark::State& state) {
  const size_t rows = 2000;
  const size_t cols = 3000;
  const CostMatrix costs = Costs(kMetric, rows, cols);
  NetworkSimplexOptions options;
  options.pivot_rule = static_cast<PivotRule>(state.range(0));
  options.arc_mixing = state.range(1) != 0;
  state.SetLabel(absl::StrCat(options.pivot_rule == PivotRule::kBlockSearch     ? "block_search"
                              : options.pivot_rule == PivotRule::kCandidateList ? "candidate_list"
                                                                                : "altering_list",
                              options.arc_mixing ? ", arc mixing" : ""));
  const std::vector<int64_t> supply(rows, cols);
  const std::vector<int64_t> demand(cols, rows);
  for (auto _ : state) {
    absl::StatusOr<NetworkSimplexSolution> result =
        SolveNetworkSimplex(costs, supply, demand, options);
    if (!result.ok()) state.SkipWithError(result.status().ToString().c_str());
    benchmark::DoNotOptimize(result);
  }
}
BENCHMARK(BM_NetworkSimplex)
    ->ArgsProduct({{static_cast<int>(PivotRule::kBlockSearch),
                    static_cast<int>(PivotRule::kCandidateList),
                    static_cast<int>(PivotRule::kAlteringList)},
                   {0, 1}})
    ->Iterations(1)
    ->Unit(benchmark::kSecond);

// End to end, with weights, powering, dual refinement and certification.
void BM_SolveTransport(benchmark::State& state) {
  const size_t rows = 2000;
  const size_t cols = 3000;
  const CostMatrix costs = Costs(kMetric, rows, cols);
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
  state.SetLabel(state.range(1) != 0 ? "user weights" : "uniform weights");
  for (auto _ : state) {
    absl::StatusOr<TransportResult> result = SolveTransport(costs, options);
    if (!result.ok()) state.SkipWithError(result.status().ToString().c_str());
    benchmark::DoNotOptimize(result);
  }
}
BENCHMARK(BM_SolveTransport)
    ->ArgsProduct({{1, 2}, {0, 1}})
    ->Iterations(1)
    ->Unit(benchmark::kSecond);

}  // namespace
}  // namespace wasserwarp

BENCHMARK_MAIN();
