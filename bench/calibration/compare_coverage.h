// How often compare's interval for W_a - W_b covers the true difference, on runs of
// calibration/run_generator.h. The true difference is the mean of W_a - W_b over fresh data
// sets of the same sizes, which the interval estimates.

#ifndef WASSERWARP_BENCH_CALIBRATION_COMPARE_COVERAGE_H_
#define WASSERWARP_BENCH_CALIBRATION_COMPARE_COVERAGE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "calibration/run_generator.h"

namespace wasserwarp::calibration {

struct CompareCondition {
  std::string name;
  ModelError error_a;
  ModelError error_b;
  bool paired = true;  // variant runs share their random draws, matched by id
  int runs = 10;       // per variant, and reference runs
};

struct CompareSettings {
  int repetitions = 100;
  int truth_repetitions = 400;
  int resamples = 199;
  double confidence = 0.95;
  uint64_t seed = 1;
};

struct CompareCoverage {
  double true_difference = 0.0;
  double coverage = 0.0;  // the interval holds the true difference
  double below = 0.0;     // the interval lies below it
  double above = 0.0;
  double mean_width = 0.0;
  // The spread the interval should have: the central `confidence` range of W_a - W_b over
  // the fresh data sets that gave the true difference.
  double ideal_width = 0.0;
};

CompareCoverage MeasureCompare(const CompareCondition& condition, int condition_index,
                               const CompareSettings& settings);

std::vector<CompareCondition> DefaultCompareConditions();

}  // namespace wasserwarp::calibration

#endif  // WASSERWARP_BENCH_CALIBRATION_COMPARE_COVERAGE_H_
