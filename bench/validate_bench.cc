// The whole validation of 100 x 100 runs of 1000 samples (one channel, and
// three), as the CLI runs it: time and peak resident memory.

#include <benchmark/benchmark.h>

#include <fstream>
#include <string>
#include <vector>

#include "random_runs.h"
#include "wasserwarp/validation.h"

namespace wasserwarp {
namespace {

// VmHWM: the peak resident set of this process so far, in MiB.
double PeakResidentMiB() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmHWM:", 0) == 0) return std::stod(line.substr(6)) / 1024.0;
  }
  return 0.0;
}

void BM_Validate(benchmark::State& state) {
  const size_t runs = state.range(0);
  const size_t samples = state.range(1);
  const size_t channels = state.range(2);
  const test_data::RunSets run_sets = test_data::RandomRunSets(runs, samples, channels);
  ValidationOptions options;
  uint64_t cells = 0;
  for (auto _ : state) {
    absl::StatusOr<ValidationReport> report =
        Validate(run_sets.simulation, run_sets.reference, options);
    if (!report.ok()) {
      state.SkipWithError(std::string(report.status().message()).c_str());
      return;
    }
    cells = report->dp_cells;
    benchmark::DoNotOptimize(report->distance);
  }
  state.counters["cells_per_s"] =
      benchmark::Counter(static_cast<double>(cells), benchmark::Counter::kIsIterationInvariantRate);
  state.counters["peak_MiB"] = PeakResidentMiB();
}

BENCHMARK(BM_Validate)
    ->Args({100, 1000, 1})
    ->Args({100, 1000, 3})
    ->ArgNames({"runs", "samples", "channels"})
    ->Unit(benchmark::kSecond)
    ->Iterations(1)
    ->UseRealTime();

}  // namespace
}  // namespace wasserwarp

BENCHMARK_MAIN();
