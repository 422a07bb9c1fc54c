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
#include <vector>

#include "hwy/aligned_allocator.h"
#include "hwy/highway.h"
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

// Rows i0 .. i0 + R - 1 against every column of `batch` (LaneBatch or SingleLaneBatch: records
// of channel values, time and deletion cost per column). `dd` interleaves per column the lanes
// of D(i0 - 1, j) and of (D + L)(i0 - 1, j) on entry, and of row i0 + R - 1 on return. `cost`
// returns the lanes' c(a_i, b_j); its last argument says whether it may take square roots on
// the FMA ports (row i0 only, see twed_batch.cc).
template <int R, class D, class Cost, class Batch, class Row>
HWY_INLINE void LaneStripRows(D d, const Cost& cost, const Batch& batch, const Row& row,
                              hwy::HWY_NAMESPACE::TFromD<D> nu_value, ptrdiff_t i0,
                              hwy::HWY_NAMESPACE::TFromD<D>* dd) {
  namespace hn = hwy::HWY_NAMESPACE;
  using T = hn::TFromD<D>;
  using V = hn::Vec<D>;
  const size_t lanes = hn::Lanes(d);
  const size_t c = batch.channels();
  const ptrdiff_t record = static_cast<ptrdiff_t>(batch.record_size());
  const ptrdiff_t cell = 2 * static_cast<ptrdiff_t>(lanes);
  const T* column_zero = batch.column_zero();
  const ptrdiff_t m = batch.longest();
  const V nu = hn::Set(d, nu_value);
  const V inf = hn::Set(d, std::numeric_limits<T>::infinity());

  typename Cost::Row ai[R];
  V tai[R];
  V del_a[R];
  V lane_d[R];
  V lane_dl[R];
  V lane_dl_old[R];
  for (int k = 0; k < R; ++k) {
    LoadRowSample(d, cost, row, i0 + k, c, ai[k], tai[k], del_a[k]);
    lane_d[k] = inf;
    lane_dl[k] = inf;
    lane_dl_old[k] = inf;
  }
  V diag0 = hn::Load(d, dd + lanes);
  for (ptrdiff_t s = 1; s <= m + R - 1; ++s) {
    const V up0 = hn::Load(d, dd + s * cell);
    const V next_diag0 = hn::Load(d, dd + s * cell + lanes);
#pragma GCC unroll 8
    for (int k = R - 1; k >= 0; --k) {
      const T* b = column_zero + (s - k) * record;
      const V stretch = hn::Abs(hn::Sub(tai[k], hn::Load(d, b + c * lanes)));
      V l;
      if constexpr (kFusedTimeTerm<T>) {
        l = hn::MulAdd(nu, stretch, cost(d, ai[k], b, lanes, k == 0));
      } else {
        l = hn::Add(cost(d, ai[k], b, lanes, k == 0), hn::Mul(nu, stretch));
      }
      const V diag = hn::Add(k == 0 ? diag0 : lane_dl_old[k - 1], l);
      const V up = hn::Add(k == 0 ? up0 : lane_d[k - 1], del_a[k]);
      const V side = hn::Add(lane_d[k], hn::Load(d, b + (c + 1) * lanes));
      const V cur = hn::Min(hn::Min(diag, up), side);
      lane_dl_old[k] = lane_dl[k];
      lane_d[k] = cur;
      lane_dl[k] = hn::Add(cur, l);
    }
    hn::Store(lane_d[R - 1], d, dd + (s - R + 1) * cell);
    hn::Store(lane_dl[R - 1], d, dd + (s - R + 1) * cell + lanes);
    diag0 = next_diag0;
  }
}

// LaneStripRows for the last rows, fewer than R: `rows` of them.
template <int R, class D, class Cost, class Batch, class Row>
HWY_INLINE void LaneLastRows(ptrdiff_t rows, D d, const Cost& cost, const Batch& batch,
                             const Row& row, hwy::HWY_NAMESPACE::TFromD<D> nu, ptrdiff_t i0,
                             hwy::HWY_NAMESPACE::TFromD<D>* dd) {
  if constexpr (R > 0) {
    if (rows == R) {
      LaneStripRows<R>(d, cost, batch, row, nu, i0, dd);
    } else {
      LaneLastRows<R - 1>(rows, d, cost, batch, row, nu, i0, dd);
    }
  }
}

