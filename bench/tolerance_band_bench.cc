// One tolerance band on one matched pair at the length of a long manoeuvre log: the envelope's
// sliding-window minimum and maximum and the score, for a window of a few and of many samples
// (the cost should not grow with the window).

#include <benchmark/benchmark.h>

#include <cstdint>
#include <random>

#include "random_runs.h"
#include "wasserwarp/series.h"
#include "wasserwarp/tolerance_band.h"

namespace wasserwarp {
namespace {

void BM_ScoreToleranceBand(benchmark::State& state) {
  const auto samples = static_cast<size_t>(state.range(0));
  std::mt19937_64 rng(1);
  const Series sim = test_data::RandomWalkRun(rng, "sim", samples, 3, {0.004, 0.012, 0.0});
  const Series ref = test_data::RandomWalkRun(rng, "ref", samples, 3);
  // The window as a share of the run's duration, in thousandths.
  const double window =
      static_cast<double>(state.range(1)) / 1000.0 * (ref.times.back() - ref.times.front());
  const ToleranceBand band{
      .channel = ref.channels[0], .abs = 0.1, .rel = 0.05, .lead = window, .lag = window};
  for (auto _ : state) {
    BandScore score = ScoreToleranceBand(sim, ref, 0, 1.0, band);
    benchmark::DoNotOptimize(score);
  }
}
BENCHMARK(BM_ScoreToleranceBand)
    ->Args({10000, 1})
    ->Args({10000, 100})
    ->Args({100000, 1})
    ->Args({100000, 100})
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace wasserwarp

BENCHMARK_MAIN();
