// The classic metrics of one matched pair at the length of a long manoeuvre
// log: two 3-channel runs of `samples` samples at different irregular rates,
// the lag search's FFT included. And the ISO/TS 18571 rating of one channel of one pair
// (issue 42), whose banded DTW grows as n^2 / 5: its time per pair at 2 000 and 20 000
// samples, which with a plan's at most n + m - 1 pairs gives its share of a validation.

#include <benchmark/benchmark.h>

#include <cstdint>
#include <random>
#include <vector>

#include "random_runs.h"
#include "wasserwarp/iso18571.h"
#include "wasserwarp/pair_metrics.h"
#include "wasserwarp/series.h"

namespace wasserwarp {
namespace {

void BM_CompareMatchedPair(benchmark::State& state) {
  const auto samples = static_cast<size_t>(state.range(0));
  std::mt19937_64 rng(1);
  const Series sim = test_data::RandomWalkRun(rng, "sim", samples, 3, {0.004, 0.012, 0.0});
  const Series ref = test_data::RandomWalkRun(rng, "ref", samples, 3);
  for (auto _ : state) {
    std::vector<ChannelMetrics> metrics = CompareMatchedPair(sim, ref);
    benchmark::DoNotOptimize(metrics);
  }
}
BENCHMARK(BM_CompareMatchedPair)->Arg(10000)->Arg(100000)->Unit(benchmark::kMillisecond);

// One channel: both runs irregularly sampled at the same mean rate, so the pair is
// interpolated onto a grid of about `samples` points as it would be in a validation.
void BM_RateMatchedPair(benchmark::State& state) {
  const auto samples = static_cast<size_t>(state.range(0));
  std::mt19937_64 rng(1);
  const Series sim = test_data::RandomWalkRun(rng, "sim", samples, 1);
  const Series ref = test_data::RandomWalkRun(rng, "ref", samples, 1);
  uint64_t grid = 0;
  for (auto _ : state) {
    std::vector<Iso18571Rating> ratings = RateMatchedPair(sim, ref);
    grid = ratings.front().samples;
    benchmark::DoNotOptimize(ratings);
  }
  state.counters["grid_samples"] = static_cast<double>(grid);
  state.counters["dtw_cells"] = static_cast<double>(Iso18571DtwCells(grid));
}
BENCHMARK(BM_RateMatchedPair)->Arg(2000)->Arg(20000)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace wasserwarp

BENCHMARK_MAIN();
