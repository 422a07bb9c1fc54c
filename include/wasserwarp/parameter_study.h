// Parameter studies: simulated runs at several parameter vectors (design points), all against
// the same references. One cost matrix of every simulated run against every reference is
// computed once; each design point's W is a transport solve on its rows, so no TWED is computed
// twice. Sensitivity (wasserwarp/sensitivity.h) and identification (wasserwarp/identification.h)
// both start from the design and the costs here.

#ifndef WASSERWARP_PARAMETER_STUDY_H_
#define WASSERWARP_PARAMETER_STUDY_H_

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "wasserwarp/cancellation.h"
#include "wasserwarp/cost_matrix.h"
#include "wasserwarp/report.h"
#include "wasserwarp/run_parameters.h"
#include "wasserwarp/verdict.h"

namespace wasserwarp {

struct DesignPoint {
  std::vector<double> parameters;   // in the order of StudyDesign::names
  std::vector<size_t> runs;         // rows of the simulated runs, ascending
  std::vector<std::string> trials;  // one per run; empty strings when no trials are named
};

// A parameter written down at one value for every run: no axis of the study.
struct FixedParameter {
  std::string name;
  double value = 0.0;
  friend bool operator==(const FixedParameter&, const FixedParameter&) = default;
};

struct StudyDesign {
  std::vector<std::string> names;   // the parameters that vary
  std::vector<DesignPoint> points;  // ordered by parameter vector
  size_t simulation_runs = 0;
  bool has_trials = false;
  // The parameters whose value is the same at every design point, in their file's order, when
  // some other parameter varies: they are left out of `names` and of the points' vectors.
  std::vector<FixedParameter> fixed;
};

// The design points of the simulated runs `run_ids` (in their order, the rows of the cost
// matrix), from `table` (ParametersForRuns's errors). InvalidArgument naming the file and both
// lines when two runs of one point name the same trial: they would be one dependent trial twice.
absl::StatusOr<StudyDesign> DesignOf(const ParameterTable& table,
                                     const std::vector<std::string>& run_ids);

// The same for runs that carry their parameters by name (uploaded to a server): every run must
// name the same parameters, and every run a trial or none. `source` says where the runs are,
// for errors.
absl::StatusOr<StudyDesign> DesignOfNamedRuns(
    const std::vector<std::string>& run_ids,
    const std::vector<std::map<std::string, double>>& parameters,
    const std::vector<std::string>& trials, std::string_view source);

// The trials every one of `points` holds, each once, sorted: the units a paired resample draws.
// Nothing when the design names no trials or the points hold different ones.
std::optional<std::vector<std::string>> SharedTrials(const StudyDesign& design,
                                                     const std::vector<size_t>& points);

// The index of the point at `parameters` (every name of the design, no other but fixed
// parameters at their value), if any.
std::optional<size_t> FindPoint(const StudyDesign& design,
                                const std::map<std::string, double>& parameters);

// `nominal` in the order of the design's names; InvalidArgument about field "nominal" for a
// parameter missing from it or not in the design, or a fixed one at another value. A fixed
// parameter may be left out of it.
absl::StatusOr<std::vector<double>> NominalVector(const StudyDesign& design,
                                                  const std::map<std::string, double>& nominal);

// What every analysis of a study reads: computed once, by Validate here or on a server.
struct StudyCosts {
  CostMatrix sim_ref;  // every simulated run x every reference run
  CostMatrix ref_ref;  // references x references, for their baseline spread
  std::vector<std::string> simulation_ids;
  std::vector<std::string> reference_ids;
  // One per --qoi: its value on each simulated run and on each reference run.
  std::vector<QuantityComparison> quantities;
  uint64_t dp_cells = 0;
  double seconds = 0.0;
};

// The costs from the validation of every simulated run against the references (with its cost
// matrix) and the references' symmetric matrix `ref_ref` of `ref_ref_cells` DP cells.
// InvalidArgument when the validation lacks its matrix or the sizes do not fit together.
absl::StatusOr<StudyCosts> StudyCostsOf(const ValidationReport& sim_ref, CostMatrix ref_ref,
                                        uint64_t ref_ref_cells);

// Options every analysis of a study takes.
struct StudyOptions {
  double order = 1.0;        // q of W_q
  int resamples = 999;       // bootstrap resamples
  double confidence = 0.95;  // of the intervals
  int splits = 999;          // of the references' baseline
  uint64_t seed = 1;
  int max_threads = 0;  // 0: every core oneTBB sees
  const CancellationToken* cancel = nullptr;
  // Transport solves done of each resampling loop (the baseline's splits, the bootstrap), from
  // worker threads, never concurrently with itself.
  std::function<void(const ResamplingProgress&)> progress;
};

// InvalidArgument naming the field for q < 1, resamples or splits outside [1, 1000000] and a
// confidence outside (0, 1).
absl::Status ValidateStudyOptions(const StudyOptions& options);

// The references' own spread: the median over `splits` random splits into two disjoint halves
// of W between the halves, as the verdict's baseline ref_ref_median (the same halves for the
// same seed whenever the verdict's halves are m/2). Nothing with fewer than 2 references.
absl::StatusOr<std::optional<double>> ReferenceBaseline(const StudyCosts& costs,
                                                        const StudyOptions& options);

// A design point's W_q with uniform weights: exactly the W a validation of its runs alone
// against the references reports.
absl::StatusOr<double> PointDistance(const StudyCosts& costs, const DesignPoint& point,
                                     double order);

// What both study reports hold beside their result: the sizes, the bootstrap's settings and
// the cost.
struct StudySummary {
  int simulation_runs = 0;
  int reference_runs = 0;
  int resamples = 0;
  double confidence = 0.0;
  uint64_t seed = 0;
  uint64_t dp_cells = 0;
  double seconds = 0.0;  // the costs' and the analysis's
  std::vector<std::string> warnings;
};

// The summary of an analysis of `costs` with `options` that started at `start`.
StudySummary SummaryOf(const StudyCosts& costs, const StudyOptions& options,
                       std::chrono::steady_clock::time_point start);

// A design point in a report.
struct StudyPoint {
  std::vector<double> parameters;  // in the order of the report's names
  int runs = 0;
  double distance = 0.0;
};

}  // namespace wasserwarp

#endif  // WASSERWARP_PARAMETER_STUDY_H_
