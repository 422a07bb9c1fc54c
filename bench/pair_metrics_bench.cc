// The classic metrics of one matched pair at the length of a long manoeuvre
// log: two 3-channel runs of `samples` samples at different irregular rates,
// the lag search's FFT included.

#include <benchmark/benchmark.h>

#include <cstdint>
#include <random>
#include <vector>

#include "random_runs.h"
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

}  // namespace
}  // namespace wasserwarp

BENCHMARK_MAIN();
