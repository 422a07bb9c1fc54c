#include "calibration/compare_coverage.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "tbb/parallel_for.h"
#include "wasserwarp/compare.h"

namespace wasserwarp::calibration {
namespace {

struct Variants {
  std::vector<Series> a;
  std::vector<Series> b;
  std::vector<Series> reference;
};

Variants Draw(const CompareCondition& condition, uint64_t seed) {
  NormalStream stream(seed);
  Variants variants;
  for (int i = 0; i < condition.runs; ++i) {
    const RunDraws draws = DrawRun(stream);
    // Paired variants share the run's draws (the simulator's random inputs); each still has
    // its own sample noise, so that two variants of one model differ as two runs would.
    RunDraws draws_b = DrawRun(stream);
    if (condition.paired)
      draws_b = {.amplitude = draws.amplitude,
                 .phase = draws.phase,
                 .time_scale = draws.time_scale,
                 .noise_seed = draws_b.noise_seed};
    const std::string id = absl::StrCat("run_", i);
    variants.a.push_back(
        MakeRun(condition.paired ? id : absl::StrCat("a_", i), 100.0, draws, condition.error_a));
    variants.b.push_back(
        MakeRun(condition.paired ? id : absl::StrCat("b_", i), 100.0, draws_b, condition.error_b));
  }
  variants.reference = MakeRuns("ref", condition.runs, 100.0, {}, stream);
  return variants;
}

absl::StatusOr<ComparisonReport> Compare(const Variants& variants, uint64_t seed,
                                         const CompareSettings& settings) {
  CompareOptions options;
  options.twed.lambda = 0.3;
  options.resamples = settings.resamples;
  options.confidence = settings.confidence;
  options.seed = seed;
  options.compute.max_threads = 1;  // the repetitions run in parallel
  return CompareVariants(variants.a, variants.b, variants.reference, options);
}

ComparisonReport CompareOrExit(const Variants& variants, uint64_t seed,
                               const CompareSettings& settings) {
  absl::StatusOr<ComparisonReport> report = Compare(variants, seed, settings);
  if (!report.ok()) {
    std::fprintf(stderr, "calibration: %s\n", report.status().ToString().c_str());
    std::exit(1);
  }
  return *report;
}

uint64_t Seed(uint64_t seed, int condition, int repetition, uint64_t stream) {
  return seed * 1'000'003ULL + stream * 10'000'019ULL +
         static_cast<uint64_t>(condition) * 100'003ULL + static_cast<uint64_t>(repetition);
}

}  // namespace

CompareCoverage MeasureCompare(const CompareCondition& condition, int condition_index,
                               const CompareSettings& settings) {
  CompareSettings one_resample = settings;
  one_resample.resamples = 1;
  std::vector<double> differences(static_cast<size_t>(settings.truth_repetitions));
  tbb::parallel_for(0, settings.truth_repetitions, [&](int r) {
    const uint64_t seed = Seed(settings.seed, condition_index, r, 1);
    differences[r] = CompareOrExit(Draw(condition, seed), seed, one_resample).difference;
  });
  std::vector<ComparisonReport> reports(static_cast<size_t>(settings.repetitions));
  tbb::parallel_for(0, settings.repetitions, [&](int r) {
    const uint64_t seed = Seed(settings.seed, condition_index, r, 2);
    reports[r] = CompareOrExit(Draw(condition, seed), seed, settings);
  });

  CompareCoverage coverage;
  for (double difference : differences) coverage.true_difference += difference;
  coverage.true_difference /= static_cast<double>(differences.size());
  std::sort(differences.begin(), differences.end());
  const double tail = (1.0 - settings.confidence) / 2.0;
  const auto quantile = [&](double p) {
    return differences[static_cast<size_t>(p * static_cast<double>(differences.size() - 1))];
  };
  coverage.ideal_width = quantile(1.0 - tail) - quantile(tail);
  for (const ComparisonReport& report : reports) {
    const double truth = coverage.true_difference;
    coverage.coverage += report.interval_lo <= truth && truth <= report.interval_hi;
    coverage.below += report.interval_hi < truth;
    coverage.above += report.interval_lo > truth;
    coverage.mean_width += report.interval_hi - report.interval_lo;
  }
  const double n = static_cast<double>(reports.size());
  coverage.coverage /= n;
  coverage.below /= n;
  coverage.above /= n;
  coverage.mean_width /= n;
  return coverage;
}

std::vector<CompareCondition> DefaultCompareConditions() {
  const ModelError none;
  const ModelError amplitude_10{.amplitude = 0.10};
  const ModelError amplitude_30{.amplitude = 0.30};
  return {{"both match, paired", none, none, true},
          {"B amplitude +10 %, paired", none, amplitude_10, true},
          {"B amplitude +30 %, paired", none, amplitude_30, true},
          {"both match, independent", none, none, false},
          {"B amplitude +10 %, independent", none, amplitude_10, false}};
}

}  // namespace wasserwarp::calibration
