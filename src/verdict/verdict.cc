#include "wasserwarp/verdict.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <numeric>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/string_view.h"
#include "common/named_values.h"
#include "verdict/baseline_split.h"
#include "verdict/ratio_interval.h"
#include "verdict/resampling.h"
#include "verdict/resampling_rng.h"
#include "verdict/resampling_summary.h"
#include "verdict/subset_distance.h"
#include "wasserwarp/cost_matrix.h"
#include "wasserwarp/field_error.h"
#include "wasserwarp/transport.h"

namespace wasserwarp {
namespace {

constexpr int kMaxPermutations = 1'000'000;

constexpr NamedValue<RatioRule> kRatioRuleNames[] = {{RatioRule::kUpperBound, "interval"},
                                                     {RatioRule::kMedian, "median"}};

// Each resample's generator is seeded from (seed, k, stream): the test and
// the baseline draw independent numbers from one user seed.
constexpr uint64_t kPermutationStream = 1;

// A relabelling that reproduces the observed split gives the statistic to
// the last bit; one that gives an equally good split through other runs
// (duplicated runs, symmetric costs) may differ in the last bits of a sum.
// Both are ties and count as at least as extreme.
constexpr double kTieTolerance = 1e-12;

absl::Status CheckThreshold(absl::string_view field, const std::optional<double>& value) {
  if (value && (!std::isfinite(*value) || *value < 0.0)) {
    return InvalidFieldError(field, absl::StrCat("must be a finite number >= 0, got ", *value));
  }
  return absl::OkStatus();
}

absl::Status CheckPooled(const CostMatrix& pooled, size_t simulation_runs, double order) {
  if (pooled.rows != pooled.cols || pooled.values.size() != pooled.rows * pooled.cols) {
    return absl::InvalidArgumentError(absl::StrCat("the pooled cost matrix must be square, got ",
                                                   pooled.rows, " x ", pooled.cols, " with ",
                                                   pooled.values.size(), " values"));
  }
  if (simulation_runs < 1 || simulation_runs >= pooled.rows) {
    return absl::InvalidArgumentError(
        absl::StrCat("a verdict needs at least one simulated and one reference run, got ",
                     simulation_runs, " simulated of ", pooled.rows, " pooled runs"));
  }
  if (absl::Status status = ValidateOrder(order); !status.ok()) return status;
  for (size_t k = 0; k < pooled.values.size(); ++k) {
    if (!std::isfinite(pooled.values[k]) || pooled.values[k] < 0.0) {
      return absl::InvalidArgumentError(absl::StrCat("pooled cost (", k / pooled.cols, ", ",
                                                     k % pooled.cols, ") = ", pooled.values[k],
                                                     " is not a finite non-negative number"));
    }
  }
  return absl::OkStatus();
}

// W_q with uniform weights between the runs `rows` and the runs `cols` of
// the pooled matrix.
absl::StatusOr<double> GroupDistance(const CostMatrix& pooled, const std::vector<size_t>& rows,
                                     const std::vector<size_t>& cols, double order) {
  return resampling::SubsetDistance(pooled, rows, {}, cols, {}, order);
}

using resampling::IndexRange;
using resampling::SortedSlice;

// The permutation test: under the null hypothesis that simulated and
// reference runs come from one distribution, every relabelling of the pooled
// runs into groups of n and m is as likely as the observed one, so the rank
// of the observed W among relabelled ones is uniform.
absl::StatusOr<double> PermutationPValue(const CostMatrix& pooled, size_t n, double order,
                                         double statistic, const VerdictOptions& options,
                                         resampling::ResampleLoop& loop) {
  const size_t runs = pooled.rows;
  const auto permutations = static_cast<size_t>(options.permutations);
  std::vector<double> permuted(permutations);
  absl::Status status = loop.Run(permutations, 1, [&](size_t k) -> absl::Status {
    resampling::ResampleRng rng(options.seed, k, kPermutationStream);
    std::vector<size_t> relabelled = IndexRange(0, runs);
    resampling::ShuffleFront(relabelled, n, rng);
    absl::StatusOr<double> w = GroupDistance(pooled, SortedSlice(relabelled, 0, n),
                                             SortedSlice(relabelled, n, runs), order);
    if (!w.ok()) return w.status();
    permuted[k] = *w;
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  const double tie_floor = statistic - kTieTolerance * statistic;
  const auto extreme = static_cast<size_t>(
      std::count_if(permuted.begin(), permuted.end(), [&](double w) { return w >= tie_floor; }));
  return static_cast<double>(1 + extreme) / static_cast<double>(permutations + 1);
}

// Needs at least 2 reference runs.
absl::StatusOr<Baseline> ComputeBaseline(const CostMatrix& pooled, size_t n, double order,
                                         const VerdictOptions& options,
                                         resampling::ResampleLoop& loop) {
  const size_t runs = pooled.rows;
  const size_t h = std::min((runs - n) / 2, n);
  const auto splits = static_cast<size_t>(options.permutations);
  std::vector<double> ref_ref(splits);
  std::vector<double> sim_ref(splits);
  absl::Status status = loop.Run(splits, 2, [&](size_t k) -> absl::Status {
    const resampling::BaselineSplit split =
        resampling::DrawBaselineSplit(options.seed, k, n, n, runs - n, h);
    absl::StatusOr<double> within =
        GroupDistance(pooled, split.references_a, split.references_b, order);
    if (!within.ok()) return within.status();
    absl::StatusOr<double> across =
        GroupDistance(pooled, split.simulations, split.references_b, order);
    if (!across.ok()) return across.status();
    ref_ref[k] = *within;
    sim_ref[k] = *across;
    return absl::OkStatus();
  });
  if (!status.ok()) return status;

  const resampling::Summary within = resampling::Summarise(std::move(ref_ref));
  const resampling::Summary across = resampling::Summarise(std::move(sim_ref));
  Baseline baseline;
  baseline.subset_size = static_cast<int>(h);

  baseline.ref_ref_median = within.median;
  baseline.ref_ref_p05 = within.p05;
  baseline.ref_ref_p95 = within.p95;
  baseline.sim_ref_median = across.median;
  baseline.sim_ref_p05 = across.p05;
  baseline.sim_ref_p95 = across.p95;
  baseline.ratio = resampling::BaselineRatio(across.median, within.median);
  absl::StatusOr<resampling::RatioInterval> interval =
      resampling::BootstrapRatioInterval(pooled, n, h, order, options, loop);
  if (!interval.ok()) return interval.status();
  baseline.ratio_interval_lo = interval->lo;
  baseline.ratio_interval_hi = interval->hi;
  baseline.ratio_confidence = options.ratio_confidence;
  return baseline;
}

std::vector<VerdictRule> JudgeRules(const VerdictOptions& options, double distance,
                                    const Verdict& verdict) {
  std::vector<VerdictRule> rules;
  const auto add = [&](const char* name, const char* basis, double value, double threshold,
                       bool pass) {
    rules.push_back(
        {.name = name, .basis = basis, .value = value, .threshold = threshold, .pass = pass});
  };
  if (options.max_distance) {
    add("max_distance", "the report's W", distance, *options.max_distance,
        distance <= *options.max_distance);
  }
  if (options.max_ratio) {
    const Baseline& baseline = *verdict.baseline;
    const bool upper = options.ratio_rule == RatioRule::kUpperBound;
    const double value = upper ? baseline.ratio_interval_hi : baseline.ratio;
    rules.push_back(
        {.name = "max_ratio",
         .basis = upper ? absl::StrFormat("upper end of the %g%% bootstrap interval of the "
                                          "baseline ratio",
                                          100 * baseline.ratio_confidence)
                        : "median baseline ratio over splits (no error rate)",
         .value = value,
         .threshold = *options.max_ratio,
         .pass = value <= *options.max_ratio});
  }
  if (options.alpha) {
    add("alpha", "p-value of the permutation test", verdict.p_value, *options.alpha,
        verdict.p_value >= *options.alpha);
  }
  return rules;
}

}  // namespace

absl::Status ValidateVerdictOptions(const VerdictOptions& options) {
  if (options.permutations < 1 || options.permutations > kMaxPermutations) {
    return InvalidFieldError(
        "permutations",
        absl::StrCat("must be between 1 and ", kMaxPermutations, ", got ", options.permutations));
  }
  if (absl::Status status = CheckThreshold("max_distance", options.max_distance); !status.ok()) {
    return status;
  }
  if (absl::Status status = CheckThreshold("max_ratio", options.max_ratio); !status.ok()) {
    return status;
  }
  if (options.alpha && !(*options.alpha > 0.0 && *options.alpha < 1.0)) {
    return InvalidFieldError(
        "alpha", absl::StrCat("must be between 0 and 1 (exclusive), got ", *options.alpha));
  }
  if (!(options.ratio_confidence > 0.0 && options.ratio_confidence < 1.0)) {
    return InvalidFieldError(
        "ratio_confidence",
        absl::StrCat("must be between 0 and 1 (exclusive), got ", options.ratio_confidence));
  }
  if (options.band_min_inside &&
      !(*options.band_min_inside >= 0.0 && *options.band_min_inside <= 1.0)) {
    return InvalidFieldError(
        "band_min_inside",
        absl::StrCat("must be a share between 0 and 1, got ", *options.band_min_inside));
  }
  if (options.min_iso_rating &&
      !(*options.min_iso_rating >= 0.0 && *options.min_iso_rating <= 1.0)) {
    return InvalidFieldError(
        "min_iso_rating", absl::StrCat("must be between 0 and 1, got ", *options.min_iso_rating));
  }
  if (!IsNamed(kRatioRuleNames, options.ratio_rule)) {
    return InvalidFieldError("ratio_rule",
                             absl::StrCat("unknown value ", static_cast<int>(options.ratio_rule)));
  }
  return absl::OkStatus();
}

void AddVerdictRule(VerdictRule rule, Verdict& verdict) {
  verdict.pass = verdict.pass.value_or(true) && rule.pass;
  verdict.rules.push_back(std::move(rule));
}

std::string_view RatioRuleName(RatioRule rule) { return NameOf(kRatioRuleNames, rule); }

absl::StatusOr<RatioRule> ParseRatioRule(std::string_view name) {
  return ParseNamed(kRatioRuleNames, "rule", name);
}

absl::StatusOr<Verdict> DecideVerdict(const CostMatrix& pooled, size_t simulation_runs,
                                      double distance, double order, const VerdictOptions& options,
                                      const VerdictContext& context) {
  if (absl::Status status = ValidateVerdictOptions(options); !status.ok()) return status;
  if (absl::Status status = CheckPooled(pooled, simulation_runs, order); !status.ok()) {
    return status;
  }
  if (context.max_threads < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("max_threads must be >= 0 (0: all cores), got ", context.max_threads));
  }
  const size_t runs = pooled.rows;
  const size_t n = simulation_runs;
  const size_t m = runs - n;
  const bool with_baseline = m >= 2;
  if (options.max_ratio && m < kMinRatioReferenceRuns) {
    return InvalidFieldError(
        "max_ratio",
        absl::StrCat("needs at least ", kMinRatioReferenceRuns, " reference runs: with ", m,
                     " its baseline compares subsets of one run"));
  }

  Verdict verdict;
  verdict.permutations = options.permutations;
  verdict.seed = options.seed;
  absl::StatusOr<double> statistic =
      GroupDistance(pooled, IndexRange(0, n), IndexRange(n, runs), order);
  if (!statistic.ok()) return statistic.status();
  verdict.statistic = *statistic;

  const auto permutations = static_cast<uint64_t>(options.permutations);
  const uint64_t baseline_solves =
      with_baseline ? 2 * permutations + resampling::RatioIntervalSolves(permutations) : 0;
  resampling::ResampleLoop loop(context, permutations + baseline_solves);
  absl::StatusOr<double> p_value =
      PermutationPValue(pooled, n, order, verdict.statistic, options, loop);
  if (!p_value.ok()) return p_value.status();
  verdict.p_value = *p_value;
  if (with_baseline) {
    absl::StatusOr<Baseline> baseline = ComputeBaseline(pooled, n, order, options, loop);
    if (!baseline.ok()) return baseline.status();
    verdict.baseline = *std::move(baseline);
  }
  loop.Finish();
  if (with_baseline && m < kFewReferenceRuns) {
    verdict.warnings.push_back(absl::StrCat(
        "with ", m, " reference runs the baseline compares subsets of ",
        verdict.baseline->subset_size,
        " run(s): the ratio and its interval rest on little evidence (docs/verdict.md gives the "
        "ratio rule's error rates by the number of reference runs)"));
  }

  for (VerdictRule& rule : JudgeRules(options, distance, verdict)) {
    AddVerdictRule(std::move(rule), verdict);
  }
  return verdict;
}

}  // namespace wasserwarp
