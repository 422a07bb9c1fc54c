// Identification over 21 design points x 10 trials against 20 references, against what it
// replaces: 21 separate validations, one per point, without and with a verdict (whose
// baseline spread is what a study compares W with). Runs of 400 samples, one channel; DP cells
// and wall time per study.

#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "random_runs.h"
#include "wasserwarp/identification.h"
#include "wasserwarp/parameter_study.h"
#include "wasserwarp/study_costs.h"
#include "wasserwarp/validation.h"

namespace wasserwarp {
namespace {

constexpr size_t kPoints = 21;
constexpr size_t kTrials = 10;
constexpr size_t kReferences = 20;
constexpr size_t kSamples = 400;

struct Study {
  std::vector<Series> simulation;
  std::vector<Series> reference;
  StudyDesign design;
  std::vector<std::vector<Series>> point_runs;
};

Study MakeStudy() {
  Study study;
  study.simulation = test_data::RandomWalkRuns("sim", kPoints * kTrials, kSamples, kSamples, 1, 1);
  study.reference = test_data::RandomWalkRuns("ref", kReferences, kSamples, kSamples, 1, 2);
  study.design.names = {"h"};
  study.design.has_trials = true;
  study.design.simulation_runs = study.simulation.size();
  for (size_t p = 0; p < kPoints; ++p) {
    DesignPoint point{.parameters = {static_cast<double>(p)}};
    std::vector<Series>& runs = study.point_runs.emplace_back();
    for (size_t t = 0; t < kTrials; ++t) {
      point.runs.push_back(p * kTrials + t);
      point.trials.push_back(absl::StrCat("t", t));
      runs.push_back(study.simulation[p * kTrials + t]);
    }
    study.design.points.push_back(point);
  }
  return study;
}

const Study& TheStudy() {
  static const Study* study = new Study(MakeStudy());
  return *study;
}

void BM_Identify(benchmark::State& state) {
  const Study& study = TheStudy();
  uint64_t cells = 0;
  for (auto _ : state) {
    absl::StatusOr<StudyCosts> costs =
        ComputeStudyCosts(study.simulation, study.reference, ValidationOptions());
    if (!costs.ok()) {
      state.SkipWithError(std::string(costs.status().message()).c_str());
      return;
    }
    absl::StatusOr<IdentificationReport> report = Identify(study.design, *costs, {});
    if (!report.ok()) {
      state.SkipWithError(std::string(report.status().message()).c_str());
      return;
    }
    cells = report->summary.dp_cells;
    benchmark::DoNotOptimize(report->identified);
  }
  state.counters["dp_cells"] = static_cast<double>(cells);
}

// One validation per point; with a verdict each also computes its sim-sim and ref-ref pairs.
void BM_SeparateValidations(benchmark::State& state) {
  const Study& study = TheStudy();
  ValidationOptions options;
  if (state.range(0) == 1) options.verdict = VerdictOptions{};
  uint64_t cells = 0;
  for (auto _ : state) {
    cells = 0;
    for (const std::vector<Series>& runs : study.point_runs) {
      absl::StatusOr<ValidationReport> report = Validate(runs, study.reference, options);
      if (!report.ok()) {
        state.SkipWithError(std::string(report.status().message()).c_str());
        return;
      }
      cells += report->dp_cells;
      benchmark::DoNotOptimize(report->distance);
    }
  }
  state.counters["dp_cells"] = static_cast<double>(cells);
}

BENCHMARK(BM_Identify)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_SeparateValidations)
    ->ArgName("verdict")
    ->Arg(0)
    ->Arg(1)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace
}  // namespace wasserwarp

BENCHMARK_MAIN();
