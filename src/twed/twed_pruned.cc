// Pruned, early-abandoned TWED (EAPruned of Herrmann & Webb 2021, on TWED's recurrence).
//
// Why a pruned value is exact. Let D be Twed's matrix and D' the one computed here, where a cell
// left out (not visited, or outside the columns a row computes) reads as +inf. Every candidate of
// the recurrence is a rounded sum of a predecessor and a non-negative cost, and rounding is
// monotone, so D' >= D everywhere (an input replaced by +inf or by anything larger can only
// raise a min of monotone sums), and fl(x + c) >= x: D never decreases along a path. Now take a
// cell with D(i, j) <= T. The candidate that attains D(i, j) comes from a predecessor p with
// D(p) <= D(i, j) <= T; by induction D'(p) == D(p), so that candidate is the same double. Every
// other candidate is >= its value in D, itself >= D(i, j). min is exact, so D'(i, j) == D(i, j)
// bit for bit, and as every kernel evaluates the candidates with the same operations in the same
// order (twed_kernel.h), that is the bits Twed() returns. Conversely D'(i, j) > T implies
// D(i, j) > T, so a cell computed above T is dead: it cannot lie on a path to a result <= T, and
// neither can a cell all of whose predecessors are dead.
//
// So a row needs computing only from the first live column of the row above (left of it every
// predecessor is dead) to the last live one + 1, and further right only while its own left
// neighbour lives. Dead cells inside that range keep their computed values, which are >= D and so
// as good as +inf; what must never be read is a stale value of an older row, so the buffers keep
// +inf outside the range last written. A row with no live cell abandons: every path crosses every
// row, so TWED > T.

#include "twed/twed_pruned.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "twed/twed_kernel.h"
#include "wasserwarp/cancellation.h"
#include "wasserwarp/field_error.h"
#include "wasserwarp/series.h"
#include "wasserwarp/twed.h"

