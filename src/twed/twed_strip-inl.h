// The skewed strip of the lane kernels: R rows of the TWED DP (twed_kernel.h) over every column,
// one pair per lane, for lanes of double (twed_batch.cc, rounding to nearest to match the scalar
// kernel bit for bit) and of float (twed_single.cc, rounding toward zero for its bound). Row
// i0 + k runs k columns behind row i0, so that R independent add+min chains fill the pipeline.
// The lanes share one row series (LaneRow) or each has its own (LaneRows).
//
// Per-target code: included inside a Highway target loop, hence the toggling include guard.

#if defined(WASSERWARP_SRC_TWED_TWED_STRIP_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef WASSERWARP_SRC_TWED_TWED_STRIP_INL_H_
#undef WASSERWARP_SRC_TWED_TWED_STRIP_INL_H_
#else
#define WASSERWARP_SRC_TWED_TWED_STRIP_INL_H_
#endif

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <type_traits>

#include "hwy/aligned_allocator.h"
#include "hwy/highway.h"
#include "twed/lane_scratch.h"
#include "twed/twed_kernel.h"
#include "wasserwarp/cancellation.h"

HWY_BEFORE_NAMESPACE();
namespace wasserwarp::twed_internal::HWY_NAMESPACE {

// Whether the lanes fuse nu |ta - tb| into the cost with one multiply-add. The float lanes do: a
// bound needs only that each operation stays at or below its exact result, and one fused rounding
// toward zero does (it saves a tenth of their time per cell). The double lanes must not: they
// repeat the scalar kernel's separate product and sum, bit for bit.
template <class T>
inline constexpr bool kFusedTimeTerm = std::is_same_v<T, float>;

// The row series' samples 1..rows as the strips read them, each array from its virtual sample 0:
// one series for every lane.
template <class T>
struct LaneRow {
  const T* values;
  const T* times;
  const T* dels;
};

// One row series per lane, as a LaneBatch holds its columns: from the record of the virtual
// sample 0, per sample the lanes' channel values, time and deletion cost.
template <class T>
struct LaneRows {
  const T* sample_zero;
  ptrdiff_t record;
};

// Row sample i of every lane: its cost operand, time and deletion cost.
template <class D, class Cost>
HWY_INLINE void LoadRowSample(D d, const Cost& cost,
                              const LaneRow<hwy::HWY_NAMESPACE::TFromD<D>>& row, ptrdiff_t i,
                              size_t channels, typename Cost::Row& value,
                              hwy::HWY_NAMESPACE::Vec<D>& time, hwy::HWY_NAMESPACE::Vec<D>& del) {
  namespace hn = hwy::HWY_NAMESPACE;
  value = cost.Broadcast(d, row.values + i * static_cast<ptrdiff_t>(channels));
  time = hn::Set(d, row.times[i]);
  del = hn::Set(d, row.dels[i]);
}
template <class D, class Cost>
HWY_INLINE void LoadRowSample(D d, const Cost& cost,
                              const LaneRows<hwy::HWY_NAMESPACE::TFromD<D>>& rows, ptrdiff_t i,
                              size_t channels, typename Cost::Row& value,
                              hwy::HWY_NAMESPACE::Vec<D>& time, hwy::HWY_NAMESPACE::Vec<D>& del) {
  namespace hn = hwy::HWY_NAMESPACE;
  const size_t lanes = hn::Lanes(d);
  const auto* r = rows.sample_zero + i * rows.record;
  value = cost.PerLane(d, r, lanes);
  time = hn::Load(d, r + channels * lanes);
  del = hn::Load(d, r + (channels + 1) * lanes);
}

// What the strips carry besides D: nothing (NoPath), or per cell the match count and the sum of
// tb_j - ta_i over the matched cells of the path the scalar kernel's tie order picks (match, then
// deletion in A, then in B: BandedTwed<true> in twed_kernel.h), in lanes of T, for the edit-path
// diagnostics (PathLanes). `above` interleaves per column the lanes of the count and of the sum
// of the row above the strip, as `dd` does D and D + L.
struct NoPath {
  template <class D>
  HWY_INLINE void Start(D /*d*/, ptrdiff_t /*s*/) {}
  template <class D, class V>
  HWY_INLINE void Cell(D /*d*/, int /*k*/, V /*diag*/, V /*up*/, V /*side*/, V /*tb*/, V /*ta*/) {}
  template <class D>
  HWY_INLINE void Finish(D /*d*/, ptrdiff_t /*stored*/) {}
};

template <int R, class D>
struct PathLanes {
  using T = hwy::HWY_NAMESPACE::TFromD<D>;
  using V = hwy::HWY_NAMESPACE::Vec<D>;
  T* above;
  size_t lanes;
  V count[R];         // of row k at the column it reached last
  V count_before[R];  // and at the column before
  V sum[R];
  V sum_before[R];
  V count_up;  // row i0 - 1 at the column row i0 is at, and at the column before
  V count_diag;
  V sum_up;
  V sum_diag;

