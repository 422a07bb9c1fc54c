#include "wasserwarp/validation.h"

#include <chrono>
#include <cstddef>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "tbb/blocked_range.h"
#include "tbb/parallel_for.h"
#include "tbb/task_arena.h"

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

// The edit-path diagnostics of every pair in the plan; a plan has at most
// n + m - 1 pairs, so this costs a small fraction of the cost matrix.
absl::StatusOr<std::vector<PairDiagnostics>> DiagnosePairs(const PreparedRuns& runs,
                                                           const std::vector<PlanEntry>& plan,
                                                           const TwedParams& params,
                                                           const CostMatrixOptions& compute) {
  std::vector<PairDiagnostics> pairs(plan.size());
  std::vector<absl::Status> errors(plan.size());
  tbb::task_arena arena(compute.max_threads > 0 ? compute.max_threads : tbb::task_arena::automatic);
  arena.execute([&] {
    tbb::parallel_for(
        tbb::blocked_range<size_t>(0, plan.size(), 1),
        [&](const tbb::blocked_range<size_t>& range) {
          for (size_t k = range.begin(); k < range.end(); ++k) {
            const PlanEntry& entry = plan[k];
            absl::StatusOr<EditPathSummary> path = TwedWithPath(
                runs.simulation[entry.row], runs.reference[entry.col], params, compute.cancel);
            if (!path.ok()) {
              errors[k] = std::move(path).status();
              continue;
            }
            pairs[k] = {entry.row,         entry.col,         path->distance,       path->matches,
                        path->a_deletions, path->b_deletions, path->mean_time_shift};
          }
        });
  });
  // Pairs cut short by a cancel fail beside any genuine errors; a cancelled
  // job reports the cancel, as ComputeCostMatrix does.
  if (absl::Status status = CheckNotCancelled(compute.cancel); !status.ok()) return status;
  for (absl::Status& error : errors) {
    if (!error.ok()) return std::move(error);
  }
  return pairs;
}

}  // namespace

absl::StatusOr<ValidationReport> Validate(const std::vector<Series>& simulation,
                                          const std::vector<Series>& reference,
                                          const ValidationOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  if (absl::Status status = ValidateTwedParams(options.twed); !status.ok()) return status;
  TransportOptions transport_options;
  transport_options.order = options.order;
  transport_options.row_weights = options.simulation_weights;
  transport_options.col_weights = options.reference_weights;
  if (absl::Status status =
          ValidateTransportOptions(transport_options, simulation.size(), reference.size());
      !status.ok()) {
    return status;
  }
  const auto enter = [&](ValidationPhase phase) {
    if (options.on_phase) options.on_phase(phase);
  };
  enter(ValidationPhase::kPreparing);
  absl::StatusOr<PreparedRuns> runs = PrepareRuns(simulation, reference, options.prepare);
  if (!runs.ok()) return runs.status();

  enter(ValidationPhase::kCostMatrix);
  absl::StatusOr<CostMatrix> costs =
      ComputeCostMatrix(runs->simulation, runs->reference, options.twed, options.compute);
  if (!costs.ok()) return costs.status();

  enter(ValidationPhase::kTransport);
  absl::StatusOr<TransportResult> transport = SolveTransport(*costs, transport_options);
  if (!transport.ok()) return transport.status();
  if (absl::Status status = CheckNotCancelled(options.compute.cancel); !status.ok()) {
    return status;
  }

  enter(ValidationPhase::kDiagnostics);
  absl::StatusOr<std::vector<PairDiagnostics>> pairs =
      DiagnosePairs(*runs, transport->plan, options.twed, options.compute);
  if (!pairs.ok()) return pairs.status();

  ValidationReport report;
  report.distance = transport->distance;
  report.order = transport->order;
  report.solver = transport->solver;
  report.twed = options.twed;
  report.align = options.prepare.align;
  report.scale = options.prepare.scale;
  report.channels = runs->channels;
  report.simulation = SummariseRuns(runs->simulation, transport->row_weights);
  report.reference = SummariseRuns(runs->reference, transport->col_weights);
  report.plan = std::move(transport->plan);
  report.sim_contributions = std::move(transport->row_contributions);
  report.ref_contributions = std::move(transport->col_contributions);
  report.pairs = *std::move(pairs);
  report.certificate = std::move(transport->certificate);
  report.weight_rounding_bound = transport->weight_rounding_bound;
  for (const Series& sim : runs->simulation) {
    for (const Series& ref : runs->reference) report.dp_cells += TwedCells(sim, ref);
  }
  if (options.keep_cost_matrix) report.cost_matrix = *std::move(costs);
  report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return report;
}

}  // namespace wasserwarp