// Every row of the DP on the lanes, kRows at a time: out[k] = D(row_lengths[k], length of lane
// k) for each series of the batch, each lane's value taken once the strips reach its last row
// (strips that stop at a row leave the same bits as strips that pass it). False, with `out`
// untouched, once `cancel` (may be null) is found cancelled, polled once per strip.
template <int kRows, class D, class Cost, class Batch, class Row>
bool LaneDp(D d, const Cost& cost, const Batch& batch, const Row& row,
            hwy::HWY_NAMESPACE::TFromD<D> nu, std::span<const ptrdiff_t> row_lengths,
            const CancellationToken* cancel, hwy::HWY_NAMESPACE::TFromD<D>* out) {
  namespace hn = hwy::HWY_NAMESPACE;
  using T = hn::TFromD<D>;
  static_assert(kRows - 1 <= Batch::kBatchPad);
  const size_t lanes = hn::Lanes(d);
  HWY_ASSERT(batch.lanes() == lanes);
  const ptrdiff_t pad = Batch::kBatchPad;
  const ptrdiff_t cell = 2 * static_cast<ptrdiff_t>(lanes);
  const ptrdiff_t width = batch.longest() + 1 + 2 * pad;
  hwy::AlignedFreeUniquePtr<T[]> buffer = hwy::AllocateAligned<T>(width * cell);
  std::fill_n(buffer.get(), width * cell, std::numeric_limits<T>::infinity());
  T* dd = buffer.get() + pad * cell;
  std::fill_n(dd, cell, T{0});
  CancelPoller poller(cancel);
  const uint64_t strip_cells =
      static_cast<uint64_t>(kRows) * lanes * static_cast<uint64_t>(batch.longest());
  std::vector<ptrdiff_t> ends(row_lengths.begin(), row_lengths.end());
  std::sort(ends.begin(), ends.end());
  ends.erase(std::unique(ends.begin(), ends.end()), ends.end());
  std::vector<T> values(lanes);
  const std::span<const ptrdiff_t> lengths = batch.lengths();
  ptrdiff_t i = 1;
  for (const ptrdiff_t end : ends) {
    for (; i + kRows - 1 <= end; i += kRows) {
      if (poller.Cancelled(strip_cells)) return false;
      LaneStripRows<kRows>(d, cost, batch, row, nu, i, dd);
    }
    LaneLastRows<kRows - 1>(end - i + 1, d, cost, batch, row, nu, i, dd);
    i = end + 1;
    // D and D + L of column 0 past row 0 are +inf, as full strips store them; shorter ones do not
    // reach column 0, and the next strip reads it.
    std::fill_n(dd, cell, std::numeric_limits<T>::infinity());
    for (size_t k = 0; k < lengths.size(); ++k) {
      if (row_lengths[k] == end) values[k] = dd[lengths[k] * cell + k];
    }
  }
  std::copy_n(values.begin(), lengths.size(), out);
  return true;
}

// LaneDp with one row series of `rows` samples for every lane.
template <int kRows, class D, class Cost, class Batch>
bool LaneDp(D d, const Cost& cost, const Batch& batch,
            const LaneRow<hwy::HWY_NAMESPACE::TFromD<D>>& row, hwy::HWY_NAMESPACE::TFromD<D> nu,
            ptrdiff_t rows, const CancellationToken* cancel, hwy::HWY_NAMESPACE::TFromD<D>* out) {
  const std::vector<ptrdiff_t> row_lengths(batch.lengths().size(), rows);
  return LaneDp<kRows>(d, cost, batch, row, nu, row_lengths, cancel, out);
}

}  // namespace wasserwarp::twed_internal::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // WASSERWARP_SRC_TWED_TWED_STRIP_INL_H_
