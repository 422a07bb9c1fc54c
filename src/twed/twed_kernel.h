// Internals shared by the TWED kernels in twed.cc, twed_pruned.cc and twed_path.cc, and by
// the SIMD lanes of twed_strip-inl.h and twed_quantized.cc.
//
// All kernels must produce bit-identical distances, so every floating-point
// expression that reaches D(i, j) is written once, here (TwedStep, which the
// SIMD lanes instantiate on their vectors), and all evaluate it in the same
// association order:
//   L(i, j)  = c(a_i, b_j) + nu * |ta_i - tb_j|
//   D(i, j)  = min(min((D + L)(i-1, j-1) + L(i, j), D(i-1, j) + delA_i), D(i, j-1) + delB_j)
// with (D + L)(i, j) rounded once when it is stored. A virtual sample 0 with
// D(0, 0) = 0, L(0, 0) = 0 and every other border cell +inf makes the spec's
// start D(1, 1) = L(1, 1) fall out of the same formula.

#ifndef WASSERWARP_SRC_TWED_TWED_KERNEL_H_
#define WASSERWARP_SRC_TWED_TWED_KERNEL_H_

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/status/status.h"
#include "wasserwarp/cancellation.h"
#include "wasserwarp/series.h"
#include "wasserwarp/twed.h"

namespace wasserwarp::twed_internal {

inline constexpr double kInf = std::numeric_limits<double>::infinity();

// With one channel every rooted Lp norm is |u - v|; a compile-time channel
// count lets the kernels address samples without a multiply.
struct OneChannelCost {
  static constexpr size_t channels() { return 1; }
  double operator()(const double* u, const double* v) const { return std::abs(*u - *v); }
};

struct L1Cost {
  size_t d;
  size_t channels() const { return d; }
  double operator()(const double* u, const double* v) const {
    double sum = 0.0;
    for (size_t k = 0; k < d; ++k) sum += std::abs(u[k] - v[k]);
    return sum;
  }
};

struct L2Cost {
  size_t d;
  size_t channels() const { return d; }
  double operator()(const double* u, const double* v) const {
    double sum = 0.0;
    for (size_t k = 0; k < d; ++k) sum += (u[k] - v[k]) * (u[k] - v[k]);
    return std::sqrt(sum);
  }
};

struct LpCost {
  size_t d;
  double p;
  double inv_p;
  size_t channels() const { return d; }
  double operator()(const double* u, const double* v) const {
    double sum = 0.0;
    for (size_t k = 0; k < d; ++k) sum += std::pow(std::abs(u[k] - v[k]), p);
    return std::pow(sum, inv_p);
  }
};

// Calls f with the cost functor for `channels` channels and norm p, so that
// each kernel is compiled once per functor.
template <class F>
auto WithCost(size_t channels, double p, F&& f) {
  if (channels == 1) return f(OneChannelCost{});
  if (p == 1.0) return f(L1Cost{channels});
  if (p == 2.0) return f(L2Cost{channels});
  return f(LpCost{channels, p, 1.0 / p});
}

template <class Cost>
double LocalCost(const Cost& cost, const double* u, double tu, const double* v, double tv,
                 double nu) {
  return cost(u, v) + nu * std::abs(tu - tv);
}

// One cell of the recurrence: its three candidates (match, deletion in a, deletion in b), D as
// their minimum, and D + L as stored. `diag_from` is (D + L)(i-1, j-1), `up_from` D(i-1, j),
// `left` D(i, j-1). Every kernel evaluates its cells through this one function, on doubles
// (ScalarOps) or on SIMD lanes of double, float or int16 (the Ops of twed_strip-inl.h and
// twed_quantized.cc), so that the order of the operations, on which bit equality and the bounds'
// proofs rest, is written once. The 16-bit kernel's difference form passes the differences of D
// instead and saturates the match sum (its MatchAdd); it reads neither `dl` nor anything but `d`.
template <class V>
struct TwedCell {
  V diag;
  V up;
  V side;
  V d;
  V dl;
};

template <class Ops, class V>
[[gnu::always_inline]] inline TwedCell<V> TwedStep(const Ops& ops, V diag_from, V l, V up_from,
                                                   V del_a, V left, V del_b) {
  const V diag = ops.MatchAdd(diag_from, l);
  const V up = ops.Add(up_from, del_a);
  const V side = ops.Add(left, del_b);
  const V d = ops.Min(ops.Min(diag, up), side);
  return {diag, up, side, d, ops.Add(d, l)};
}

// TwedStep's operations on doubles.
struct ScalarOps {
  static double Add(double a, double b) { return a + b; }
  static double MatchAdd(double a, double b) { return a + b; }
  // By reference, as std::min: the same value, but with a copy GCC 12 gave the unrolled scalar
  // strips a fifth more instructions (register moves and a spill; callgrind on TwedWithin) and
  // the one-channel pruned kernel was 3-5 % slower than before TwedStep was shared.
  static const double& Min(const double& a, const double& b) { return std::min(a, b); }
};

// One series as the kernels read it: 1-based sample indices as in the spec,
// with `pad` zero samples on both sides so that the skewed strip kernel can
// run its lanes past either end without branches, and the deletion cost
// del_j = c(s_{j-1}, s_j) + nu * (t_j - t_{j-1}) + lambda of reaching sample j
// (0 where j has no predecessor: it is only ever added to +inf).
class Side {
 public:
  template <class Cost>
  Side(const Series& s, ptrdiff_t pad, const Cost& cost, double nu, double lambda)
      : size_(static_cast<ptrdiff_t>(s.samples())),
        pad_(pad),
        values_((s.samples() + 2 * pad + 1) * cost.channels(), 0.0),
        times_(s.samples() + 2 * pad + 1, 0.0),
        dels_(s.samples() + 2 * pad + 1, 0.0) {
    const size_t d = cost.channels();
    std::copy(s.values.begin(), s.values.end(), values_.begin() + (pad + 1) * d);
    std::copy(s.times.begin(), s.times.end(), times_.begin() + pad + 1);
    for (ptrdiff_t j = 2; j <= size_; ++j) {
      dels_[j + pad] =
          LocalCost(cost, sample(j - 1, d), time(j - 1), sample(j, d), time(j), nu) + lambda;
    }
  }

