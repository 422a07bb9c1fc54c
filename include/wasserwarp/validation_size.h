// What a validation will hold and compute, from the runs' shapes and the options alone, so
// that every front end can refuse a request before any of it is allocated or computed: the
// resampled runs, the DP cells of the cost matrices, the matrices themselves, the verdict's
// transport solves, the report and its HTML page.

#ifndef WASSERWARP_VALIDATION_SIZE_H_
#define WASSERWARP_VALIDATION_SIZE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "wasserwarp/series.h"
#include "wasserwarp/validation.h"

namespace wasserwarp {

// A run as far as sizes go.
struct RunShape {
  std::string id;
  uint64_t samples = 0;
  uint64_t channels = 0;
  double first_time = 0.0;
  double last_time = 0.0;
  // The median of its sampling steps (0 below two samples): the step of the grid an ISO/TS 18571
  // rating puts it on as a reference.
  double median_step = 0.0;
};
RunShape ShapeOf(const Series& run);

// A limit and the name the front end knows it by (a server flag, a CLI flag), which errors
// name; 0: no limit.
struct SizeLimit {
  uint64_t value = 0;
  std::string name;
};

struct ValidationLimits {
  SizeLimit samples_per_run;  // after resampling
  SizeLimit dp_cells;         // TWED cells of every matrix, ISO/TS 18571 DTW cells, the verdict's
                              // transport cells
  SizeLimit bytes;            // everything the job holds at its peak
  // Threads that hold TWED rows and transport problems at once; 0: every core.
  int threads = 0;
  // What the front end makes of the report: copies it holds besides the core's (a proto and
  // its wire bytes, or JSON text), and whether it renders the HTML page.
  int report_copies = 1;
  bool html_report = false;
};

struct ValidationSize {
  uint64_t largest_run_samples = 0;  // after resampling
  uint64_t dp_cells = 0;             // simulation x reference cost matrix
  uint64_t pooled_dp_cells = 0;      // the verdict's sim-sim and ref-ref pairs
  // The verdict's transport solves and the cost entries they read: K permutations of n x m,
  // and 2K baseline splits of half the references.
  uint64_t resampling_solves = 0;
  uint64_t resampling_cells = 0;
  uint64_t bytes = 0;  // the job's peak memory, bounded from above
  // With ISO/TS 18571: its DTW cells over every channel of at most n + m - 1 plan pairs, each
  // as large as the largest pair's.
  uint64_t iso18571_dtw_cells = 0;
};

// The sizes that `options` imply for runs of these shapes. InvalidArgument where an option is
// outside its definition (a resample rate that is not a positive finite number).
absl::StatusOr<ValidationSize> EstimateValidationSize(const std::vector<RunShape>& simulation,
                                                      const std::vector<RunShape>& reference,
                                                      const ValidationOptions& options,
                                                      const ValidationLimits& limits);

// Ok, or ResourceExhausted (LimitExceededError) naming the option that implies the size, the
// size, and the limit that bounds it.
absl::Status CheckValidationSize(const std::vector<RunShape>& simulation,
                                 const std::vector<RunShape>& reference,
                                 const ValidationOptions& options, const ValidationLimits& limits);

}  // namespace wasserwarp

#endif  // WASSERWARP_VALIDATION_SIZE_H_