namespace wasserwarp {
namespace twed_internal {
namespace {

struct PrunedResult {
  double distance = kInf;  // D'(n, m); > T when the DP was abandoned
  uint64_t cells = 0;
};

// Columns lo..hi of one row (empty when lo > hi).
struct Columns {
  ptrdiff_t lo;
  ptrdiff_t hi;
};

// The first and last columns of d[range] that are <= t; lo > hi when none is.
Columns LiveColumns(const double* d, Columns range, double t) {
  ptrdiff_t lo = range.lo;
  while (lo <= range.hi && !(d[lo] <= t)) ++lo;
  ptrdiff_t hi = range.hi;
  while (hi >= lo && !(d[hi] <= t)) --hi;
  return {lo, hi};
}

// Restores +inf in the columns of `old_range` outside `new_range`, where the row buffers hold
// an older row's values.
void ClearOutside(Columns old_range, Columns new_range, double* d, double* dl) {
  for (ptrdiff_t j = old_range.lo; j <= std::min(old_range.hi, new_range.lo - 1); ++j) {
    d[j] = kInf;
    dl[j] = kInf;
  }
  for (ptrdiff_t j = std::max(old_range.lo, new_range.hi + 1); j <= old_range.hi; ++j) {
    d[j] = kInf;
    dl[j] = kInf;
  }
}

// Rows i0 .. i0+R-1 as StripRows of twed.cc computes them (lane k one column behind lane k-1),
// but from column `first` on only, and right of column `live_hi` + 1 (the last live cell of the
// row above, + 1 for its diagonal) only until every lane has been dead two steps running: then
// lane 0 has no live predecessor left, and each lane k > 0 neither (its up and diagonal
// predecessors are lane k-1's cells of those two steps). On entry d and dl hold row i0-1 and
// +inf outside the columns it computed; on exit lane R-1's row over columns first-R+1 .. the
// returned column (those left of `first` are +inf). Adds the real cells computed to `cells`.
template <int R, class Cost>
ptrdiff_t PrunedStrip(const Cost& cost, double nu, const Side& a, const Side& b, ptrdiff_t i0,
                      ptrdiff_t first, ptrdiff_t live_hi, double t, double* d, double* dl,
                      uint64_t& cells) {
  const ptrdiff_t m = b.size();
  // +inf, the lanes' start, is the border left of `first`: every cell there is dead.
  ScalarLanes<R> lanes = StartScalarLanes<R>(cost, a, i0, dl[first - 1]);
  // Past column m + R - 1 no lane has a real column left.
  const ptrdiff_t last_step = m + R - 1;
  const ptrdiff_t bulk_end = std::min(live_hi + 1, last_step);
  ptrdiff_t s = first;
  for (; s <= bulk_end; ++s) ScalarStripStep(cost, nu, b, lanes, s, d, dl);
  bool was_dead = false;
  for (; s <= last_step; ++s) {
    ScalarStripStep(cost, nu, b, lanes, s, d, dl);
    bool dead = true;
    for (int k = 0; k < R; ++k) dead = dead && !(lanes.d[k] <= t);
    if (dead && was_dead) break;
    was_dead = dead;
  }
  const ptrdiff_t end = std::min(s, last_step);  // the last step run
  for (int k = 0; k < R; ++k) {
    cells += static_cast<uint64_t>(std::max<ptrdiff_t>(0, std::min(end - k, m) - first + 1));
  }
  return end - R + 1;
}

// PrunedStrip for the `rows` (< R) rows left over after the full strips.
template <int R, class Cost>
ptrdiff_t PrunedLastRows(int rows, const Cost& cost, double nu, const Side& a, const Side& b,
                         ptrdiff_t i0, ptrdiff_t first, ptrdiff_t live_hi, double t, double* d,
                         double* dl, uint64_t& cells) {
  if constexpr (R > 1) {
    if (rows < R) {
      return PrunedLastRows<R - 1>(rows, cost, nu, a, b, i0, first, live_hi, t, d, dl, cells);
    }
  }
  return PrunedStrip<R>(cost, nu, a, b, i0, first, live_hi, t, d, dl, cells);
}

// The pruned DP without a time window, in strips of kScalarStripRows rows. Pruning is per strip:
// each strip starts at the first live column of the row above it and is cut as PrunedStrip says,
// which keeps StripTwed's per-cell speed where it computes at all. Returns early once `poller`
// reports a cancel.
template <class Cost>
PrunedResult PrunedStripTwed(const Cost& cost, double nu, const Side& a, const Side& b, double t,
                             CancelPoller& poller) {
  const ptrdiff_t n = a.size();
  const ptrdiff_t m = b.size();
  StripRowBuffers buffers(m);
  double* d = buffers.d();
  double* dl = buffers.dl();
  PrunedResult result;
  Columns written{0, 0};  // of the row above; +inf elsewhere
  Columns live{0, 0};     // its cells <= t
  uint64_t strip_cells = 0;
  for (ptrdiff_t i = 1; i <= n; i += kScalarStripRows) {
    if (poller.Cancelled(strip_cells)) return result;
    const int rows = static_cast<int>(std::min<ptrdiff_t>(kScalarStripRows, n - i + 1));
    const ptrdiff_t first = std::max<ptrdiff_t>(live.lo, 1);
    const uint64_t before = result.cells;
    const ptrdiff_t last = PrunedLastRows<kScalarStripRows>(rows, cost, nu, a, b, i, first, live.hi,
                                                            t, d, dl, result.cells);
    strip_cells = result.cells - before;
    const Columns now{first, last};
    ClearOutside(written, now, d, dl);
    written = now;
    live = LiveColumns(d, written, t);
    if (live.lo > live.hi) return result;  // abandoned
  }
  result.distance = d[m];
  return result;
}

// The pruned DP restricted to `bands`, one row at a time as BandedTwed<false> computes it:
// banded rows have their own column range each, which the strip's lanes cannot follow.
template <class Cost>
PrunedResult PrunedBandedTwed(const Cost& cost, double nu, const Side& a, const Side& b,
                              std::span<const Band> bands, double t, CancelPoller& poller) {
  const ptrdiff_t n = a.size();
  const ptrdiff_t m = b.size();
  const size_t c = cost.channels();
  const size_t width = static_cast<size_t>(m) + 1;
  std::vector<double> prev_d(width, kInf), prev_dl(width, kInf);
  std::vector<double> cur_d(width, kInf), cur_dl(width, kInf);
  prev_d[0] = 0.0;
  prev_dl[0] = 0.0;
  PrunedResult result;
  Columns prev_written{0, 0};
  Columns cur_written{1, 0};  // cur holds the row two above; nothing yet
  Columns live{0, 0};
  for (ptrdiff_t i = 1; i <= n; ++i) {
    const Band band = bands[i - 1];
    const ptrdiff_t first = std::max(band.lo, live.lo);
    // Right of live.hi + 1 a cell has no live predecessor but its left neighbour.
    const ptrdiff_t bulk_end = std::min(band.hi, live.hi + 1);
    const double* ai = a.sample(i, c);
    const double tai = a.time(i);
    const double del_a = a.del(i);
    double left = kInf;
    ptrdiff_t j = first;
    const auto cell = [&](ptrdiff_t col) __attribute__((always_inline)) {
      const double l = LocalCost(cost, ai, tai, b.sample(col, c), b.time(col), nu);
      const TwedCell<double> step =
          TwedStep(ScalarOps(), prev_dl[col - 1], l, prev_d[col], del_a, left, b.del(col));
      cur_d[col] = step.d;
      cur_dl[col] = step.dl;
      left = step.d;
    };
    for (; j <= bulk_end; ++j) cell(j);
    for (; j <= band.hi && left <= t; ++j) cell(j);
    const Columns now{first, j - 1};
    result.cells += static_cast<uint64_t>(std::max<ptrdiff_t>(0, now.hi - now.lo + 1));
    // Row i - 2's cells outside this row's range; the rest of cur is +inf already.
    ClearOutside(cur_written, now, cur_d.data(), cur_dl.data());
    cur_written = prev_written;
    prev_written = now;
    std::swap(prev_d, cur_d);
    std::swap(prev_dl, cur_dl);
    live = LiveColumns(prev_d.data(), now, t);
    if (live.lo > live.hi) return result;  // abandoned (or a row without allowed columns)
    if (poller.Cancelled(static_cast<uint64_t>(now.hi - now.lo + 1))) return result;
  }
  result.distance = prev_d[m];
  return result;
}

// Whether some edit path stays within `bands` from (1, 1) to (n, m). Both band ends never
// decrease, so row i is reachable from row i-1 iff its first column is at most one right of
// the last column of row i-1 (a match), and then every allowed column of row i is.
bool BandsHavePath(std::span<const Band> bands, ptrdiff_t m) {
  if (bands.front().lo > 1 || bands.back().hi < m) return false;
  for (size_t i = 0; i < bands.size(); ++i) {
    if (bands[i].lo > bands[i].hi) return false;
    if (i > 0 && bands[i].lo > bands[i - 1].hi + 1) return false;
  }
  return true;
}

}  // namespace
}  // namespace twed_internal

absl::StatusOr<BoundedTwed> TwedWithin(const Series& a, const Series& b, const TwedParams& params,
                                       double threshold, const CancellationToken* cancel) {
  using twed_internal::Side;
  if (absl::Status s = twed_internal::ValidateTwedInputs(a, b, params); !s.ok()) return s;
  if (!(threshold >= 0.0)) {
    return InvalidFieldError("threshold", absl::StrCat("must be >= 0, got ", threshold));
  }
  if (cancel != nullptr && cancel->cancelled()) return twed_internal::TwedCancelledError();
  twed_internal::CancelPoller poller(cancel);
  absl::Status path_status = absl::OkStatus();
  const twed_internal::PrunedResult result =
      twed_internal::WithCost(a.num_channels(), params.p, [&](const auto& cost) {
        const Side sa(a, 0, cost, params.nu, params.lambda);
        const Side sb(b, twed_internal::kScalarStripPad, cost, params.nu, params.lambda);
        if (!params.time_window) {
          return twed_internal::PrunedStripTwed(cost, params.nu, sa, sb, threshold, poller);
        }
        const std::vector<twed_internal::Band> bands = twed_internal::RowBands(sa, sb, params);
        // Twed's error whatever the threshold, rather than a row abandoned for want of cells.
        if (!twed_internal::BandsHavePath(bands, sb.size())) {
          path_status = twed_internal::NonFiniteTwedError(a, b, params);
          return twed_internal::PrunedResult{};
        }
        return twed_internal::PrunedBandedTwed(cost, params.nu, sa, sb, bands, threshold, poller);
      });
  if (!path_status.ok()) return path_status;
  if (poller.stopped()) return twed_internal::TwedCancelledError();
  if (!(result.distance <= threshold)) {
    return BoundedTwed{.within = false, .value = threshold, .cells = result.cells};
  }
  // Only with threshold = +inf: Twed's overflow error.
  if (!std::isfinite(result.distance)) return twed_internal::NonFiniteTwedError(a, b, params);
  return BoundedTwed{.within = true, .value = result.distance, .cells = result.cells};
}

absl::StatusOr<double> TwedPathUpperBound(const Series& a, const Series& b,
                                          const TwedParams& params) {
  using twed_internal::Side;
  if (absl::Status s = twed_internal::ValidateTwedInputs(a, b, params); !s.ok()) return s;
  return twed_internal::WithCost(a.num_channels(), params.p, [&](const auto& cost) {
    const Side sa(a, 0, cost, params.nu, params.lambda);
    const Side sb(b, 0, cost, params.nu, params.lambda);
    const size_t c = cost.channels();
    const ptrdiff_t n = sa.size();
    const ptrdiff_t m = sb.size();
    const auto allowed = [&](ptrdiff_t i, ptrdiff_t j) {
      return !params.time_window || std::abs(sa.time(i) - sb.time(j)) <= *params.time_window;
    };
    const auto local = [&](ptrdiff_t i, ptrdiff_t j) {
      return twed_internal::LocalCost(cost, sa.sample(i, c), sa.time(i), sb.sample(j, c),
                                      sb.time(j), params.nu);
    };
    if (!allowed(1, 1)) return twed_internal::kInf;
    // The kernels reach (1, 1) as (D + L)(0, 0) + L(1, 1) = 0 + L(1, 1) = L(1, 1).
    double l = local(1, 1);
    double d = l;
    for (ptrdiff_t i = 1, j = 1; i < n || j < m;) {
      bool delete_a = j == m;
      bool delete_b = i == n;
      if (!delete_a && !delete_b) {
        const double x = sa.time(i + 1);
        const double y = sb.time(j + 1);
        delete_a = x < y && std::abs(x - sb.time(j)) < y - x;
        delete_b = y < x && std::abs(y - sa.time(i)) < x - y;
      }
      if (delete_a) {
        d = d + sa.del(++i);
        l = local(i, j);
      } else if (delete_b) {
        d = d + sb.del(++j);
        l = local(i, j);
      } else {
        const double dl = d + l;  // stored rounded, as the kernels store (D + L)
        l = local(++i, ++j);
        d = dl + l;
      }
      if (!allowed(i, j)) return twed_internal::kInf;
    }
    return d;
  });
}

}  // namespace wasserwarp
