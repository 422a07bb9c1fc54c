// Lower bounds on TWED(a, b) as defined in shared/spec/twed.md, for skipping
// pairs whose distance cannot matter. Statements, proofs and costs:
// docs/twed_bounds.md.
//
// Each bound holds for the exact value of every edit path's cost. The
// computed TWED rounds its sums along the optimal path, and a bound rounds
// its own sums, so where a bound is tight the two can differ by a few ulps
// (relative ~1e-15 per summed term) in either direction.

#ifndef WASSERWARP_SRC_TWED_TWED_BOUNDS_H_
#define WASSERWARP_SRC_TWED_TWED_BOUNDS_H_

#include <cstdint>
#include <span>
#include <vector>

#include "absl/status/statusor.h"
#include "wasserwarp/series.h"
#include "wasserwarp/twed.h"

namespace wasserwarp {

// lambda * |a_samples - b_samples|: every edit path deletes at least that
// many samples, each for lambda or more. O(1), from the lengths alone.
double TwedDeletionFloor(uint64_t a_samples, uint64_t b_samples, double lambda);

// min(2 L(1,1) + L(n,m) + lambda |n - m|, Z), where L(i,j) is the spec's
// c(a_i, b_j) + nu |ta_i - tb_j| and Z the cost of the path that deletes
// everything after the start cell (exactly Z when either run has one sample).
// O((n + m) d). Errors as for Twed's inputs.
absl::StatusOr<double> TwedEndpointBound(const Series& a, const Series& b,
                                         const TwedParams& params);

// What TwedEndpointBound needs of one run, so that many pairs cost O(d) each: its first and
// last samples and times, its length, and the sum of its deletion costs del_2 .. del_n.
struct TwedEndpoints {
  std::vector<double> first;
  std::vector<double> last;
  double first_time = 0.0;
  double last_time = 0.0;
  uint64_t samples = 0;
  double deletion_sum = 0.0;
};

// Errors as ValidateSeries and ValidateTwedParams.
absl::StatusOr<TwedEndpoints> TwedEndpointsOf(const Series& run, const TwedParams& params);

// TwedEndpointBound from both runs' endpoints, less 1e-9 of itself: each run's deletions are
// summed on their own here and not in the DP's order, which rounds differently by up to about
// n eps relative, so that without the margin a bound that is tight (runs of one sample, runs
// whose cheapest path deletes everything) could round above the TWED. The runs must have the
// same channel count.
double TwedEndpointBound(const TwedEndpoints& a, const TwedEndpoints& b, const TwedParams& params);

// The cost of the edit path that matches the first samples and deletes every other sample, an
// upper bound on TWED(a, b), with 1e-9 of itself added for the same reason as the margin above.
double TwedAllDeletedCost(const TwedEndpoints& a, const TwedEndpoints& b, const TwedParams& params);

// Every row (and, the other way round, every column) of the DP is entered
// once, by a match or a deletion: the sum over rows of the cheaper of a lower
// bound on the match (a's sample against b's per-channel envelope and nearest
// timestamp, within the time window when there is one) and the deletion, plus
// the deletions that the length difference forces. The larger of the two
// directions. O((n + m) d). Errors as for Twed's inputs.
absl::StatusOr<double> TwedEnvelopeBound(const Series& a, const Series& b,
                                         const TwedParams& params);

// The larger of TwedEndpointBound and TwedEnvelopeBound, which both dominate
// the deletion floor.
absl::StatusOr<double> TwedPairBound(const Series& a, const Series& b, const TwedParams& params);

// |TWED(a, p) - TWED(b, p)| from the two distances to a pivot run p, by the
// triangle inequality. Without a time window only: a window breaks the
// triangle inequality, and such params are InvalidArgument, as are distances
// that are negative or not finite.
absl::StatusOr<double> TwedPivotBound(double a_to_pivot, double b_to_pivot,
                                      const TwedParams& params);

// The best TwedPivotBound over several pivots: a_to_pivots[k] and
// b_to_pivots[k] are the distances of a and b to pivot k. 0 without pivots;
// spans of different lengths are InvalidArgument.
absl::StatusOr<double> TwedPivotsBound(std::span<const double> a_to_pivots,
                                       std::span<const double> b_to_pivots,
                                       const TwedParams& params);

}  // namespace wasserwarp

#endif  // WASSERWARP_SRC_TWED_TWED_BOUNDS_H_
