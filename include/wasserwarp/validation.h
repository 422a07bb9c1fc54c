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
#include "wasserwarp/prepare.h"
#include "wasserwarp/series.h"
#include "wasserwarp/transport.h"
#include "wasserwarp/twed.h"

namespace wasserwarp {

enum class ValidationPhase {
  kPreparing,
  kCostMatrix,  // progress in detail through compute.progress
  kTransport,
  kDiagnostics,
};

struct ValidationOptions {
  PrepareOptions prepare;
  TwedParams twed;
  double order = 1.0;
  std::vector<double> simulation_weights;  // empty: uniform
  std::vector<double> reference_weights;
  bool keep_cost_matrix = false;
  CostMatrixOptions compute;
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
  uint64_t dp_cells = 0;
  double seconds = 0.0;  // wall time of the whole validation
};

absl::StatusOr<ValidationReport> Validate(const std::vector<Series>& simulation,
                                          const std::vector<Series>& reference,
                                          const ValidationOptions& options);

}  // namespace wasserwarp

#endif  // WASSERWARP_VALIDATION_H_
