// TWED throughput as time per DP cell (the "time_per_cell" counter).
//   twed_bench --benchmark_filter=BM_Twed/1000/1

#include <benchmark/benchmark.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "random_runs.h"
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
BENCHMARK(BM_Twed)->ArgsProduct({{100, 1000, 10000}, {1, 3}});

void BM_TwedWithPath(benchmark::State& state) {
  std::mt19937_64 rng(42);
  const Series a = test_data::RandomWalkRun(rng, "a", state.range(0), state.range(1), {0.05, 0.15});
  const Series b = test_data::RandomWalkRun(rng, "b", state.range(0), state.range(1), {0.05, 0.15});
  const TwedParams params = BenchParams();
  for (auto _ : state) benchmark::DoNotOptimize(TwedWithPath(a, b, params));
  SetTimePerCell(state, TwedCells(a, b));
}
BENCHMARK(BM_TwedWithPath)->Args({1000, 1})->Args({1000, 3});

}  // namespace
}  // namespace wasserwarp

BENCHMARK_MAIN();