  ptrdiff_t size() const { return size_; }
  const double* sample(ptrdiff_t j, size_t channels) const {
    return values_.data() + (j + pad_) * static_cast<ptrdiff_t>(channels);
  }
  double time(ptrdiff_t j) const { return times_[j + pad_]; }
  double del(ptrdiff_t j) const { return dels_[j + pad_]; }
  // Sample 0 (the virtual one); samples 1..size() follow it contiguously.
  const double* times() const { return times_.data() + pad_; }
  const double* dels() const { return dels_.data() + pad_; }

 private:
  ptrdiff_t size_;
  ptrdiff_t pad_;
  // Inline for short runs: the lane kernels build a Side for every batch of eight pairs, and
  // for one-sample runs three allocations a batch cost about as much as its DP.
  using Values = absl::InlinedVector<double, 16>;
  Values values_;
  Values times_;
  Values dels_;
};

// DP cells between two polls of a cancellation token: about 0.1 ms of the
// batch kernel, 0.4 ms of the one-channel scalar one and tens of ms of
// std::pow norms over many channels. So a poll (one relaxed load per strip
// of rows) costs nothing measurable, and a cancel lands far within a second.
inline constexpr uint64_t kCancelPollCells = uint64_t{1} << 18;

// Counts the cells a kernel has computed and polls `token` (may be null)
// once every kCancelPollCells of them.
class CancelPoller {
 public:
  explicit CancelPoller(const CancellationToken* token) : token_(token) {}

  // Whether the token was found cancelled, after `cells` more cells.
  bool Cancelled(uint64_t cells) {
    if (token_ == nullptr) return false;
    since_poll_ += cells;
    if (since_poll_ < kCancelPollCells) return false;
    since_poll_ = 0;
    stopped_ = token_->cancelled();
    return stopped_;
  }

  // Whether a kernel stopped early because of the token.
  bool stopped() const { return stopped_; }

 private:
  const CancellationToken* token_;
  uint64_t since_poll_ = 0;
  bool stopped_ = false;
};

// Rows per ScalarStrip. Three chains already keep the add and min units busy on the 2-core Xeon
// we target; four measured 7% slower and eight 20% slower, from register spills.
inline constexpr int kScalarStripRows = 3;
// The strips' lanes reach this far past either end of b.
inline constexpr ptrdiff_t kScalarStripPad = kScalarStripRows - 1;

// Row 0 of the DP as the strips start from it, in the two rows they update in place: D and D + L
// at columns -kScalarStripPad .. m + kScalarStripPad, 0 at column 0 and +inf elsewhere.
class StripRowBuffers {
 public:
  explicit StripRowBuffers(ptrdiff_t m)
      : d_(m + 1 + 2 * kScalarStripPad, kInf), dl_(m + 1 + 2 * kScalarStripPad, kInf) {
    d_[kScalarStripPad] = 0.0;
    dl_[kScalarStripPad] = 0.0;
  }
  // Column 0 of each.
  double* d() { return d_.data() + kScalarStripPad; }
  double* dl() { return dl_.data() + kScalarStripPad; }