  PathLanes(D d, T* above_row) : above(above_row), lanes(hwy::HWY_NAMESPACE::Lanes(d)) {
    namespace hn = hwy::HWY_NAMESPACE;
    for (int k = 0; k < R; ++k) {
      count[k] = count_before[k] = sum[k] = sum_before[k] = hn::Zero(d);
    }
    count_diag = hn::Load(d, above);
    sum_diag = hn::Load(d, above + lanes);
    count_up = sum_up = hn::Zero(d);
  }
  HWY_INLINE void Start(D d, ptrdiff_t s) {
    namespace hn = hwy::HWY_NAMESPACE;
    count_up = hn::Load(d, above + 2 * s * static_cast<ptrdiff_t>(lanes));
    sum_up = hn::Load(d, above + 2 * s * static_cast<ptrdiff_t>(lanes) + lanes);
  }
  HWY_INLINE void Cell(D d, int k, V diag, V up, V side, V tb, V ta) {
    namespace hn = hwy::HWY_NAMESPACE;
    const auto by_match = hn::And(hn::Le(diag, up), hn::Le(diag, side));
    const auto by_up = hn::Le(up, side);
    const V matched = hn::Add(k == 0 ? count_diag : count_before[k - 1], hn::Set(d, T{1}));
    const V shifted = hn::Add(k == 0 ? sum_diag : sum_before[k - 1], hn::Sub(tb, ta));
    count_before[k] = count[k];
    sum_before[k] = sum[k];
    count[k] = hn::IfThenElse(by_match, matched,
                              hn::IfThenElse(by_up, k == 0 ? count_up : count[k - 1], count[k]));
    sum[k] = hn::IfThenElse(by_match, shifted,
                            hn::IfThenElse(by_up, k == 0 ? sum_up : sum[k - 1], sum[k]));
  }
  HWY_INLINE void Finish(D d, ptrdiff_t stored) {
    namespace hn = hwy::HWY_NAMESPACE;
    hn::Store(count[R - 1], d, above + 2 * stored * static_cast<ptrdiff_t>(lanes));
    hn::Store(sum[R - 1], d, above + 2 * stored * static_cast<ptrdiff_t>(lanes) + lanes);
    count_diag = count_up;
    sum_diag = sum_up;
  }
};

// TwedStep's operations on lanes of double or float.
template <class D>
struct LaneOps {
  using V = hwy::HWY_NAMESPACE::Vec<D>;
  static V Add(V a, V b) { return hwy::HWY_NAMESPACE::Add(a, b); }
  static V MatchAdd(V a, V b) { return hwy::HWY_NAMESPACE::Add(a, b); }
  static V Min(V a, V b) { return hwy::HWY_NAMESPACE::Min(a, b); }
};

// Rows i0 .. i0 + R - 1 of the lanes' DP, row i0 + k k columns behind row i0, against the columns
// of `batch` (LaneBatch or SingleLaneBatch: records of channel values, time and deletion cost per
// column). Step s moves row i0 + k to column s - k; `dd` interleaves per column the lanes of
// D(i0 - 1, j) and of (D + L)(i0 - 1, j) on entry, and receives those of row i0 + R - 1 at column
// s - R + 1. `cost` returns the lanes' c(a_i, b_j); its last argument says whether it may take
// square roots on the FMA ports (row i0 only, see twed_batch.cc). The full strips (LaneStripRows)
// and the pruned ones of twed_batch.cc.
template <int R, class D, class Cost, class Batch>
class LaneStrip {
 public:
  using T = hwy::HWY_NAMESPACE::TFromD<D>;
  using V = hwy::HWY_NAMESPACE::Vec<D>;

