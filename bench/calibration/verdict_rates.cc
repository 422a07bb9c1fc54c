#include "calibration/verdict_rates.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "absl/status/statusor.h"
#include "tbb/parallel_for.h"
#include "wasserwarp/validation.h"

namespace wasserwarp::calibration {
namespace {

uint64_t RepetitionSeed(uint64_t seed, int condition, int repetition) {
  return seed * 1'000'003ULL + static_cast<uint64_t>(condition) * 100'003ULL +
         static_cast<uint64_t>(repetition);
}

struct Outcome {
  double p_value = 1.0;
  double ratio = 0.0;
  double interval_hi = 0.0;
};

Outcome Repeat(const VerdictCondition& condition, uint64_t seed, const VerdictSettings& settings) {
  NormalStream stream(seed);
  const std::vector<Series> simulation =
      MakeRuns("sim", condition.runs, condition.simulation_rate, condition.error, stream);
  const std::vector<Series> reference =
      MakeRuns("ref", condition.runs, condition.reference_rate, {}, stream);
  ValidationOptions options;
  options.twed.lambda = settings.lambda;
  options.compute.max_threads = 1;  // the repetitions run in parallel
  VerdictOptions verdict;
  verdict.permutations = settings.permutations;
  verdict.seed = seed;
  options.verdict = verdict;
  absl::StatusOr<ValidationReport> report = Validate(simulation, reference, options);
  if (!report.ok()) {
    std::fprintf(stderr, "calibration: %s\n", report.status().ToString().c_str());
    std::exit(1);
  }
  const Verdict& v = *report->verdict;
  return {.p_value = v.p_value,
          .ratio = v.baseline->ratio,
          .interval_hi = v.baseline->ratio_interval_hi};
}

// Kolmogorov's limit: P(sqrt(n) D > c) = 0.001 at c = 1.949.
constexpr double kKolmogorov001 = 1.949;

double KsDistance(std::vector<double> p_values) {
  std::sort(p_values.begin(), p_values.end());
  const double n = static_cast<double>(p_values.size());
  double distance = 0.0;
  for (size_t i = 0; i < p_values.size(); ++i) {
    const double above = static_cast<double>(i + 1) / n - p_values[i];
    const double below = p_values[i] - static_cast<double>(i) / n;
    distance = std::max({distance, above, below});
  }
  return distance;
}

}  // namespace

VerdictRates MeasureVerdict(const VerdictCondition& condition, int condition_index,
                            const VerdictSettings& settings) {
  std::vector<Outcome> outcomes(static_cast<size_t>(settings.repetitions));
  tbb::parallel_for(0, settings.repetitions, [&](int r) {
    outcomes[r] = Repeat(condition, RepetitionSeed(settings.seed, condition_index, r), settings);
  });
  VerdictRates rates;
  std::vector<double> p_values;
  std::vector<double> ratios;
  for (const Outcome& outcome : outcomes) {
    rates.test_fail += outcome.p_value < settings.alpha;
    rates.interval_fail += outcome.interval_hi > settings.max_ratio;
    rates.median_fail += outcome.ratio > settings.max_ratio;
    rates.mean_p += outcome.p_value;
    p_values.push_back(outcome.p_value);
    ratios.push_back(outcome.ratio);
  }
  const double n = static_cast<double>(outcomes.size());
  rates.test_fail /= n;
  rates.interval_fail /= n;
  rates.median_fail /= n;
  rates.mean_p /= n;
  std::sort(ratios.begin(), ratios.end());
  rates.median_ratio = ratios[ratios.size() / 2];
  rates.ks_distance = KsDistance(p_values);
  rates.ks_critical = kKolmogorov001 / std::sqrt(n);
  return rates;
}

std::vector<VerdictCondition> DefaultVerdictConditions() {
  struct Error {
    const char* name;
    ModelError error;
  };
  const Error errors[] = {{"none", {}},
                          {"amplitude +10 %", {.amplitude = 0.10}},
                          {"amplitude +30 %", {.amplitude = 0.30}},
                          {"phase +0.2 rad", {.phase = 0.2}},
                          {"time scale +5 %", {.time_scale = 0.05}}};
  std::vector<VerdictCondition> conditions;
  for (double reference_rate : {100.0, 130.0}) {
    for (const Error& error : errors) {
      for (int runs : {4, 6, 10, 20}) {
        conditions.push_back({.error_name = error.name,
                              .error = error.error,
                              .simulation_rate = 100.0,
                              .reference_rate = reference_rate,
                              .runs = runs});
      }
    }
  }
  return conditions;
}

}  // namespace wasserwarp::calibration
