// make calibration: the verdict's and compare's operating characteristics on generated runs
// with known truth, as the Markdown tables of docs/verdict.md.
//
//   calibration [--repetitions N] [--permutations K] [--seed S] [--skip-compare]
//
// Deterministic: the same flags give the same tables on any machine and thread count.

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "calibration/compare_coverage.h"
#include "calibration/verdict_rates.h"

namespace wasserwarp::calibration {
namespace {

struct Flags {
  int repetitions = 100;
  int permutations = 199;
  uint64_t seed = 1;
  bool compare = true;
};

[[noreturn]] void Usage(const char* problem) {
  std::fprintf(stderr,
               "calibration: %s\nusage: calibration [--repetitions N] [--permutations K] "
               "[--seed S] [--skip-compare]\n",
               problem);
  std::exit(2);
}

Flags ParseFlags(int argc, char** argv) {
  Flags flags;
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    if (flag == "--skip-compare") {
      flags.compare = false;
      continue;
    }
    if (i + 1 >= argc) Usage("a flag without its value");
    const char* value = argv[++i];
    bool ok = false;
    if (flag == "--repetitions") {
      ok = absl::SimpleAtoi(value, &flags.repetitions) && flags.repetitions >= 10;
    } else if (flag == "--permutations") {
      ok = absl::SimpleAtoi(value, &flags.permutations) && flags.permutations >= 19;
    } else if (flag == "--seed") {
      ok = absl::SimpleAtoi(value, &flags.seed);
    } else {
      Usage("unknown flag");
    }
    if (!ok) Usage("a value out of range (repetitions >= 10, permutations >= 19)");
  }
  return flags;
}

double Percent(double fraction) { return 100.0 * fraction; }

void PrintVerdictTable(const Flags& flags) {
  VerdictSettings settings;
  settings.repetitions = flags.repetitions;
  settings.permutations = flags.permutations;
  settings.seed = flags.seed;
  std::printf(
      "### The verdict's rules: %% of validations that FAIL\n\n"
      "%d repetitions a row, %d permutations and resamples, alpha %.2f, --max-ratio %.1f, "
      "--lambda %.1f, --resample auto. Rows with error \"none\" give the false-FAIL rate, the "
      "others the detection rate. KS: the p-values' largest distance from uniform (the "
      "0.001 critical value in brackets).\n\n",
      settings.repetitions, settings.permutations, settings.alpha, settings.max_ratio,
      settings.lambda);
  std::printf(
      "| error | sim / ref Hz | runs a side | permutation test | ratio rule (interval) | "
      "ratio rule (median) | mean p | KS | median ratio |\n"
      "|---|---|---|---|---|---|---|---|---|\n");
  const std::vector<VerdictCondition> conditions = DefaultVerdictConditions();
  for (size_t c = 0; c < conditions.size(); ++c) {
    const VerdictCondition& condition = conditions[c];
    const VerdictRates rates = MeasureVerdict(condition, static_cast<int>(c), settings);
    std::printf(
        "| %s | %.0f / %.0f | %d | %.0f %% | %.0f %% | %.0f %% | %.2f | %.3f (%.3f) | %.2f |\n",
        condition.error_name.c_str(), condition.simulation_rate, condition.reference_rate,
        condition.runs, Percent(rates.test_fail), Percent(rates.interval_fail),
        Percent(rates.median_fail), rates.mean_p, rates.ks_distance, rates.ks_critical,
        rates.median_ratio);
    std::fflush(stdout);
  }
  std::printf("\n");
}

void PrintCompareTable(const Flags& flags) {
  CompareSettings settings;
  settings.repetitions = flags.repetitions;
  settings.resamples = flags.permutations;
  settings.seed = flags.seed;
  std::printf(
      "### compare: coverage of the %.0f %% interval for W_a - W_b\n\n"
      "%d repetitions a row, %d resamples, 10 runs per variant and 10 reference runs. The "
      "true difference is the mean of W_a - W_b over %d fresh data sets; the ideal width is "
      "the central %.0f %% range of W_a - W_b over those data sets.\n\n",
      100 * settings.confidence, settings.repetitions, settings.resamples,
      settings.truth_repetitions, 100 * settings.confidence);
  std::printf(
      "| variants | true difference | coverage | interval below truth | interval above truth | "
      "mean width | ideal width |\n|---|---|---|---|---|---|---|\n");
  const std::vector<CompareCondition> conditions = DefaultCompareConditions();
  for (size_t c = 0; c < conditions.size(); ++c) {
    const CompareCoverage coverage = MeasureCompare(conditions[c], static_cast<int>(c), settings);
    std::printf("| %s | %.4g | %.0f %% | %.0f %% | %.0f %% | %.4g | %.4g |\n",
                conditions[c].name.c_str(), coverage.true_difference, Percent(coverage.coverage),
                Percent(coverage.below), Percent(coverage.above), coverage.mean_width,
                coverage.ideal_width);
    std::fflush(stdout);
  }
  std::printf("\n");
}

}  // namespace
}  // namespace wasserwarp::calibration

int main(int argc, char** argv) {
  using namespace wasserwarp::calibration;
  const Flags flags = ParseFlags(argc, argv);
  const auto start = std::chrono::steady_clock::now();
  PrintVerdictTable(flags);
  if (flags.compare) PrintCompareTable(flags);
  std::fprintf(stderr, "calibration: %.0f s\n",
               std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  return 0;
}