  // Every row at the +inf border left of column `first`, the first step's column of row i0.
  template <class Row>
  HWY_INLINE LaneStrip(D d, const Cost& cost, const Batch& batch, const Row& row, T nu,
                       ptrdiff_t i0, const T* dd, ptrdiff_t first)
      : cost_(cost),
        lanes_(hwy::HWY_NAMESPACE::Lanes(d)),
        c_(batch.channels()),
        record_(static_cast<ptrdiff_t>(batch.record_size())),
        column_zero_(batch.column_zero()),
        nu_(hwy::HWY_NAMESPACE::Set(d, nu)) {
    namespace hn = hwy::HWY_NAMESPACE;
    const V inf = hn::Set(d, std::numeric_limits<T>::infinity());
    for (int k = 0; k < R; ++k) {
      LoadRowSample(d, cost, row, i0 + k, c_, ai_[k], tai_[k], del_a_[k]);
      lane_d_[k] = inf;
      lane_dl_[k] = inf;
      lane_dl_old_[k] = inf;
    }
    diag0_ = hn::Load(d, dd + (first - 1) * Cell() + lanes_);
  }

  // dd aliases no member: without __restrict the compiler reloads the lanes after each store.
  template <class Path>
  HWY_INLINE void Step(D d, ptrdiff_t s, T* __restrict dd, Path& path) {
    namespace hn = hwy::HWY_NAMESPACE;
    const ptrdiff_t cell = Cell();
    const V up0 = hn::Load(d, dd + s * cell);
    const V next_diag0 = hn::Load(d, dd + s * cell + lanes_);
    path.Start(d, s);
#pragma GCC unroll 8
    for (int k = R - 1; k >= 0; --k) {
      const T* b = column_zero_ + (s - k) * record_;
      const V tb = hn::Load(d, b + c_ * lanes_);
      const V stretch = hn::Abs(hn::Sub(tai_[k], tb));
      V l;
      if constexpr (kFusedTimeTerm<T>) {
        l = hn::MulAdd(nu_, stretch, cost_(d, ai_[k], b, lanes_, k == 0));
      } else {
        l = hn::Add(cost_(d, ai_[k], b, lanes_, k == 0), hn::Mul(nu_, stretch));
      }
      const TwedCell<V> step = TwedStep(LaneOps<D>(), k == 0 ? diag0_ : lane_dl_old_[k - 1], l,
                                        k == 0 ? up0 : lane_d_[k - 1], del_a_[k], lane_d_[k],
                                        hn::Load(d, b + (c_ + 1) * lanes_));
      path.Cell(d, k, step.diag, step.up, step.side, tb, tai_[k]);
      lane_dl_old_[k] = lane_dl_[k];
      lane_d_[k] = step.d;
      lane_dl_[k] = step.dl;
    }
    hn::Store(lane_d_[R - 1], d, dd + (s - R + 1) * cell);
    hn::Store(lane_dl_[R - 1], d, dd + (s - R + 1) * cell + lanes_);
    path.Finish(d, s - R + 1);
    diag0_ = next_diag0;
  }

