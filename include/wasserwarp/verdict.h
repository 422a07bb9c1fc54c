// The statistical verdict on a validation: is the set of simulated runs as
// close to the reference runs as the reference runs are to each other?
//
// Everything here works on one pooled (n + m) x (n + m) matrix of ground
// costs between all runs, simulated runs first, computed once: a permutation
// or a resample only picks rows and columns of it, never a new TWED.
#ifndef WASSERWARP_VERDICT_H_
#define WASSERWARP_VERDICT_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "wasserwarp/cancellation.h"
#include "wasserwarp/cost_matrix.h"
#include "wasserwarp/series.h"
#include "wasserwarp/twed.h"

namespace wasserwarp {

// What max_ratio judges.
enum class RatioRule {
  // The upper end of the baseline ratio's bootstrap confidence interval: a PASS says the
  // data show, at ratio_confidence, that the simulated runs are at most K times as far from
  // the references as the references are from each other.
  kUpperBound,
  // The ratio itself, a median over splits of one data set (the earlier rule): no error
  // rate, and little evidence behind it with few reference runs.
  kMedian,
};

std::string_view RatioRuleName(RatioRule rule);
absl::StatusOr<RatioRule> ParseRatioRule(std::string_view name);

struct VerdictOptions {
  int permutations = 999;  // K: relabellings of the test, and splits of the baseline
  uint64_t seed = 1;
  // Decision rules; any combination, none at all gives a verdict without PASS/FAIL.
  std::optional<double> max_distance;  // the report's distance <= X
  std::optional<double> max_ratio;     // baseline ratio <= K
  std::optional<double> alpha;         // p-value >= A
  // With lambda > 0, TWED between runs of n and m samples is at least
  // lambda * |n - m| (every edit path deletes at least |n - m| samples), so
  // runs at different sampling rates look far apart whatever their shapes.
  // When set, the test and the baseline use TWED minus that floor.
  bool subtract_sampling_floor = true;
  RatioRule ratio_rule = RatioRule::kUpperBound;
  double ratio_confidence = 0.95;  // of the baseline ratio's interval, in (0, 1)
  // Every plan pair's share of samples inside every tolerance band >= F (the validation's
  // bands); judged by Validate, which has the pairs.
  std::optional<double> band_min_inside;

