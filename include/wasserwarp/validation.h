// The whole validation of a set of simulated runs against a set of
// reference runs: preparation, TWED cost matrix, optimal transport and
// per-pair diagnostics.

#ifndef WASSERWARP_VALIDATION_H_
#define WASSERWARP_VALIDATION_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "wasserwarp/cost_matrix.h"
#include "wasserwarp/cost_tiles.h"
#include "wasserwarp/iso18571.h"
#include "wasserwarp/pair_metrics.h"
#include "wasserwarp/prepare.h"
#include "wasserwarp/quantity_of_interest.h"
#include "wasserwarp/report.h"
#include "wasserwarp/runs_view.h"
#include "wasserwarp/series.h"
#include "wasserwarp/tolerance_band.h"
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

class CostMatrixSource;

struct ValidationOptions {
  PrepareOptions prepare;
  TwedParams twed;
  double order = 1.0;
  std::vector<double> simulation_weights;  // empty: uniform
  std::vector<double> reference_weights;
  bool keep_cost_matrix = false;
  // Compute every pair of the cost matrix even where the lazy transport (lazy_transport.h)
  // would give the same distance from a fraction of them. The matrix is computed whole
  // anyway when it is kept, for a verdict and from a cost_source.
  bool exhaustive = false;
  CostMatrixOptions compute;
  // The permutation test, baseline and decision rules; not run when absent.
  std::optional<VerdictOptions> verdict;
  std::vector<QuantityOfInterest> quantities;
  bool keep_pooled_cost_matrix = false;  // with a verdict
  // Called from worker threads, never concurrently with itself.
  std::function<void(const ResamplingProgress&)> verdict_progress;
  // Called on the calling thread as each phase starts.
  std::function<void(ValidationPhase)> on_phase;
  // Where the TWED matrices come from; unset, ComputeCostMatrix and ComputePooledCostMatrix
  // here. The report is the same number for number either way.
  CostMatrixSource* cost_source = nullptr;
  // Tolerance bands scored on every pair of the plan; at most one a channel.
  std::vector<ToleranceBand> bands;

  // The ISO/TS 18571 rating of every plan pair and channel (iso18571.h); a verdict's
  // min_iso_rating asks for it too (RatesIso18571).
  bool iso18571 = false;
};

// Whether a validation with `options` rates its pairs by ISO/TS 18571.
bool RatesIso18571(const ValidationOptions& options);

// The runs a validation computes its matrices on: prepared (PrepareRuns) and, for a verdict
// whose groups Resampling::kAuto thins to one rate, thinned to that rate.
struct ValidationRuns {
  PreparedRuns prepared;
  std::optional<double> verdict_grid_rate;
  std::optional<PreparedRuns> verdict_runs;  // with verdict_grid_rate
};

// What Validate computes its matrices on, from the same inputs and options: deterministic, so a
// worker elsewhere that prepares the same runs computes the same TWEDs.
absl::StatusOr<ValidationRuns> PrepareValidationRuns(const RunsView& simulation,
                                                     const RunsView& reference,
                                                     const ValidationOptions& options);

// The matrices Validate asks for, in its order: the simulation-reference one, and with a
// verdict the one on the verdict's grid (where there is one) and the two within-group ones.
std::vector<CostMatrixKind> CostMatricesOf(const ValidationRuns& runs,
                                           const ValidationOptions& options);

// The rows and columns of a matrix of `runs`; FailedPrecondition for the verdict's grid when
// the verdict has none.
struct MatrixRuns {
  const std::vector<Series>* rows = nullptr;
  const std::vector<Series>* cols = nullptr;
};
absl::StatusOr<MatrixRuns> RunsOf(const ValidationRuns& runs, CostMatrixKind kind);

// Computes a validation's TWED matrices somewhere else than ComputeCostMatrix would: on other
// machines, in tiles (the server's replicas). Validate calls it on its own thread, for each
// kind of CostMatricesOf in order.
class CostMatrixSource {
 public:
  virtual ~CostMatrixSource() = default;
  // The `kind` matrix of `runs` (RunsOf): rows x cols, or for a within-group kind symmetric
  // with a zero diagonal. `options` holds the validation's cancellation token and threads.
  virtual absl::StatusOr<CostMatrix> Compute(CostMatrixKind kind, const ValidationRuns& runs,
                                             const TwedParams& params,
                                             const CostMatrixOptions& options) = 0;
};

// Ok when `options` fit `simulation_runs` against `reference_runs` runs: the TWED parameters
// (ValidateTwedParams), the resample rate (ValidateResampleRate), the order and weights
// (ValidateTransportOptions), the tolerance bands (ValidateToleranceBands) and, when present,
// the verdict's options (ValidateVerdictOptions; band_min_inside needs a band). These are the
// checks Validate makes before it looks at a run, so a front end can refuse bad options before any
// run is read.
absl::Status ValidateValidationOptions(const ValidationOptions& options, size_t simulation_runs,
                                       size_t reference_runs);

// InvalidArgument, before any work, when ValidateValidationOptions fails. The report's engine is
// ThisEngine() and its request_digest RequestDigest(options, simulation, reference); its labels
// and run sources are left to the caller.
absl::StatusOr<ValidationReport> Validate(const RunsView& simulation, const RunsView& reference,
                                          const ValidationOptions& options);

}  // namespace wasserwarp

#endif  // WASSERWARP_VALIDATION_H_