  // D of row i0 + k at the column it reached last.
  V RowD(int k) const { return lane_d_[k]; }

 private:
  ptrdiff_t Cell() const { return 2 * static_cast<ptrdiff_t>(lanes_); }

  const Cost& cost_;
  size_t lanes_;
  size_t c_;
  ptrdiff_t record_;
  const T* column_zero_;
  V nu_;
  V diag0_;
  typename Cost::Row ai_[R];
  V tai_[R];
  V del_a_[R];
  V lane_d_[R];
  V lane_dl_[R];
  V lane_dl_old_[R];
};

// Rows i0 .. i0 + R - 1 against every column of `batch`, as LaneStrip says; with the edit path's
// counts and sums in `path`.
template <int R, class D, class Cost, class Batch, class Row, class Path = NoPath>
HWY_INLINE void LaneStripRows(D d, const Cost& cost, const Batch& batch, const Row& row,
                              hwy::HWY_NAMESPACE::TFromD<D> nu, ptrdiff_t i0,
                              hwy::HWY_NAMESPACE::TFromD<D>* dd, Path&& path = Path()) {
  LaneStrip<R, D, Cost, Batch> strip(d, cost, batch, row, nu, i0, dd, 1);
  for (ptrdiff_t s = 1; s <= batch.longest() + R - 1; ++s) strip.Step(d, s, dd, path);
}

// LaneStripRows for the last rows, fewer than R: `rows` of them; with the edit path's counts and
// sums in `path_above` where kPath.
template <int R, bool kPath, class D, class Cost, class Batch, class Row>
HWY_INLINE void LaneLastRows(ptrdiff_t rows, D d, const Cost& cost, const Batch& batch,
                             const Row& row, hwy::HWY_NAMESPACE::TFromD<D> nu, ptrdiff_t i0,
                             hwy::HWY_NAMESPACE::TFromD<D>* dd,
                             hwy::HWY_NAMESPACE::TFromD<D>* path_above) {
  if constexpr (R > 0) {
    if (rows == R) {
      if constexpr (kPath) {
        LaneStripRows<R>(d, cost, batch, row, nu, i0, dd, PathLanes<R, D>(d, path_above));
      } else {
        LaneStripRows<R>(d, cost, batch, row, nu, i0, dd);
      }
    } else {
      LaneLastRows<R - 1, kPath>(rows, d, cost, batch, row, nu, i0, dd, path_above);
    }
  }
}

// Every row of the DP on the lanes, kRows at a time: out[k] = D(row_lengths[k], length of lane
// k) for each series of the batch, each lane's value taken once the strips reach its last row
// (strips that stop at a row leave the same bits as strips that pass it). With kPath also the
// match count and time-shift sum of that cell's path (PathLanes) in counts[k] and sums[k]. False,
// with the outputs untouched, once `cancel` (may be null) is found cancelled, polled once per
// strip.
template <int kRows, bool kPath = false, class D, class Cost, class Batch, class Row>
bool LaneDp(D d, const Cost& cost, const Batch& batch, const Row& row,
            hwy::HWY_NAMESPACE::TFromD<D> nu, std::span<const ptrdiff_t> row_lengths,
            const CancellationToken* cancel, hwy::HWY_NAMESPACE::TFromD<D>* out,
            hwy::HWY_NAMESPACE::TFromD<D>* counts = nullptr,
            hwy::HWY_NAMESPACE::TFromD<D>* sums = nullptr) {
  namespace hn = hwy::HWY_NAMESPACE;
  using T = hn::TFromD<D>;
  static_assert(kRows - 1 <= Batch::kBatchPad);
  const size_t lanes = hn::Lanes(d);
  HWY_ASSERT(batch.lanes() == lanes);
  const ptrdiff_t pad = Batch::kBatchPad;
  const ptrdiff_t cell = 2 * static_cast<ptrdiff_t>(lanes);
  const ptrdiff_t width = batch.longest() + 1 + 2 * pad;
  AlignedScratch<T, kInlineDpCells> buffer(width * cell);
  std::fill_n(buffer.get(), width * cell, std::numeric_limits<T>::infinity());
  T* dd = buffer.get() + pad * cell;
  std::fill_n(dd, cell, T{0});
  AlignedScratch<T, kPath ? kInlineDpCells : 1> path_buffer(kPath ? width * cell : 1);
  T* path_above = kPath ? path_buffer.get() + pad * cell : nullptr;
  if constexpr (kPath) std::fill_n(path_buffer.get(), width * cell, T{0});
  CancelPoller poller(cancel);
  const uint64_t strip_cells =
      static_cast<uint64_t>(kRows) * lanes * static_cast<uint64_t>(batch.longest());
  AlignedScratch<ptrdiff_t, kInlineLanes> ends_buffer(row_lengths.size());
  ptrdiff_t* const ends = ends_buffer.get();
  std::copy(row_lengths.begin(), row_lengths.end(), ends);
  std::sort(ends, ends + row_lengths.size());
  const ptrdiff_t* const ends_end = std::unique(ends, ends + row_lengths.size());
  AlignedScratch<T, kInlineLanes> values(lanes);
  AlignedScratch<T, kInlineLanes> path_counts(lanes);
  AlignedScratch<T, kInlineLanes> path_sums(lanes);
  const std::span<const ptrdiff_t> lengths = batch.lengths();
  ptrdiff_t i = 1;
  for (const ptrdiff_t end : std::span<const ptrdiff_t>(ends, ends_end)) {
    for (; i + kRows - 1 <= end; i += kRows) {
      if (poller.Cancelled(strip_cells)) return false;
      LaneLastRows<kRows, kPath>(kRows, d, cost, batch, row, nu, i, dd, path_above);
    }
    LaneLastRows<kRows - 1, kPath>(end - i + 1, d, cost, batch, row, nu, i, dd, path_above);
    i = end + 1;
    // D and D + L of column 0 past row 0 are +inf, as full strips store them; shorter ones do not
    // reach column 0, and the next strip reads it.
    std::fill_n(dd, cell, std::numeric_limits<T>::infinity());
    for (size_t k = 0; k < lengths.size(); ++k) {
      if (row_lengths[k] != end) continue;
      values.get()[k] = dd[lengths[k] * cell + k];
      if constexpr (kPath) {
        path_counts.get()[k] = path_above[lengths[k] * cell + k];
        path_sums.get()[k] = path_above[lengths[k] * cell + lanes + k];
      }
    }
  }
  std::copy_n(values.get(), lengths.size(), out);
  if constexpr (kPath) {
    std::copy_n(path_counts.get(), lengths.size(), counts);
    std::copy_n(path_sums.get(), lengths.size(), sums);
  }
  return true;
}

// LaneDp with one row series of `rows` samples for every lane.
template <int kRows, class D, class Cost, class Batch>
bool LaneDp(D d, const Cost& cost, const Batch& batch,
            const LaneRow<hwy::HWY_NAMESPACE::TFromD<D>>& row, hwy::HWY_NAMESPACE::TFromD<D> nu,
            ptrdiff_t rows, const CancellationToken* cancel, hwy::HWY_NAMESPACE::TFromD<D>* out) {
  const size_t lanes = batch.lengths().size();
  AlignedScratch<ptrdiff_t, kInlineLanes> row_lengths(lanes);
  std::fill_n(row_lengths.get(), lanes, rows);
  return LaneDp<kRows>(d, cost, batch, row, nu,
                       std::span<const ptrdiff_t>(row_lengths.get(), lanes), cancel, out);
}

}  // namespace wasserwarp::twed_internal::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // WASSERWARP_SRC_TWED_TWED_STRIP_INL_H_
