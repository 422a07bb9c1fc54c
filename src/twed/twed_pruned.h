// TWED against a threshold, for callers that only need the distance when it is small (nearest
// neighbours, pairs that pass a verdict): the DP skips the cells that cannot lead to a distance
// at or below the threshold, and stops once none can. What it returns within the threshold is
// the very number Twed() returns. Also a cheap upper bound, the cost of one feasible edit path,
// from which such a threshold can start.

#ifndef WASSERWARP_SRC_TWED_TWED_PRUNED_H_
#define WASSERWARP_SRC_TWED_TWED_PRUNED_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "wasserwarp/cancellation.h"
#include "wasserwarp/series.h"
#include "wasserwarp/twed.h"

namespace wasserwarp {

// TWED(a, b) when it is at most `threshold`, else a proof that it is larger.
struct BoundedTwed {
  // true: value == Twed(a, b, params) bit for bit; false: TWED(a, b) > threshold
  bool within = false;
  // within: the distance; otherwise a lower bound on it, >= threshold
  double value = 0.0;
  // DP cells evaluated
  uint64_t cells = 0;
};

// Visits only DP cells whose D(i, j) can be <= threshold (costs are non-negative, so D never
// decreases along a path: a cell above the threshold can be pruned, as in EAPruned, Herrmann &
// Webb 2021), and stops ("early abandoning") as soon as a whole row is above it. threshold = +inf
// gives the full DP.
// Errors as for Twed (same validation, same messages, Cancelled when `cancel` is set). A negative
// or NaN threshold is InvalidArgument on field "threshold".
//
// A distance that overflows a double exceeds every finite threshold: it is `within = false`
// then, and the error Twed reports only for threshold = +inf. A time window that leaves no path
// is Twed's error whatever the threshold. When not within, `value` is currently the threshold
// itself: every row of the DP holds a cell of the optimal path, and the abandoned row's cells
// are all above the threshold.
absl::StatusOr<BoundedTwed> TwedWithin(const Series& a, const Series& b, const TwedParams& params,
                                       double threshold, const CancellationToken* cancel = nullptr);

// The cost of one feasible edit path from (1,1) to (n,m): the walk that merges both runs by time.
// From cell (i, j) with both runs unfinished it looks at the next samples' times x = ta_{i+1} and
// y = tb_{j+1}: when x < y and tb_j is nearer to x than y is, it deletes in a (x belongs with
// b's current sample); symmetrically when y < x and ta_i is nearer to y than x is, it deletes in
// b; otherwise (the next samples are each other's nearest, ties included) it matches. Once a run
// is finished it deletes in the other. So a run against itself is all matches, at cost 0.
//
// Each step is costed with the recurrence's own floating-point operations, (D + L) rounded and
// then + L(i, j) for a match, D + del for a deletion, with the same L(i, j), delA and delB. That
// makes the result >= Twed(a, b) exactly, with no margin: Twed's D(i, j) is the minimum over its
// predecessors of the same rounded sums, and rounding is monotone, so by induction along the walk
// its running cost never falls below D at the same cell. O((n + m) d) per pair. With a time
// window, +inf when the walk leaves the window. Errors as for Twed's inputs.
absl::StatusOr<double> TwedPathUpperBound(const Series& a, const Series& b,
                                          const TwedParams& params);

}  // namespace wasserwarp

#endif  // WASSERWARP_SRC_TWED_TWED_PRUNED_H_
