// TWED throughput as time per DP cell (the "time_per_cell" counter), of the
// scalar kernel (one pair, as Twed() computes it) and of the SIMD kernel
// under each dispatch target (one series against a vector of others, as the
// cost matrix computes them; the speed-up is the ratio of the two); of the single-precision
// lower bound on the same lanes; and of the pruned TwedWithin, against BM_Twed at the same length.
//   twed_bench --benchmark_filter='BM_Twed(Batch_AVX3)?/1000/1$'
//   twed_bench --benchmark_filter='BM_Twed(Within)?/2000/'

#include <benchmark/benchmark.h>

#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "random_runs.h"
#include "twed/twed_batch.h"
#include "twed/twed_pruned.h"
#include "twed/twed_quantized.h"
#include "twed/twed_single.h"
#include "wasserwarp/cost_matrix.h"
#include "wasserwarp/series.h"
#include "wasserwarp/twed.h"

namespace wasserwarp {
namespace {

// Seconds per DP cell (CPU time); the console shows it with an SI prefix, as in "1.6ns".
void SetTimePerCell(benchmark::State& state, uint64_t cells) {
  state.counters["time_per_cell"] =
      benchmark::Counter(static_cast<double>(cells), benchmark::Counter::kIsIterationInvariantRate |
                                                         benchmark::Counter::kInvert);
}

TwedParams BenchParams() {
  TwedParams params;
  params.nu = 0.001;
  params.lambda = 1.0;
  params.p = 2.0;
  return params;
}

// Arguments: series length, channels.
void BM_Twed(benchmark::State& state) {
  std::mt19937_64 rng(42);
  const Series a = test_data::RandomWalkRun(rng, "a", state.range(0), state.range(1), {0.05, 0.15});
  const Series b = test_data::RandomWalkRun(rng, "b", state.range(0), state.range(1), {0.05, 0.15});
  const TwedParams params = BenchParams();
  for (auto _ : state) benchmark::DoNotOptimize(Twed(a, b, params));
  SetTimePerCell(state, TwedCells(a, b));
}
BENCHMARK(BM_Twed)->ArgsProduct({{100, 1000, 2000, 10000}, {1, 3}});

// Arguments: series length, channels, threshold as a percentage of the distance (0: +inf), and
// the pair: 0 BM_Twed's two independent walks, 1 a walk against a noisy, 1% slower copy of
// itself (a near neighbour, where a threshold from the nearest so far prunes). The counters
// "cells_per_second" and "time_per_cell" count the cells evaluated, so that at +inf they compare
// with BM_Twed's per-cell speed; "cell_fraction" is their share of n * m.
void BM_TwedWithin(benchmark::State& state) {
  std::mt19937_64 rng(42);
  const Series a = test_data::RandomWalkRun(rng, "a", state.range(0), state.range(1), {0.05, 0.15});
  Series b = test_data::RandomWalkRun(rng, "b", state.range(0), state.range(1), {0.05, 0.15});
  if (state.range(3) == 1) {
    b = a;
    std::normal_distribution<double> noise(0.0, 0.2);
    for (double& v : b.values) v += noise(rng);
    for (double& t : b.times) t *= 1.01;
  }
  const TwedParams params = BenchParams();
  const double threshold = state.range(2) == 0
                               ? std::numeric_limits<double>::infinity()
                               : *Twed(a, b, params) * static_cast<double>(state.range(2)) / 100.0;
  uint64_t cells = 0;
  for (auto _ : state) {
    const absl::StatusOr<BoundedTwed> result = TwedWithin(a, b, params, threshold);
    benchmark::DoNotOptimize(result);
    cells = result->cells;
  }
  SetTimePerCell(state, cells);
  state.counters["cells_per_second"] =
      benchmark::Counter(static_cast<double>(cells), benchmark::Counter::kIsIterationInvariantRate);
  state.counters["cell_fraction"] =
      static_cast<double>(cells) / static_cast<double>(TwedCells(a, b));
}
BENCHMARK(BM_TwedWithin)->ArgsProduct({{2000}, {1, 3}, {0, 105, 70}, {0, 1}});

// One series against `lanes` series of the same length, as the lane kernels take them, from
// BM_Twed's arguments.
struct LaneRuns {
  Series a;
  std::vector<Series> b;
  std::vector<const Series*> pointers;
};

LaneRuns MakeLaneRuns(const benchmark::State& state, size_t lanes) {
  std::mt19937_64 rng(42);
  LaneRuns runs{
      test_data::RandomWalkRun(rng, "a", state.range(0), state.range(1), {0.05, 0.15}), {}, {}};
  for (size_t k = 0; k < lanes; ++k) {
    runs.b.push_back(
        test_data::RandomWalkRun(rng, "b", state.range(0), state.range(1), {0.05, 0.15}));
  }
  for (const Series& s : runs.b) runs.pointers.push_back(&s);
  return runs;
}

// Arguments as BM_Twed's; one series against BatchLanes() series of the same
// length, so cells per iteration are lanes x length^2. Registered in main()
// once per SIMD target this CPU supports, the best (which the cost matrix
// uses) first.
void BM_TwedBatch(benchmark::State& state, int64_t target) {
  twed_internal::ForceBatchTarget(target);
  const size_t lanes = twed_internal::BatchLanes();
  const LaneRuns runs = MakeLaneRuns(state, lanes);
  const TwedParams params = BenchParams();
  const twed_internal::LaneBatch batch(runs.pointers, params, lanes);
  std::vector<double> out(lanes);
  for (auto _ : state) {
    benchmark::DoNotOptimize(twed_internal::BatchTwed(runs.a, batch, params, out));
    benchmark::DoNotOptimize(out.data());
  }
  twed_internal::ForceBatchTarget(0);
  state.SetLabel(absl::StrCat(lanes, " lanes"));
  SetTimePerCell(state, lanes * TwedCells(runs.a, runs.b.front()));
}

// As BM_TwedBatch, for the single-precision lower bound (twed/twed_single.h) on SingleLanes()
// series: its time per cell against BM_TwedBatch's is what it saves the lazy transport.
void BM_TwedSingle(benchmark::State& state, int64_t target) {
  twed_internal::ForceBatchTarget(target);
  const size_t lanes = twed_internal::SingleLanes();
  const LaneRuns runs = MakeLaneRuns(state, lanes);
  const TwedParams params = BenchParams();
  const twed_internal::SingleOrigin origin = twed_internal::OriginAt(runs.a);
  std::vector<twed_internal::SingleRun> single;
  for (const Series& s : runs.b) single.push_back(twed_internal::ToSingleRun(s, origin, params));
  std::vector<const twed_internal::SingleRun*> pointers;
  for (const twed_internal::SingleRun& run : single) pointers.push_back(&run);
  const twed_internal::SingleLaneBatch batch(pointers, lanes);
  const twed_internal::SingleRun row = twed_internal::ToSingleRun(runs.a, origin, params);
  std::vector<double> out(lanes);
  for (auto _ : state) {
    benchmark::DoNotOptimize(twed_internal::SingleTwedBound(row, batch, params, out));
    benchmark::DoNotOptimize(out.data());
  }
  twed_internal::ForceBatchTarget(0);
  state.SetLabel(absl::StrCat(lanes, " lanes"));
  SetTimePerCell(state, lanes * TwedCells(runs.a, runs.b.front()));
}

// As BM_TwedBatch, for the 16-bit lower bound (twed/twed_quantized.h) on QuantizedLanes() pairs,
// the grid put up once outside the loop; L1 where there are several channels, the norm it takes.
void BM_TwedQuantized(benchmark::State& state, int64_t target) {
  twed_internal::ForceBatchTarget(target);
  const size_t lanes = twed_internal::QuantizedLanes();
  const LaneRuns runs = MakeLaneRuns(state, lanes);
  TwedParams params = BenchParams();
  params.p = 1.0;
  const std::vector<const Series*> rows(lanes, &runs.a);
  const twed_internal::QuantizedLaneBatch batch(rows, runs.pointers, params, lanes);
  std::vector<twed_internal::QuantizedBound> out(lanes);
  for (auto _ : state) {
    benchmark::DoNotOptimize(twed_internal::QuantizedTwedBound(batch, out));
    benchmark::DoNotOptimize(out.data());
  }
  twed_internal::ForceBatchTarget(0);
  state.SetLabel(absl::StrCat(lanes, " lanes"));
  SetTimePerCell(state, lanes * TwedCells(runs.a, runs.b.front()));
}

void BM_TwedWithPath(benchmark::State& state) {
  std::mt19937_64 rng(42);
  const Series a = test_data::RandomWalkRun(rng, "a", state.range(0), state.range(1), {0.05, 0.15});
  const Series b = test_data::RandomWalkRun(rng, "b", state.range(0), state.range(1), {0.05, 0.15});
  const TwedParams params = BenchParams();
  for (auto _ : state) benchmark::DoNotOptimize(TwedWithPath(a, b, params));
  SetTimePerCell(state, TwedCells(a, b));
}
BENCHMARK(BM_TwedWithPath)->Args({1000, 1})->Args({1000, 3});

// Arguments: runs on each side, samples per run, channels. The whole cost matrix of many short
// runs, where the work around each batch of pairs (its scratch arrays, the row's deletion costs)
// weighs as much as the DP; "time_per_pair" is wall time over every thread.
void BM_CostMatrixShortRuns(benchmark::State& state) {
  const size_t runs = state.range(0);
  const size_t samples = state.range(1);
  const size_t channels = state.range(2);
  const std::vector<Series> sim =
      test_data::RandomWalkRuns("sim", runs, samples, samples, channels, 1);
  const std::vector<Series> ref =
      test_data::RandomWalkRuns("ref", runs, samples, samples, channels, 2);
  const TwedParams params = BenchParams();
  for (auto _ : state) {
    absl::StatusOr<CostMatrix> costs = ComputeCostMatrix(sim, ref, params);
    if (!costs.ok()) state.SkipWithError(costs.status().ToString().c_str());
    benchmark::DoNotOptimize(costs);
  }
  state.counters["time_per_pair"] = benchmark::Counter(
      static_cast<double>(runs * runs),
      benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_CostMatrixShortRuns)
    ->ArgsProduct({{2000}, {1, 10}, {1, 3}})
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace wasserwarp

int main(int argc, char** argv) {
  for (const wasserwarp::twed_internal::BatchTarget& target :
       wasserwarp::twed_internal::AvailableBatchTargets()) {
    wasserwarp::twed_internal::ForceBatchTarget(target.id);
    const bool has_lanes = wasserwarp::twed_internal::BatchLanes() > 0;
    wasserwarp::twed_internal::ForceBatchTarget(0);
    if (!has_lanes) continue;
    benchmark::RegisterBenchmark(("BM_TwedBatch_" + target.name).c_str(), wasserwarp::BM_TwedBatch,
                                 target.id)
        ->ArgsProduct({{100, 1000, 10000}, {1, 3}});
    benchmark::RegisterBenchmark(("BM_TwedSingle_" + target.name).c_str(),
                                 wasserwarp::BM_TwedSingle, target.id)
        ->ArgsProduct({{100, 1000, 10000}, {1, 3}});
    benchmark::RegisterBenchmark(("BM_TwedQuantized_" + target.name).c_str(),
                                 wasserwarp::BM_TwedQuantized, target.id)
        ->ArgsProduct({{100, 1000, 10000}, {1, 3}});
  }
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
}
