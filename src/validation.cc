#include "wasserwarp/validation.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_format.h"
#include "common/arena_pool.h"
#include "tbb/blocked_range.h"
#include "tbb/parallel_for.h"

namespace wasserwarp {
namespace {

std::vector<RunSummary> SummariseRuns(const std::vector<Series>& runs,
                                      const std::vector<double>& weights) {
  std::vector<RunSummary> summaries;
  summaries.reserve(runs.size());
  for (size_t i = 0; i < runs.size(); ++i) {
    summaries.push_back({runs[i].id, runs[i].samples(), weights[i]});
  }
  return summaries;
}

absl::Status CheckNotCancelled(const CancellationToken* cancel) {
  if (cancel != nullptr && cancel->cancelled()) {
    return absl::CancelledError("validation cancelled");
  }
  return absl::OkStatus();
}

// Calls `visit(k)` for every plan entry k, in parallel on at most `max_threads` threads.
template <typename Visit>
void ForEachPlanEntry(const std::vector<PlanEntry>& plan, int max_threads, const Visit& visit) {
  BorrowedArena arena(max_threads);
  arena.execute([&] {
    tbb::parallel_for(tbb::blocked_range<size_t>(0, plan.size(), 1),
                      [&](const tbb::blocked_range<size_t>& range) {
                        for (size_t k = range.begin(); k < range.end(); ++k) visit(k);
                      });
  });
}

// The edit-path diagnostics of every pair in the plan; a plan has at most
// n + m - 1 pairs, so this costs a small fraction of the cost matrix.
absl::StatusOr<std::vector<PairDiagnostics>> DiagnosePairs(const PreparedRuns& runs,
                                                           const std::vector<PlanEntry>& plan,
                                                           const TwedParams& params,
                                                           const CostMatrixOptions& compute) {
  std::vector<PairDiagnostics> pairs(plan.size());
  std::vector<absl::Status> errors(plan.size());
  ForEachPlanEntry(plan, compute.max_threads, [&](size_t k) {
    const PlanEntry& entry = plan[k];
    absl::StatusOr<EditPathSummary> path =
        TwedWithPath(runs.simulation[entry.row], runs.reference[entry.col], params, compute.cancel);
    if (!path.ok()) {
      errors[k] = std::move(path).status();
      return;
    }
    pairs[k] = {entry.row,         entry.col,         path->distance,       path->matches,
                path->a_deletions, path->b_deletions, path->mean_time_shift};
  });
  // Pairs cut short by a cancel fail beside any genuine errors; a cancelled
  // job reports the cancel, as ComputeCostMatrix does.
  if (absl::Status status = CheckNotCancelled(compute.cancel); !status.ok()) return status;
  for (absl::Status& error : errors) {
    if (!error.ok()) return std::move(error);
  }
  return pairs;
}

// The classic metrics of every pair in the plan, in the channels' own units.
std::vector<PairMetrics> MeasurePairs(const PreparedRuns& runs, const std::vector<PlanEntry>& plan,
                                      const CostMatrixOptions& compute) {
  const size_t channels = runs.channels.size();
  std::vector<PairMetrics> metrics(plan.size() * channels);
  ForEachPlanEntry(plan, compute.max_threads, [&](size_t k) {
    const PlanEntry& entry = plan[k];
    const std::vector<ChannelMetrics> pair = CompareMatchedPair(
        runs.simulation[entry.row], runs.reference[entry.col], runs.channel_divisors);
    for (size_t c = 0; c < channels; ++c) {
      metrics[k * channels + c] = {entry.row, entry.col, static_cast<int>(c), pair[c]};
    }
  });
  return metrics;
}

// Samples per second over a run's span; 0 for a single sample.
double SamplingRate(const Series& run) {
  const double span = run.times.back() - run.times.front();
  return run.samples() > 1 && span > 0 ? static_cast<double>(run.samples() - 1) / span : 0.0;
}

double MedianSamplingRate(const std::vector<Series>& runs) {
  std::vector<double> rates;
  rates.reserve(runs.size());
  for (const Series& run : runs) rates.push_back(SamplingRate(run));
  std::sort(rates.begin(), rates.end());
  const size_t half = rates.size() / 2;
  return rates.size() % 2 == 1 ? rates[half] : 0.5 * (rates[half - 1] + rates[half]);
}

// What a reader of the verdict must know to judge it.
std::vector<std::string> VerdictWarnings(const PreparedRuns& runs, const ValidationOptions& options,
                                         bool floor_subtracted) {
  std::vector<std::string> warnings;
  const double sim_rate = MedianSamplingRate(runs.simulation);
  const double ref_rate = MedianSamplingRate(runs.reference);
  if (sim_rate > 0 && ref_rate > 0 &&
      std::max(sim_rate, ref_rate) > 1.1 * std::min(sim_rate, ref_rate)) {
    warnings.push_back(absl::StrFormat(
        "simulated runs are sampled at %.4g Hz and reference runs at %.4g Hz (medians); TWED sums "
        "its costs per sample, so runs at different rates differ in scale even when their shapes "
        "agree%s; resample both to one rate for a like-for-like verdict",
        sim_rate, ref_rate,
        floor_subtracted ? " (the lambda * |n_i - n_j| floor of forced deletions was subtracted, "
                           "the per-sample matching costs remain)"
                         : ""));
  }
  if (!options.simulation_weights.empty() || !options.reference_weights.empty()) {
    warnings.push_back(
        "the permutation test and the baseline weigh every run equally; only max_distance judges "
        "the weighted distance");
  }
  return warnings;
}

absl::StatusOr<Verdict> DecideOnPooledRuns(const PreparedRuns& runs, const CostMatrix& sim_ref,
                                           double distance, double order,
                                           const ValidationOptions& options,
                                           std::optional<CostMatrix>& kept_pooled,
                                           uint64_t& dp_cells) {
  const auto enter = [&](ValidationPhase phase) {
    if (options.on_phase) options.on_phase(phase);
  };
  enter(ValidationPhase::kPooledCostMatrix);
  absl::StatusOr<CostMatrix> pooled = ComputePooledCostMatrix(
      runs.simulation, runs.reference, options.twed, options.compute, &sim_ref);
  if (!pooled.ok()) return pooled.status();
  const auto add_cells = [&](const std::vector<Series>& group) {
    for (size_t i = 0; i < group.size(); ++i) {
      for (size_t j = i + 1; j < group.size(); ++j) dp_cells += TwedCells(group[i], group[j]);
    }
  };
  add_cells(runs.simulation);
  add_cells(runs.reference);

  const VerdictOptions& verdict_options = *options.verdict;
  const bool subtract_floor = verdict_options.subtract_sampling_floor && options.twed.lambda > 0;
  if (options.keep_pooled_cost_matrix) kept_pooled = *pooled;
  if (subtract_floor) {
    std::vector<uint64_t> samples;
    for (const Series& run : runs.simulation) samples.push_back(run.samples());
    for (const Series& run : runs.reference) samples.push_back(run.samples());
    SubtractSamplingFloor(samples, options.twed.lambda, *pooled);
  }

  enter(ValidationPhase::kResampling);
  VerdictContext context;
  context.max_threads = options.compute.max_threads;
  context.cancel = options.compute.cancel;
  context.progress = options.verdict_progress;
  context.progress_interval_ms = options.compute.progress_interval_ms;
  absl::StatusOr<Verdict> verdict =
      DecideVerdict(*pooled, runs.simulation.size(), distance, order, verdict_options, context);
  if (!verdict.ok()) return verdict.status();
  verdict->sampling_floor_subtracted = subtract_floor;
  verdict->warnings = VerdictWarnings(runs, options, subtract_floor);
  return verdict;
}

// The transport problem between the simulated and the reference runs: checked before the
// costs are computed, solved after.
TransportOptions TransportOptionsOf(const ValidationOptions& options) {
  TransportOptions transport;
  transport.order = options.order;
  transport.row_weights = options.simulation_weights;
  transport.col_weights = options.reference_weights;
  return transport;
}

}  // namespace

absl::Status ValidateValidationOptions(const ValidationOptions& options, size_t simulation_runs,
                                       size_t reference_runs) {
  if (absl::Status status = ValidateTwedParams(options.twed); !status.ok()) return status;
  if (absl::Status status = ValidateResampleRate(options.prepare.resample_rate); !status.ok()) {
    return status;
  }
  if (absl::Status status =
          ValidateTransportOptions(TransportOptionsOf(options), simulation_runs, reference_runs);
      !status.ok()) {
    return status;
  }
  if (options.verdict.has_value()) return ValidateVerdictOptions(*options.verdict);
  return absl::OkStatus();
}

absl::StatusOr<ValidationReport> Validate(const std::vector<Series>& simulation,
                                          const std::vector<Series>& reference,
                                          const ValidationOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  if (absl::Status status = ValidateValidationOptions(options, simulation.size(), reference.size());
      !status.ok()) {
    return status;
  }
  const auto enter = [&](ValidationPhase phase) {
    if (options.on_phase) options.on_phase(phase);
  };
  enter(ValidationPhase::kPreparing);
  absl::StatusOr<PreparedRuns> runs = PrepareRuns(simulation, reference, options.prepare);
  if (!runs.ok()) return runs.status();
  // Quantities of interest are cheap and may name a missing channel: they go before the costs.
  std::vector<QuantityComparison> quantities;
  if (!options.quantities.empty()) {
    absl::StatusOr<std::vector<QuantityComparison>> compared =
        CompareQuantities(simulation, options.simulation_weights, reference,
                          options.reference_weights, options.quantities, options.prepare.align);
    if (!compared.ok()) return compared.status();
    quantities = *std::move(compared);
  }

  enter(ValidationPhase::kCostMatrix);
  absl::StatusOr<CostMatrix> costs =
      ComputeCostMatrix(runs->simulation, runs->reference, options.twed, options.compute);
  if (!costs.ok()) return costs.status();

  enter(ValidationPhase::kTransport);
  absl::StatusOr<TransportResult> transport = SolveTransport(*costs, TransportOptionsOf(options));
  if (!transport.ok()) return transport.status();
  if (absl::Status status = CheckNotCancelled(options.compute.cancel); !status.ok()) {
    return status;
  }

  enter(ValidationPhase::kDiagnostics);
  absl::StatusOr<std::vector<PairDiagnostics>> pairs =
      DiagnosePairs(*runs, transport->plan, options.twed, options.compute);
  if (!pairs.ok()) return pairs.status();

  ValidationReport report;
  for (const Series& sim : runs->simulation) {
    for (const Series& ref : runs->reference) report.dp_cells += TwedCells(sim, ref);
  }
  if (options.verdict.has_value()) {
    absl::StatusOr<Verdict> verdict =
        DecideOnPooledRuns(*runs, *costs, transport->distance, transport->order, options,
                           report.pooled_cost_matrix, report.dp_cells);
    if (!verdict.ok()) return verdict.status();
    report.verdict = *std::move(verdict);
  }
  report.pair_metrics = MeasurePairs(*runs, transport->plan, options.compute);
  report.pair_metrics_average =
      PlanWeightedMetrics(report.pair_metrics, transport->plan, runs->channels.size());
  report.quantities = std::move(quantities);
  report.distance = transport->distance;
  report.order = transport->order;
  report.solver = transport->solver;
  report.twed = options.twed;
  report.align = options.prepare.align;
  report.scale = options.prepare.scale;
  report.resample_rate = options.prepare.resample_rate;
  report.channels = runs->channels;
  report.simulation = SummariseRuns(runs->simulation, transport->row_weights);
  report.reference = SummariseRuns(runs->reference, transport->col_weights);
  report.plan = std::move(transport->plan);
  report.sim_contributions = std::move(transport->row_contributions);
  report.ref_contributions = std::move(transport->col_contributions);
  report.pairs = *std::move(pairs);
  report.certificate = std::move(transport->certificate);
  report.weight_rounding_bound = transport->weight_rounding_bound;
  if (options.keep_cost_matrix) report.cost_matrix = *std::move(costs);
  report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return report;
}

}  // namespace wasserwarp
