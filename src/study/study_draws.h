// The bootstrap of a parameter study: a resample draws the references with replacement (shared
// by every design point) and the runs of each point, either each point on its own
// (independent) or the trials once for all points (paired: a drawn trial brings its run at
// every point, as common random numbers demand). What a resample draws depends on (seed,
// resample) only, never on the thread that runs it.

#ifndef WASSERWARP_SRC_STUDY_STUDY_DRAWS_H_
#define WASSERWARP_SRC_STUDY_STUDY_DRAWS_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "wasserwarp/parameter_study.h"

namespace wasserwarp::study {

// How often each reference run is drawn in resample r.
std::vector<double> DrawReferences(size_t references, uint64_t seed, uint64_t resample);

// How often each run of point p (in its order) is drawn in resample r, on its own.
std::vector<double> DrawPointRuns(const DesignPoint& point, size_t p, uint64_t seed,
                                  uint64_t resample);

// How often each run of `point` is drawn when the trials `shared` are drawn once for all points
// in resample r.
std::vector<double> PairedPointRuns(const DesignPoint& point, const std::vector<double>& trials,
                                    const std::vector<std::string>& shared);

// How often each of `shared` trials is drawn in resample r.
std::vector<double> DrawTrials(const std::vector<std::string>& shared, uint64_t seed,
                               uint64_t resample);

// W_q of point's runs weighted by `run_counts` against the references weighted by `ref_counts`
// (empty: uniform). Runs and references never drawn are left out of the solve.
absl::StatusOr<double> WeightedPointDistance(const StudyCosts& costs, const DesignPoint& point,
                                             const std::vector<double>& run_counts,
                                             const std::vector<size_t>& ref_columns,
                                             const std::vector<double>& ref_counts, double order);

// The sample variance of `values` (0 for fewer than 2).
double Variance(const std::vector<double>& values);

}  // namespace wasserwarp::study

#endif  // WASSERWARP_SRC_STUDY_STUDY_DRAWS_H_
