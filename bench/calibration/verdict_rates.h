// How often the verdict's rules FAIL on runs of calibration/run_generator.h: the false-FAIL
// rate when simulations and references come from one generator, the detection rate when the
// simulations carry a model error.

#ifndef WASSERWARP_BENCH_CALIBRATION_VERDICT_RATES_H_
#define WASSERWARP_BENCH_CALIBRATION_VERDICT_RATES_H_

#include <cstdint>
#include <string>
#include <vector>

#include "calibration/run_generator.h"

namespace wasserwarp::calibration {

struct VerdictCondition {
  std::string error_name;  // "none" for no difference
  ModelError error;
  double simulation_rate = 100.0;  // Hz
  double reference_rate = 100.0;
  int runs = 10;  // simulated runs and reference runs each
};

struct VerdictSettings {
  int repetitions = 100;
  int permutations = 199;
  double alpha = 0.05;
  double max_ratio = 1.5;
  double lambda = 0.3;  // the review's --lambda
  uint64_t seed = 1;
};

struct VerdictRates {
  double test_fail = 0.0;      // p < alpha
  double interval_fail = 0.0;  // the ratio interval's upper end > max_ratio
  double median_fail = 0.0;    // the median ratio > max_ratio (--ratio-rule median)
  double mean_p = 0.0;
  double median_ratio = 0.0;
  // The largest gap between the p-values' empirical distribution and the uniform one, and
  // the gap that a uniform sample of this size exceeds with probability 0.001.
  double ks_distance = 0.0;
  double ks_critical = 0.0;
};

// Every repetition draws new runs from `settings.seed` and the condition's place in the
// table, so each row is reproducible alone.
VerdictRates MeasureVerdict(const VerdictCondition& condition, int condition_index,
                            const VerdictSettings& settings);

// The default table of docs/verdict.md: no error, amplitude, phase and time-scale errors, at
// equal and unequal rates, with 4, 6, 10 and 20 runs a side.
std::vector<VerdictCondition> DefaultVerdictConditions();

}  // namespace wasserwarp::calibration

#endif  // WASSERWARP_BENCH_CALIBRATION_VERDICT_RATES_H_
