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
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "wasserwarp/cancellation.h"
#include "wasserwarp/cost_matrix.h"
#include "wasserwarp/series.h"
#include "wasserwarp/twed.h"

namespace wasserwarp {

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
};

// Ok when K >= 1 (at most 1e6), thresholds finite and >= 0, alpha in (0, 1).
absl::Status ValidateVerdictOptions(const VerdictOptions& options);

struct VerdictRule {
  std::string name;  // "max_distance", "max_ratio" or "alpha"
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
  std::optional<Baseline> baseline;  // absent with fewer than 2 reference runs
  std::vector<std::string> warnings;
};

// The pooled symmetric matrix of TWEDs between all runs, simulated runs
// first; the diagonal is 0. Only pairs i < j are computed, and the n x m
// block `sim_ref` (when given) is copied rather than computed again.
// Progress counts the pairs and cells actually computed.
absl::StatusOr<CostMatrix> ComputePooledCostMatrix(const std::vector<Series>& simulation,
                                                   const std::vector<Series>& reference,
                                                   const TwedParams& params,
                                                   const CostMatrixOptions& options,
                                                   const CostMatrix* sim_ref = nullptr);

// C_ij - lambda * |samples_i - samples_j|, clamped at 0.
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
// give (max_ratio with fewer than 2 reference runs); Cancelled when cancelled.
absl::StatusOr<Verdict> DecideVerdict(const CostMatrix& pooled, size_t simulation_runs,
                                      double distance, double order, const VerdictOptions& options,
                                      const VerdictContext& context = {});

}  // namespace wasserwarp

#endif  // WASSERWARP_VERDICT_H_