  // Every channel's plan-weighted mean ISO/TS 18571 rating >= R, in [0, 1]; judged by the
  // validation once its pairs are rated (AddVerdictRule).
  std::optional<double> min_iso_rating;
};

// The ratio rule needs this many reference runs; below kFewReferenceRuns the report warns
// that it has little evidence.
inline constexpr size_t kMinRatioReferenceRuns = 3;
inline constexpr size_t kFewReferenceRuns = 6;

// Ok when K >= 1 (at most 1e6), thresholds finite and >= 0, alpha and ratio_confidence in
// (0, 1), band_min_inside and min_iso_rating in [0, 1].
absl::Status ValidateVerdictOptions(const VerdictOptions& options);

struct VerdictRule {
  // "max_distance", "max_ratio", "alpha", "band_min_inside" or "min_iso_rating"
  std::string name;
  // What `value` is, in words: for max_ratio, the interval's upper end or the median ratio.
  std::string basis;
  double value = 0.0;
  double threshold = 0.0;
  bool pass = false;
};

// W between same-size groups over K random splits: two disjoint halves of
// the references, and a random subset of the simulations of that size
// against one of the halves. The empirical W is biased upward on small sets,
// so only these same-size numbers are compared.
struct Baseline {
  int subset_size = 0;
  double ref_ref_median = 0.0;
  double ref_ref_p05 = 0.0;
  double ref_ref_p95 = 0.0;
  double sim_ref_median = 0.0;
  double sim_ref_p05 = 0.0;
  double sim_ref_p95 = 0.0;
  double ratio = 0.0;  // sim_ref_median / ref_ref_median (+inf when 0 below a positive median)
  // The ratio's bootstrap confidence interval at ratio_confidence, over K resamples of the
  // runs (src/verdict/ratio_interval.h).
  double ratio_interval_lo = 0.0;
  double ratio_interval_hi = 0.0;
  double ratio_confidence = 0.0;
};

struct Verdict {
  std::optional<bool> pass;  // all rules pass; absent when no rule was given
  std::vector<VerdictRule> rules;
  // W_q between the two groups with uniform weights on the pooled matrix
  // (floor subtracted when it was): the permutation test's statistic.
  double statistic = 0.0;
  double p_value = 1.0;  // (1 + #{permuted W >= statistic}) / (K + 1)
  int permutations = 0;
  uint64_t seed = 0;
  bool sampling_floor_subtracted = false;
  // The rate the verdict's runs were on: the validation's resample_rate, or the lower median
  // rate that Resampling::kAuto thinned them to; unset for runs at their own rates.
  std::optional<double> resample_rate;
  // False when the verdict was computed on other runs than W and the plan: kAuto thinned
  // them because the groups' rates differ.
  bool same_grid_as_distance = true;
  std::optional<Baseline> baseline;  // absent with fewer than 2 reference runs
  std::vector<std::string> warnings;
};

// Adds `rule` to `verdict`, which passes while all its rules do: DecideVerdict's rules, and those
// the validation judges once it has the pairs (band_min_inside, min_iso_rating).
void AddVerdictRule(VerdictRule rule, Verdict& verdict);

// The pooled symmetric matrix of TWEDs between all runs, simulated runs
// first; the diagonal is 0. Only pairs i < j are computed, and the n x m
// block `sim_ref` (when given) is copied rather than computed again.
// Progress counts the pairs and cells actually computed.
absl::StatusOr<CostMatrix> ComputePooledCostMatrix(const std::vector<Series>& simulation,
                                                   const std::vector<Series>& reference,
                                                   const TwedParams& params,
                                                   const CostMatrixOptions& options,
                                                   const CostMatrix* sim_ref = nullptr);

// The pooled matrix of ComputePooledCostMatrix from its three blocks: `sim_ref` (n x m) and
// the symmetric `sim_sim` (n x n) and `ref_ref` (m x m), whose diagonals are ignored.
// InvalidArgument when the sizes do not fit together.
absl::StatusOr<CostMatrix> AssemblePooledCostMatrix(const CostMatrix& sim_ref,
                                                    const CostMatrix& sim_sim,
                                                    const CostMatrix& ref_ref);

// C_ij less TwedDeletionFloor(samples_i, samples_j, lambda), the part of every TWED that only the
// runs' lengths (their sampling rates) make, clamped at 0.
void SubtractSamplingFloor(const std::vector<uint64_t>& samples, double lambda, CostMatrix& pooled);

struct ResamplingProgress {
  uint64_t done = 0;   // transport solves finished
  uint64_t total = 0;  // K for the test, plus 2K for the baseline when it runs
};

struct VerdictContext {
  int max_threads = 0;  // 0: every core oneTBB sees
  const CancellationToken* cancel = nullptr;
  // Called from worker threads, never concurrently with itself.
  std::function<void(const ResamplingProgress&)> progress;
  int progress_interval_ms = 100;
};

// The permutation test, the baseline and the rules, on `pooled` whose first
// `simulation_runs` rows are the simulated runs. `distance` is the report's
// W (what max_distance judges); `order` is q. The result does not depend on
// the thread count. InvalidArgument when a rule needs what the runs cannot
// give (max_ratio with fewer than kMinRatioReferenceRuns reference runs); Cancelled when
// cancelled.
absl::StatusOr<Verdict> DecideVerdict(const CostMatrix& pooled, size_t simulation_runs,
                                      double distance, double order, const VerdictOptions& options,
                                      const VerdictContext& context = {});

}  // namespace wasserwarp

#endif  // WASSERWARP_VERDICT_H_
