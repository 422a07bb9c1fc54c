#include "wasserwarp/compare.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <limits>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "pipeline/validation_iso18571.h"
#include "verdict/bootstrap_interval.h"
#include "verdict/resampling.h"
#include "verdict/resampling_rng.h"
#include "verdict/subset_distance.h"
#include "wasserwarp/transport.h"
#include "wasserwarp/verdict.h"

namespace wasserwarp {
namespace {

using resampling::DrawCounts;

// The random streams of one resample: what it draws depends on (seed,
// resample, stream) only, never on which thread runs it.
enum Stream : uint64_t {
  kReferenceStream = 1,
  kRunsAStream = 2,
  kRunsBStream = 3,
};

// W_q with the draw counts as weights. Runs never drawn are left out of the
// solve: the same optimum on a smaller problem.
absl::StatusOr<double> ResampledDistance(const CostMatrix& costs,
                                         const std::vector<double>& row_counts,
                                         const std::vector<double>& col_counts, double order) {
  const auto drawn = [](const std::vector<double>& counts, std::vector<size_t>& runs,
                        std::vector<double>& weights) {
    for (size_t i = 0; i < counts.size(); ++i) {
      if (counts[i] > 0.0) {
        runs.push_back(i);
        weights.push_back(counts[i]);
      }
    }
  };
  std::vector<size_t> rows;
  std::vector<double> row_weights;
  std::vector<size_t> cols;
  std::vector<double> col_weights;
  drawn(row_counts, rows, row_weights);
  drawn(col_counts, cols, col_weights);
  return resampling::SubsetDistance(costs, rows, row_weights, cols, col_weights, order);
}

absl::Status WithContext(const absl::Status& status, absl::string_view context) {
  return absl::Status(status.code(), absl::StrCat(context, ": ", status.message()));
}

// W_q of one variant against the references, with the plan that gives it: the solve a
// validation of that variant makes on the same matrix (uniform weights).
absl::StatusOr<TransportResult> SolveVariant(const CostMatrix& costs, double order,
                                             absl::string_view variant) {
  TransportOptions transport;
  transport.order = order;
  absl::StatusOr<TransportResult> result = SolveTransport(costs, transport);
  if (!result.ok()) return WithContext(result.status(), absl::StrCat("variant ", variant));
  return result;
}

absl::Status ValidateResampling(const CompareOptions& options) {
  if (absl::Status status = ValidateOrder(options.order); !status.ok()) return status;
  if (options.resamples < 1 || options.resamples > kMaxResamples) {
    return absl::InvalidArgumentError(
        absl::StrCat("resamples = ", options.resamples, ": must be from 1 to ", kMaxResamples));
  }
  if (!(options.confidence > 0.0 && options.confidence < 1.0)) {
    return absl::InvalidArgumentError(
        absl::StrCat("confidence = ", options.confidence, ": must be in (0, 1)"));
  }
  return absl::OkStatus();
}

absl::Status ValidateMatrices(const CostMatrix& a_ref, const CostMatrix& b_ref,
                              const std::vector<std::string>& ids_a,
                              const std::vector<std::string>& ids_b) {
  if (a_ref.rows == 0) return absl::InvalidArgumentError("no runs of variant A");
  if (b_ref.rows == 0) return absl::InvalidArgumentError("no runs of variant B");
  if (a_ref.cols == 0 || b_ref.cols == 0) return absl::InvalidArgumentError("no reference runs");
  if (a_ref.cols != b_ref.cols) {
    return absl::InvalidArgumentError(absl::StrCat("variant A is compared with ", a_ref.cols,
                                                   " reference runs but variant B with ",
                                                   b_ref.cols, "; both need the same references"));
  }
  const auto check = [](const CostMatrix& costs, const std::vector<std::string>& ids,
                        absl::string_view variant) -> absl::Status {
    if (costs.values.size() != costs.rows * costs.cols) {
      return absl::InvalidArgumentError(
          absl::StrCat("the cost matrix of variant ", variant, " holds ", costs.values.size(),
                       " values, not ", costs.rows, " x ", costs.cols));
    }
    if (ids.size() != costs.rows) {
      return absl::InvalidArgumentError(absl::StrCat("variant ", variant, " has ", ids.size(),
                                                     " run ids for ", costs.rows,
                                                     " rows of its cost matrix"));
    }
    return absl::OkStatus();
  };
  if (absl::Status status = check(a_ref, ids_a, "A"); !status.ok()) return status;
  return check(b_ref, ids_b, "B");
}

// For each run of A the row of B with the same id, when both variants hold
// the same ids, each once; nothing otherwise.
std::optional<std::vector<size_t>> PairById(const std::vector<std::string>& ids_a,
                                            const std::vector<std::string>& ids_b) {
  if (ids_a.size() != ids_b.size()) return std::nullopt;
  std::unordered_map<std::string, size_t> row_of_b;
  for (size_t j = 0; j < ids_b.size(); ++j) {
    if (!row_of_b.emplace(ids_b[j], j).second) return std::nullopt;
  }
  std::vector<size_t> partner(ids_a.size());
  std::vector<bool> taken(ids_b.size(), false);
  for (size_t i = 0; i < ids_a.size(); ++i) {
    const auto found = row_of_b.find(ids_a[i]);
    if (found == row_of_b.end() || taken[found->second]) return std::nullopt;
    taken[found->second] = true;
    partner[i] = found->second;
  }
  return partner;
}

// W_a - W_b with one unit left out at a time, grouped as the resamples draw them: the pairs
// (or A's and B's runs apart when not paired), then the references. A group of one unit
// has no jackknife and is skipped.
absl::StatusOr<std::vector<std::vector<double>>> LeaveOneOut(
    const CostMatrix& a_ref, const CostMatrix& b_ref,
    const std::optional<std::vector<size_t>>& partner, double order) {
  const auto difference = [&](const std::vector<double>& a_counts,
                              const std::vector<double>& b_counts,
                              const std::vector<double>& ref_counts) -> absl::StatusOr<double> {
    absl::StatusOr<double> w_a = ResampledDistance(a_ref, a_counts, ref_counts, order);
    if (!w_a.ok()) return w_a.status();
    absl::StatusOr<double> w_b = ResampledDistance(b_ref, b_counts, ref_counts, order);
    if (!w_b.ok()) return w_b.status();
    return *w_a - *w_b;
  };
  std::vector<double> a_counts(a_ref.rows, 1.0);
  std::vector<double> b_counts(b_ref.rows, 1.0);
  std::vector<double> ref_counts(a_ref.cols, 1.0);
  std::vector<std::vector<double>> groups;
  // Leaves out unit k of `counts` (and the same unit of `also`, for pairs).
  const auto jackknife = [&](std::vector<double>& counts,
                             std::vector<double>* also) -> absl::Status {
    if (counts.size() < 2) return absl::OkStatus();
    std::vector<double>& values = groups.emplace_back();
    for (size_t k = 0; k < counts.size(); ++k) {
      counts[k] = 0.0;
      const size_t other = also != nullptr && partner.has_value() ? (*partner)[k] : 0;
      if (also != nullptr) (*also)[other] = 0.0;
      absl::StatusOr<double> value = difference(a_counts, b_counts, ref_counts);
      counts[k] = 1.0;
      if (also != nullptr) (*also)[other] = 1.0;
      if (!value.ok()) return value.status();
      values.push_back(*value);
    }
    return absl::OkStatus();
  };
  if (partner.has_value()) {
    if (absl::Status status = jackknife(a_counts, &b_counts); !status.ok()) return status;
  } else {
    if (absl::Status status = jackknife(a_counts, nullptr); !status.ok()) return status;
    if (absl::Status status = jackknife(b_counts, nullptr); !status.ok()) return status;
  }
  if (absl::Status status = jackknife(ref_counts, nullptr); !status.ok()) return status;
  return groups;
}

struct ResampledDifferences {
  double independent = 0.0;  // B drawn on its own
  double paired = 0.0;       // B drawn as A was; only when paired
};

absl::StatusOr<ResampledDifferences> Resample(const CostMatrix& a_ref, const CostMatrix& b_ref,
                                              const std::optional<std::vector<size_t>>& partner,
                                              const CompareOptions& options, uint64_t resample) {
  const std::vector<double> ref_counts =
      DrawCounts(a_ref.cols, resampling::ResampleRng(options.seed, resample, kReferenceStream));
  const std::vector<double> a_counts =
      DrawCounts(a_ref.rows, resampling::ResampleRng(options.seed, resample, kRunsAStream));
  const std::vector<double> b_counts =
      DrawCounts(b_ref.rows, resampling::ResampleRng(options.seed, resample, kRunsBStream));
  absl::StatusOr<double> w_a = ResampledDistance(a_ref, a_counts, ref_counts, options.order);
  if (!w_a.ok()) return w_a.status();
  absl::StatusOr<double> w_b = ResampledDistance(b_ref, b_counts, ref_counts, options.order);
  if (!w_b.ok()) return w_b.status();
  ResampledDifferences differences;
  differences.independent = *w_a - *w_b;
  if (partner.has_value()) {
    std::vector<double> paired_counts(b_ref.rows, 0.0);
    for (size_t i = 0; i < a_counts.size(); ++i) paired_counts[(*partner)[i]] = a_counts[i];
    absl::StatusOr<double> w_b_paired =
        ResampledDistance(b_ref, paired_counts, ref_counts, options.order);
    if (!w_b_paired.ok()) return w_b_paired.status();
    differences.paired = *w_a - *w_b_paired;
  }
  return differences;
}

double SumOfSquaredDeviations(const std::vector<double>& values) {
  double mean = 0.0;
  for (double value : values) mean += value;
  mean /= static_cast<double>(values.size());
  double sum = 0.0;
  for (double value : values) sum += (value - mean) * (value - mean);
  return sum;
}

double VarianceGain(const std::vector<double>& independent, const std::vector<double>& paired) {
  const double independent_spread = SumOfSquaredDeviations(independent);
  const double paired_spread = SumOfSquaredDeviations(paired);
  if (paired_spread > 0.0) return independent_spread / paired_spread;
  return independent_spread > 0.0 ? std::numeric_limits<double>::infinity() : 1.0;
}

struct SolvedVariants {
  TransportResult a;
  TransportResult b;
};

// The checks made before any solve, then each variant's transport to the references.
absl::StatusOr<SolvedVariants> SolveVariants(const CostMatrix& a_ref, const CostMatrix& b_ref,
                                             const std::vector<std::string>& ids_a,
                                             const std::vector<std::string>& ids_b,
                                             const CompareOptions& options) {
  if (absl::Status status = ValidateResampling(options); !status.ok()) return status;
  if (absl::Status status = ValidateMatrices(a_ref, b_ref, ids_a, ids_b); !status.ok()) {
    return status;
  }
  absl::StatusOr<TransportResult> a = SolveVariant(a_ref, options.order, "A");
  if (!a.ok()) return a.status();
  absl::StatusOr<TransportResult> b = SolveVariant(b_ref, options.order, "B");
  if (!b.ok()) return b.status();
  return SolvedVariants{*std::move(a), *std::move(b)};
}

// The comparison of the solved variants: the difference and its bootstrap interval.
absl::StatusOr<ComparisonReport> ResampleDifference(const CostMatrix& a_ref,
                                                    const CostMatrix& b_ref,
                                                    const std::vector<std::string>& ids_a,
                                                    const std::vector<std::string>& ids_b,
                                                    const CompareOptions& options,
                                                    const SolvedVariants& solved) {
  const std::optional<std::vector<size_t>> partner = PairById(ids_a, ids_b);
  const size_t resamples = static_cast<size_t>(options.resamples);
  std::vector<ResampledDifferences> differences(resamples);
  const CancellationToken* cancel = options.compute.cancel;
  VerdictContext context;
  context.max_threads = options.compute.max_threads;
  context.cancel = cancel;
  resampling::ResampleLoop loop(context, resamples);
  const absl::Status resampled = loop.Run(resamples, 1, [&](size_t r) -> absl::Status {
    absl::StatusOr<ResampledDifferences> drawn = Resample(a_ref, b_ref, partner, options, r);
    if (!drawn.ok()) return WithContext(drawn.status(), absl::StrCat("resample ", r));
    differences[r] = *drawn;
    return absl::OkStatus();
  });
  if (cancel != nullptr && cancel->cancelled()) {
    return absl::CancelledError("comparison cancelled");
  }
  if (!resampled.ok()) return resampled;

  std::vector<double> independent(resamples);
  std::vector<double> paired(resamples);
  for (size_t r = 0; r < resamples; ++r) {
    independent[r] = differences[r].independent;
    paired[r] = differences[r].paired;
  }
  absl::StatusOr<std::vector<std::vector<double>>> leave_one_out =
      LeaveOneOut(a_ref, b_ref, partner, options.order);
  if (!leave_one_out.ok()) return WithContext(leave_one_out.status(), "jackknife");

  ComparisonReport report;
  report.distance_a = solved.a.distance;
  report.distance_b = solved.b.distance;
  report.difference = report.distance_a - report.distance_b;
  const resampling::BootstrapInterval interval = resampling::BcaInterval(
      report.difference, partner.has_value() ? paired : independent,
      resampling::JackknifeAcceleration(*leave_one_out), options.confidence);
  report.interval_lo = interval.lo;
  report.interval_hi = interval.hi;
  report.bias_correction = interval.bias_correction;
  report.acceleration = interval.acceleration;
  report.paired = partner.has_value();
  if (report.paired) report.variance_gain = VarianceGain(independent, paired);
  report.resamples = options.resamples;
  report.confidence = options.confidence;
  report.seed = options.seed;
  report.runs_a = a_ref.rows;
  report.runs_b = b_ref.rows;
  report.runs_ref = a_ref.cols;
  return report;
}

// `runs`' plan pairs rated as a validation of those runs rates them.
VariantIso18571 RateVariant(const PreparedRuns& runs, const TransportResult& transport,
                            int max_threads) {
  PlanIso18571 rated = RatePlanPairs(runs, transport.plan, max_threads);
  return {.channels = runs.channels,
          .iso18571 = std::move(rated.pairs),
          .iso18571_average = std::move(rated.averages),
          .iso18571_warnings = std::move(rated.warnings)};
}

}  // namespace

absl::Status ValidateCompareOptions(const CompareOptions& options) {
  if (absl::Status status = ValidateTwedParams(options.twed); !status.ok()) return status;
  return ValidateResampling(options);
}

absl::StatusOr<ComparisonReport> CompareCostMatrices(const CostMatrix& a_ref,
                                                     const CostMatrix& b_ref,
                                                     const std::vector<std::string>& ids_a,
                                                     const std::vector<std::string>& ids_b,
                                                     const CompareOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  absl::StatusOr<SolvedVariants> solved = SolveVariants(a_ref, b_ref, ids_a, ids_b, options);
  if (!solved.ok()) return solved.status();
  absl::StatusOr<ComparisonReport> report =
      ResampleDifference(a_ref, b_ref, ids_a, ids_b, options, *solved);
  if (!report.ok()) return report.status();
  report->seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return report;
}

absl::StatusOr<PreparedVariants> PrepareVariants(const std::vector<Series>& simulation_a,
                                                 const std::vector<Series>& simulation_b,
                                                 const std::vector<Series>& reference,
                                                 const PrepareOptions& prepare) {
  if (simulation_a.empty()) return absl::InvalidArgumentError("no runs of variant A");
  if (simulation_b.empty()) return absl::InvalidArgumentError("no runs of variant B");
  if (reference.empty()) return absl::InvalidArgumentError("no reference runs");
  absl::StatusOr<PreparedRuns> runs_a = PrepareRuns(simulation_a, reference, prepare);
  if (!runs_a.ok()) return WithContext(runs_a.status(), "variant A");
  // Without a channel list each variant would compare the channels of its own
  // first run.
  PrepareOptions prepare_b = prepare;
  prepare_b.channels = runs_a->channels;
  absl::StatusOr<PreparedRuns> runs_b = PrepareRuns(simulation_b, reference, prepare_b);
  if (!runs_b.ok()) return WithContext(runs_b.status(), "variant B");
  return PreparedVariants{*std::move(runs_a), *std::move(runs_b)};
}

absl::StatusOr<ComparisonReport> CompareVariants(const std::vector<Series>& simulation_a,
                                                 const std::vector<Series>& simulation_b,
                                                 const std::vector<Series>& reference,
                                                 const CompareOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  if (absl::Status status = ValidateCompareOptions(options); !status.ok()) return status;
  absl::StatusOr<PreparedVariants> variants =
      PrepareVariants(simulation_a, simulation_b, reference, options.prepare);
  if (!variants.ok()) return variants.status();
  PreparedRuns& runs_a = variants->a;
  PreparedRuns& runs_b = variants->b;

  // One matrix for both variants keeps every core busy until the end; the
  // references were prepared alike for both (scaling depends on them only).
  const size_t rows_a = runs_a.simulation.size();
  std::vector<Series> rows = std::move(runs_a.simulation);
  rows.insert(rows.end(), std::make_move_iterator(runs_b.simulation.begin()),
              std::make_move_iterator(runs_b.simulation.end()));
  absl::StatusOr<CostMatrix> costs =
      ComputeCostMatrix(rows, runs_a.reference, options.twed, options.compute);
  if (!costs.ok()) return costs.status();

  const size_t cols = costs->cols;
  CostMatrix a_ref(rows_a, cols);
  CostMatrix b_ref(rows.size() - rows_a, cols);
  std::copy(costs->values.begin(), costs->values.begin() + rows_a * cols, a_ref.values.begin());
  std::copy(costs->values.begin() + rows_a * cols, costs->values.end(), b_ref.values.begin());
  std::vector<std::string> ids_a;
  std::vector<std::string> ids_b;
  for (size_t i = 0; i < rows.size(); ++i) (i < rows_a ? ids_a : ids_b).push_back(rows[i].id);

  absl::StatusOr<SolvedVariants> solved = SolveVariants(a_ref, b_ref, ids_a, ids_b, options);
  if (!solved.ok()) return solved.status();
  absl::StatusOr<ComparisonReport> report =
      ResampleDifference(a_ref, b_ref, ids_a, ids_b, options, *solved);
  if (!report.ok()) return report.status();
  for (const Series& row : rows) {
    for (const Series& ref : runs_a.reference) report->dp_cells += TwedCells(row, ref);
  }
  if (options.iso18571) {
    // The runs go back to their variants, which the ratings read with their channels.
    runs_b.simulation.assign(std::make_move_iterator(rows.begin() + rows_a),
                             std::make_move_iterator(rows.end()));
    rows.resize(rows_a);
    runs_a.simulation = std::move(rows);
    const int threads = options.compute.max_threads;
    report->iso18571_a = RateVariant(runs_a, solved->a, threads);
    report->iso18571_b = RateVariant(runs_b, solved->b, threads);
  }
  report->seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return report;
}

}  // namespace wasserwarp
