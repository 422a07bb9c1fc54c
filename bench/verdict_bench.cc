// The verdict's cost on 100 simulated and 100 reference runs of 1000
// samples, one channel: the pooled matrix (given the sim-ref block that the
// validation already has), then the permutation test and baseline at K = 999
// with a rule of each kind.

#include <benchmark/benchmark.h>

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "random_runs.h"
#include "wasserwarp/cost_matrix.h"
#include "wasserwarp/verdict.h"

namespace wasserwarp {
namespace {

constexpr size_t kRuns = 100;
constexpr size_t kSamples = 1000;

struct Workload {
  const test_data::RunSets runs = test_data::RandomRunSets(kRuns, kSamples, 1);
  TwedParams params;
  std::optional<CostMatrix> sim_ref;
  std::optional<CostMatrix> pooled;
};

Workload& TheWorkload() {
  static Workload workload;
  return workload;
}

const CostMatrix* SimRef(Workload& workload) {
  if (!workload.sim_ref) {
    absl::StatusOr<CostMatrix> sim_ref =
        ComputeCostMatrix(workload.runs.simulation, workload.runs.reference, workload.params);
    if (!sim_ref.ok()) return nullptr;
    workload.sim_ref = *std::move(sim_ref);
  }
  return &*workload.sim_ref;
}

const CostMatrix* Pooled(Workload& workload) {
  if (!workload.pooled) {
    const CostMatrix* sim_ref = SimRef(workload);
    if (sim_ref == nullptr) return nullptr;
    absl::StatusOr<CostMatrix> pooled = ComputePooledCostMatrix(
        workload.runs.simulation, workload.runs.reference, workload.params, {}, sim_ref);
    if (!pooled.ok()) return nullptr;
    workload.pooled = *std::move(pooled);
  }
  return &*workload.pooled;
}

// The validation's own n x m matrix, which the pooled one reuses: timed for
// a comparison of throughput, since it has to be computed anyway.
void BM_SimRefCostMatrix(benchmark::State& state) {
  Workload& workload = TheWorkload();
  const uint64_t cells = uint64_t{kRuns} * kRuns * kSamples * kSamples;
  for (auto _ : state) {
    absl::StatusOr<CostMatrix> sim_ref =
        ComputeCostMatrix(workload.runs.simulation, workload.runs.reference, workload.params);
    if (!sim_ref.ok()) {
      state.SkipWithError(std::string(sim_ref.status().message()).c_str());
      return;
    }
    workload.sim_ref = *std::move(sim_ref);
  }
  state.counters["cells_per_s"] =
      benchmark::Counter(static_cast<double>(cells), benchmark::Counter::kIsIterationInvariantRate);
}

void BM_PooledCostMatrix(benchmark::State& state) {
  Workload& workload = TheWorkload();
  const CostMatrix* sim_ref = SimRef(workload);
  if (sim_ref == nullptr) {
    state.SkipWithError("the sim-ref cost matrix failed");
    return;
  }
  uint64_t cells = 0;
  CostMatrixOptions options;
  options.progress = [&](const CostMatrixProgress& progress) { cells = progress.cells_total; };
  for (auto _ : state) {
    absl::StatusOr<CostMatrix> pooled = ComputePooledCostMatrix(
        workload.runs.simulation, workload.runs.reference, workload.params, options, sim_ref);
    if (!pooled.ok()) {
      state.SkipWithError(std::string(pooled.status().message()).c_str());
      return;
    }
    workload.pooled = *std::move(pooled);
  }
  state.counters["cells_per_s"] =
      benchmark::Counter(static_cast<double>(cells), benchmark::Counter::kIsIterationInvariantRate);
}

void BM_DecideVerdict(benchmark::State& state) {
  Workload& workload = TheWorkload();
  const CostMatrix* pooled = Pooled(workload);
  if (pooled == nullptr) {
    state.SkipWithError("the pooled cost matrix failed");
    return;
  }
  VerdictOptions options;
  options.permutations = static_cast<int>(state.range(0));
  options.max_distance = 1e9;
  options.max_ratio = 1.5;
  options.alpha = 0.05;
  uint64_t solves = 0;
  VerdictContext context;
  context.progress = [&](const ResamplingProgress& progress) { solves = progress.total; };
  for (auto _ : state) {
    absl::StatusOr<Verdict> verdict = DecideVerdict(*pooled, kRuns, 0.0, 1.0, options, context);
    if (!verdict.ok()) {
      state.SkipWithError(std::string(verdict.status().message()).c_str());
      return;
    }
    benchmark::DoNotOptimize(verdict->p_value);
  }
  state.counters["solves_per_s"] = benchmark::Counter(
      static_cast<double>(solves), benchmark::Counter::kIsIterationInvariantRate);
}

BENCHMARK(BM_SimRefCostMatrix)->Unit(benchmark::kSecond)->Iterations(1)->UseRealTime();
BENCHMARK(BM_PooledCostMatrix)->Unit(benchmark::kSecond)->Iterations(1)->UseRealTime();
BENCHMARK(BM_DecideVerdict)
    ->Arg(999)
    ->ArgName("permutations")
    ->Unit(benchmark::kSecond)
    ->Iterations(1)
    ->UseRealTime();

}  // namespace
}  // namespace wasserwarp

BENCHMARK_MAIN();
