// The whole validation of a set of simulated runs against a set of
// reference runs: preparation, TWED cost matrix, optimal transport and
// per-pair diagnostics.

#ifndef WASSERWARP_VALIDATION_H_
#define WASSERWARP_VALIDATION_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "wasserwarp/cost_matrix.h"
#include "wasserwarp/pair_metrics.h"
#include "wasserwarp/prepare.h"
#include "wasserwarp/quantity_of_interest.h"
#include "wasserwarp/series.h"
#include "wasserwarp/transport.h"
#include "wasserwarp/twed.h"
#include "wasserwarp/verdict.h"

namespace wasserwarp {

enum class ValidationPhase {
  kPreparing,
  kCostMatrix,  // progress in detail through compute.progress
  kTransport,
  kDiagnostics,
  kPooledCostMatrix,  // the verdict's sim-sim and ref-ref pairs, through compute.progress
  kResampling,        // the verdict's transport solves, through verdict_progress
};

struct ValidationOptions {
  PrepareOptions prepare;
  TwedParams twed;
  double order = 1.0;
  std::vector<double> simulation_weights;  // empty: uniform
  std::vector<double> reference_weights;
  bool keep_cost_matrix = false;
  CostMatrixOptions compute;
  // The permutation test, baseline and decision rules; not run when absent.
  std::optional<VerdictOptions> verdict;
  std::vector<QuantityOfInterest> quantities;
  bool keep_pooled_cost_matrix = false;  // with a verdict
  // Called from worker threads, never concurrently with itself.
  std::function<void(const ResamplingProgress&)> verdict_progress;
  // Called on the calling thread as each phase starts.
  std::function<void(ValidationPhase)> on_phase;
};

struct RunSummary {
  std::string id;
  uint64_t samples = 0;
  double weight = 0.0;  // normalised
};

// Diagnostics of one pair (sim, ref) of the transport plan.
struct PairDiagnostics {
  int sim = 0;
  int ref = 0;
  double twed = 0.0;
  uint64_t matches = 0;
  uint64_t sim_deletions = 0;
  uint64_t ref_deletions = 0;
  double mean_time_shift = 0.0;  // mean of t_ref - t_sim over matched samples
};

struct ValidationReport {
  double distance = 0.0;
  double order = 1.0;
  TransportSolver solver = TransportSolver::kAssignment;
  TwedParams twed;
  Align align = Align::kStart;
  Scale scale = Scale::kNone;
  std::optional<double> resample_rate;  // Hz
  std::vector<std::string> channels;
  std::vector<RunSummary> simulation;
  std::vector<RunSummary> reference;
  std::vector<PlanEntry> plan;
  std::vector<double> sim_contributions;
  std::vector<double> ref_contributions;
  std::vector<PairDiagnostics> pairs;  // one per plan entry, same order
  TransportCertificate certificate;
  double weight_rounding_bound = 0.0;
  std::optional<CostMatrix> cost_matrix;  // when keep_cost_matrix
  std::optional<Verdict> verdict;
  std::vector<PairMetrics> pair_metrics;             // plan order, then channel order
  std::vector<ChannelMetrics> pair_metrics_average;  // plan-weighted, one per channel
  std::vector<QuantityComparison> quantities;
  std::optional<CostMatrix> pooled_cost_matrix;  // when kept: TWED, floor not subtracted
  uint64_t dp_cells = 0;
  double seconds = 0.0;  // wall time of the whole validation
};

absl::StatusOr<ValidationReport> Validate(const std::vector<Series>& simulation,
                                          const std::vector<Series>& reference,
                                          const ValidationOptions& options);

}  // namespace wasserwarp

#endif  // WASSERWARP_VALIDATION_H_