 private:
  std::vector<double> d_;
  std::vector<double> dl_;
};

// Rows i0 .. i0+R-1 of the DP as R lanes, lane k one column behind lane k-1: along a row every
// cell's add and min wait for the cell to its left, and the lanes' R chains are independent, so
// they overlap in the pipeline. Lanes start with +inf (the border left of their first column) and
// may run past column m into b's zero padding (Side's `pad`); what they compute there never
// reaches a real cell. The full strips of twed.cc and the pruned ones of twed_pruned.cc keep
// this state in locals of their own, and ScalarStripStep moves it: as members of one strip
// object the one-channel kernel measured 12 % slower.
template <int R>
struct ScalarLanes {
  const double* ai[R];
  double tai[R];
  double del_a[R];
  double d[R];
  double dl[R];
  double dl_old[R];
  // (D + L)(i0-1, s-1) for lane 0 at step s: the store of step s-1 overwrites it when R == 1.
  double diag0;
};

template <int R, class Cost>
[[gnu::always_inline]] inline ScalarLanes<R> StartScalarLanes(const Cost& cost, const Side& a,
                                                              ptrdiff_t i0, double diag0) {
  ScalarLanes<R> lanes;
  for (int k = 0; k < R; ++k) {
    lanes.ai[k] = a.sample(i0 + k, cost.channels());
    lanes.tai[k] = a.time(i0 + k);
    lanes.del_a[k] = a.del(i0 + k);
    lanes.d[k] = kInf;
    lanes.dl[k] = kInf;
    lanes.dl_old[k] = kInf;
  }
  lanes.diag0 = diag0;
  return lanes;
}

// Step s: lane k moves to column s - k. On entry d[s] and dl[s] hold D and D + L of row i0-1 at
// column s; lane R-1's cell at column s-R+1 replaces them there.
template <int R, class Cost>
[[gnu::always_inline]] inline void ScalarStripStep(const Cost& cost, double nu, const Side& b,
                                                   ScalarLanes<R>& lanes, ptrdiff_t s, double* d,
                                                   double* dl) {
  const size_t c = cost.channels();
  const double up0 = d[s];
  const double next_diag0 = dl[s];
  // Lanes in descending order: lane k reads lane k-1's values of the previous steps. Unrolled so
  // that the lane state stays in registers.
#pragma GCC unroll 8
  for (int k = R - 1; k >= 0; --k) {
    const ptrdiff_t j = s - k;
    const double l = LocalCost(cost, lanes.ai[k], lanes.tai[k], b.sample(j, c), b.time(j), nu);
    const TwedCell<double> cell =
        TwedStep(ScalarOps(), k == 0 ? lanes.diag0 : lanes.dl_old[k - 1], l,
                 k == 0 ? up0 : lanes.d[k - 1], lanes.del_a[k], lanes.d[k], b.del(j));
    lanes.dl_old[k] = lanes.dl[k];
    lanes.d[k] = cell.d;
    lanes.dl[k] = cell.dl;
  }
  d[s - R + 1] = lanes.d[R - 1];
  dl[s - R + 1] = lanes.dl[R - 1];
  lanes.diag0 = next_diag0;
}

// The error of a computation stopped by its cancellation token.
absl::Status TwedCancelledError();

// Ok when the params are valid, both series are valid and their channel
// counts agree.
absl::Status ValidateTwedInputs(const Series& a, const Series& b, const TwedParams& params);

// Whether every series of both non-empty sets is valid with the first column's channel count:
// then ValidateTwedInputs passes for every pair under valid params, and the SIMD lanes may take
// them.
bool AllValidAndAlike(const std::vector<Series>& rows, const std::vector<Series>& cols);

// The error for a distance that came out +inf (or NaN).
absl::Status NonFiniteTwedError(const Series& a, const Series& b, const TwedParams& params);

// The allowed columns lo..hi (inclusive; empty when lo > hi) of one row.
struct Band {
  ptrdiff_t lo;
  ptrdiff_t hi;
};

// Bands for rows 1..n (element i-1 is row i): every column without a window,
// else the j with |ta_i - tb_j| <= window. Both ends never decrease with i.
std::vector<Band> RowBands(const Side& a, const Side& b, const TwedParams& params);

struct BandedResult {
  double distance = kInf;
  uint64_t matches = 0;
  double shift_sum = 0.0;  // sum of tb_j - ta_i over the matched cells
};

// The DP restricted to `bands`, two rows at a time. With kTrackPath every
// cell also carries the match count and time-shift sum of the predecessor it
// chose (match, then delete in a, then delete in b, on ties); deletion counts
// follow from matches + a_deletions == i and matches + b_deletions == j.
// Returns early (with a meaningless result) once `poller` reports a cancel.
template <bool kTrackPath, class Cost>
BandedResult BandedTwed(const Cost& cost, double nu, const Side& a, const Side& b,
                        std::span<const Band> bands, CancelPoller& poller) {
  const ptrdiff_t n = a.size();
  const ptrdiff_t m = b.size();
  const size_t c = cost.channels();
  // Shortcut: a forbidden start or end cell leaves no path.
  if (bands.front().lo > 1 || bands.back().hi < m) return {};

  const size_t width = static_cast<size_t>(m) + 1;
  std::vector<double> prev_d(width, kInf), prev_dl(width, kInf);
  std::vector<double> cur_d(width, kInf), cur_dl(width, kInf);
  std::vector<uint64_t> prev_k, cur_k;
  std::vector<double> prev_s, cur_s;
  if constexpr (kTrackPath) {
    prev_k.assign(width, 0);
    cur_k.assign(width, 0);
    prev_s.assign(width, 0.0);
    cur_s.assign(width, 0.0);
  }
  prev_d[0] = 0.0;
  prev_dl[0] = 0.0;

  for (ptrdiff_t i = 1; i <= n; ++i) {
    const auto [lo, hi] = bands[i - 1];
    if (lo > hi) return {};  // every path crosses every row
    if (poller.Cancelled(static_cast<uint64_t>(hi - lo + 1))) return {};
    const double* ai = a.sample(i, c);
    const double tai = a.time(i);
    const double del_a = a.del(i);
    // The next row reads this one at columns lo-1 .. its own hi. Right of hi
    // the buffer still holds its initial +inf, as no earlier row reached
    // further right; column lo-1, though, may hold a cell of row i-2.
    cur_d[lo - 1] = kInf;
    cur_dl[lo - 1] = kInf;
    double left = kInf;
    [[maybe_unused]] uint64_t left_k = 0;
    [[maybe_unused]] double left_s = 0.0;
    for (ptrdiff_t j = lo; j <= hi; ++j) {
      const double l = LocalCost(cost, ai, tai, b.sample(j, c), b.time(j), nu);
      const TwedCell<double> cell =
          TwedStep(ScalarOps(), prev_dl[j - 1], l, prev_d[j], del_a, left, b.del(j));
      double cur = cell.d;
      double cur_l = cell.dl;
      if constexpr (kTrackPath) {
        // The candidate the minimum picks, in this order on ties: the branches that choose the
        // predecessor choose the value too, which measured 19 % faster than taking cell.d as well.
        if (cell.diag <= cell.up && cell.diag <= cell.side) {
          cur = cell.diag;
          left_k = prev_k[j - 1] + 1;
          left_s = prev_s[j - 1] + (b.time(j) - tai);
        } else if (cell.up <= cell.side) {
          cur = cell.up;
          left_k = prev_k[j];
          left_s = prev_s[j];
        } else {
          cur = cell.side;
        }
        cur_l = cur + l;  // cell.dl, from the candidate picked
        cur_k[j] = left_k;
        cur_s[j] = left_s;
      }
      cur_d[j] = cur;
      cur_dl[j] = cur_l;
      left = cur;
    }
    std::swap(prev_d, cur_d);
    std::swap(prev_dl, cur_dl);
    if constexpr (kTrackPath) {
      std::swap(prev_k, cur_k);
      std::swap(prev_s, cur_s);
    }
  }
  BandedResult result{.distance = prev_d[m]};
  if constexpr (kTrackPath) {
    result.matches = prev_k[m];
    result.shift_sum = prev_s[m];
  }
  return result;
}

}  // namespace wasserwarp::twed_internal

#endif  // WASSERWARP_SRC_TWED_TWED_KERNEL_H_
