// Time Warp Edit Distance between two series with real timestamps, as
// defined in shared/spec/twed.md: Marteau's recurrence with a rooted Lp
// ground norm, so that TWED is a metric for nu > 0 and lambda >= 0.
//
// Every function here uses memory linear in the series lengths.

#ifndef WASSERWARP_TWED_H_
#define WASSERWARP_TWED_H_

#include <cstdint>
#include <optional>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "wasserwarp/cancellation.h"
#include "wasserwarp/series.h"

namespace wasserwarp {

struct TwedParams {
  double nu = 0.001;                  // stiffness: cost per second of time mismatch
  double lambda = 0.0;                // fixed cost of each deletion
  double p = 2.0;                     // Lp norm across channels, p >= 1
  std::optional<double> time_window;  // cell (i, j) allowed only if |ta_i - tb_j| <= w
};

// Ok when nu >= 0, lambda >= 0, p >= 1 and the window (if any) is > 0, all finite.
absl::Status ValidateTwedParams(const TwedParams& params);

// TWED(a, b). Both series must be valid and have the same channel count.
// A time window that leaves no path from the first to the last samples is
// InvalidArgument naming both series. A `cancel` token found cancelled,
// before or during the computation, makes it Cancelled; the kernels poll it
// every few hundred thousand DP cells, well under a second apart.
absl::StatusOr<double> Twed(const Series& a, const Series& b, const TwedParams& params,
                            const CancellationToken* cancel = nullptr);

// The DP cells Twed visits, for progress and throughput accounting.
uint64_t TwedCells(const Series& a, const Series& b);

// One optimal edit path summarised. matches + a_deletions == a.samples() and
// matches + b_deletions == b.samples(); the start cell (1, 1) counts as a match.
struct EditPathSummary {
  double distance = 0.0;
  uint64_t matches = 0;
  uint64_t a_deletions = 0;
  uint64_t b_deletions = 0;
  double mean_time_shift = 0.0;  // mean of tb_j - ta_i over matched samples
};

// The distance with the operations along one optimal edit path; ties are
// broken match first, then deletion in a, then deletion in b. The distance is
// the same number Twed returns. `cancel` as for Twed.
absl::StatusOr<EditPathSummary> TwedWithPath(const Series& a, const Series& b,
                                             const TwedParams& params,
                                             const CancellationToken* cancel = nullptr);

}  // namespace wasserwarp

#endif  // WASSERWARP_TWED_H_
