// The 16-bit lower bound on TWED, compiled once per SIMD target by Highway's foreach_target.h
// (which re-includes this file) and picked at run time.
//
// The kernel runs the TWED recurrence on each lane's quantized pair (twed_quantized.h) in the
// difference form: with X = D(i-1, j-1),
//   Z(i, j)  = D(i, j) - X = min(L(i-1, j-1) + L(i, j), dH(i-1, j) + delA_i, dV(i, j-1) + delB_j)
//   dH(i, j) = D(i, j) - D(i, j-1) = Z - dV(i, j-1)
//   dV(i, j) = D(i, j) - D(i-1, j) = Z - dH(i-1, j)
// where |dH(i, j)| <= delB_j + lambda' and |dV(i, j)| <= delA_i + lambda' (docs/twed_bounds.md), so
// every difference fits 16 bits although D itself does not; the match sum saturates, which only
// happens where it cannot be the minimum. The arithmetic is exact: the kernel returns the
// integer TWED of the quantized pair, D(n, m) = D(1, m) + sum_i dV(i, m). Row i0 + k of a strip
// runs k columns behind row i0, as in the floating-point strips (twed_strip-inl.h), so that R
// independent chains fill the pipeline.

#ifndef HWY_DISABLED_TARGETS
#define HWY_DISABLED_TARGETS (HWY_SSSE3 | HWY_SSE4)
#endif

#include "twed/twed_quantized.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <span>
#include <type_traits>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "twed/twed_kernel.h"
#include "wasserwarp/cancellation.h"

#ifndef WASSERWARP_SRC_TWED_TWED_QUANTIZED_CC_ONCE_
#define WASSERWARP_SRC_TWED_TWED_QUANTIZED_CC_ONCE_
namespace wasserwarp::twed_internal {

// One QuantizedLaneBatch as the per-target kernels take it.
struct QuantizedKernelArgs {
  const QuantizedLaneBatch* batch;
  int64_t* out;  // per lane: sum over rows 2..rows() of dV(i, columns())
  const CancellationToken* cancel;
};

}  // namespace wasserwarp::twed_internal
#endif  // WASSERWARP_SRC_TWED_TWED_QUANTIZED_CC_ONCE_

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "twed/twed_quantized.cc"
#include "hwy/aligned_allocator.h"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace wasserwarp::twed_internal::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

#if HWY_TARGET == HWY_EMU128 || HWY_TARGET == HWY_SCALAR

size_t QuantizedLanesImpl() { return 0; }
bool QuantizedTwedImpl(const QuantizedKernelArgs& /*args*/) {
  HWY_ABORT("no SIMD target for QuantizedTwedBound");
}

#else

using D = hn::ScalableTag<int16_t>;
using V = hn::Vec<D>;

// The lanes' |a_i - b_j| of one channel: the row sample stays in a register.
struct QuantizedOneChannel {
  using Row = V;
  Row LoadRow(D d, const int16_t* a) const { return hn::Load(d, a); }
  V operator()(D d, const Row& a, const int16_t* b, size_t /*lanes*/) const {
    return hn::Abs(hn::Sub(a, hn::Load(d, b)));
  }
};

// The lanes' L1 distance over several channels, saturating (a saturated L only ever meets a
// match sum that cannot be the minimum).
struct QuantizedL1 {
  size_t channels;
  using Row = const int16_t*;
  Row LoadRow(D /*d*/, const int16_t* a) const { return a; }
  V operator()(D d, const Row& a, const int16_t* b, size_t lanes) const {
    V sum = hn::Zero(d);
    for (size_t k = 0; k < channels; ++k) {
      sum = hn::SaturatedAdd(
          sum, hn::Abs(hn::Sub(hn::Load(d, a + k * lanes), hn::Load(d, b + k * lanes))));
    }
    return sum;
  }
};

// TwedStep's operations in the difference form: the match candidate L(i-1, j-1) + L(i, j)
// saturates; the deletion candidates, differences of D plus a deletion cost, fit 16 bits.
struct QuantizedOps {
  static V Add(V a, V b) { return hn::Add(a, b); }
  static V MatchAdd(V a, V b) { return hn::SaturatedAdd(a, b); }
  static V Min(V a, V b) { return hn::Min(a, b); }
};

// Rows i0 .. i0 + R - 1 over every column. `dd` holds per column j the lanes of dH(i0 - 1, j) and
// L(i0 - 1, j) on entry, and of row i0 + R - 1 on return; `dv_last` receives per row k the lanes
// of dV(i0 + k, columns()).
template <int R, bool kTimed, class Cost>
HWY_INLINE void QuantizedStripRows(D d, const Cost& cost, const QuantizedLaneBatch& batch,
                                   ptrdiff_t i0, int16_t* dd, int16_t* dv_last) {
  const size_t lanes = hn::Lanes(d);
  const size_t c = batch.channels();
  const ptrdiff_t record = static_cast<ptrdiff_t>(batch.record_size());
  const ptrdiff_t cell = 2 * static_cast<ptrdiff_t>(lanes);
  const ptrdiff_t m = batch.columns();
  const int16_t* columns = batch.column_zero();
  typename Cost::Row a[R];
  V ta[R];
  V del_a[R];
  V dh[R];      // dH of row k at the column it reached last
  V dv[R];      // dV likewise
  V l_now[R];   // L of row k at that column
  V l_prev[R];  // and at the column before
  for (int k = 0; k < R; ++k) {
    const int16_t* r = batch.row_zero() + (i0 + k) * record;
    a[k] = cost.LoadRow(d, r);
    ta[k] = hn::Load(d, r + c * lanes);
    del_a[k] = hn::Load(d, r + (c + 1) * lanes);
    dh[k] = hn::Zero(d);
    dv[k] = hn::Zero(d);
    l_now[k] = hn::Zero(d);
    l_prev[k] = hn::Zero(d);
  }
  V l_above = hn::Zero(d);  // L(i0 - 1, s - 1) for row i0 at step s
  // Row i0 + k at column j = s - k. Edge steps check j: column 1, whose D(i, 1) is reached by
  // deletions in A alone (dV = delA_i), and the columns before 1 and after m, which do not exist.
  const auto step = [&](ptrdiff_t s, auto edge) {
    const V dh_above = hn::Load(d, dd + s * cell);
    const V l_above_next = hn::Load(d, dd + s * cell + lanes);
#pragma GCC unroll 8
    for (int k = R - 1; k >= 0; --k) {
      const ptrdiff_t j = s - k;
      if constexpr (decltype(edge)::value) {
        if (j < 1 || j > m) continue;
      }
      const int16_t* b = columns + j * record;
      V l = cost(d, a[k], b, lanes);
      if constexpr (kTimed) {
        l = hn::SaturatedAdd(l, hn::Abs(hn::Sub(ta[k], hn::Load(d, b + c * lanes))));
      }
      if constexpr (decltype(edge)::value) {
        if (j == 1) {
          dv[k] = del_a[k];
          l_prev[k] = l_now[k];
          l_now[k] = l;
          continue;
        }
      }
      const V up_dh = k == 0 ? dh_above : dh[k - 1];
      const V z = TwedStep(QuantizedOps(), k == 0 ? l_above : l_prev[k - 1], l, up_dh, del_a[k],
                           dv[k], hn::Load(d, b + (c + 1) * lanes))
                      .d;
      dh[k] = hn::Sub(z, dv[k]);
      dv[k] = hn::Sub(z, up_dh);
      l_prev[k] = l_now[k];
      l_now[k] = l;
    }
    const ptrdiff_t stored = s - R + 1;
    if (!decltype(edge)::value || (stored >= 1 && stored <= m)) {
      hn::Store(dh[R - 1], d, dd + stored * cell);
      hn::Store(l_now[R - 1], d, dd + stored * cell + lanes);
    }
    l_above = l_above_next;
  };
  using Edge = std::true_type;
  using Inner = std::false_type;
  ptrdiff_t s = 1;
  for (; s <= std::min<ptrdiff_t>(R, m + R - 1); ++s) step(s, Edge());
  for (; s <= m; ++s) step(s, Inner());
  for (; s <= m + R - 1; ++s) step(s, Edge());
  for (int k = 0; k < R; ++k) hn::Store(dv[k], d, dv_last + k * lanes);
}

// Rows per strip: each keeps seven vectors live, which AVX-512's 32 registers hold for 4 rows.
constexpr int kStripRows = HWY_TARGET <= HWY_AVX3 ? 4 : 2;

// QuantizedStripRows for the last rows, fewer than R: `rows` of them.
template <int R, bool kTimed, class Cost>
HWY_INLINE void QuantizedLastRows(ptrdiff_t rows, D d, const Cost& cost,
                                  const QuantizedLaneBatch& batch, ptrdiff_t i0, int16_t* dd,
                                  int16_t* dv_last) {
  if constexpr (R > 0) {
    if (rows == R) {
      QuantizedStripRows<R, kTimed>(d, cost, batch, i0, dd, dv_last);
    } else {
      QuantizedLastRows<R - 1, kTimed>(rows, d, cost, batch, i0, dd, dv_last);
    }
  }
}

template <bool kTimed, class Cost>
bool QuantizedDp(const Cost& cost, const QuantizedKernelArgs& args) {
  const D d;
  const QuantizedLaneBatch& batch = *args.batch;
  const size_t lanes = hn::Lanes(d);
  HWY_ASSERT(batch.lanes() == lanes);
  const size_t c = batch.channels();
  const ptrdiff_t record = static_cast<ptrdiff_t>(batch.record_size());
  const ptrdiff_t cell = 2 * static_cast<ptrdiff_t>(lanes);
  const ptrdiff_t m = batch.columns();
  const size_t width = static_cast<size_t>(m + kStripRows + 1) * cell;
  hwy::AlignedFreeUniquePtr<int16_t[]> buffer = hwy::AllocateAligned<int16_t>(width);
  std::fill_n(buffer.get(), width, int16_t{0});
  int16_t* dd = buffer.get();
  // Row 1: D(1, j) = L(1, 1) + delB_2 + ... + delB_j, so dH(1, j) = delB_j.
  const int16_t* first = batch.row_zero() + record;
  const typename Cost::Row a1 = cost.LoadRow(d, first);
  const V ta1 = hn::Load(d, first + c * lanes);
  for (ptrdiff_t j = 1; j <= m; ++j) {
    const int16_t* b = batch.column_zero() + j * record;
    V l = cost(d, a1, b, lanes);
    if constexpr (kTimed) {
      l = hn::SaturatedAdd(l, hn::Abs(hn::Sub(ta1, hn::Load(d, b + c * lanes))));
    }
    hn::Store(j == 1 ? hn::Zero(d) : hn::Load(d, b + (c + 1) * lanes), d, dd + j * cell);
    hn::Store(l, d, dd + j * cell + lanes);
  }
  std::vector<int64_t> sums(lanes, 0);
  hwy::AlignedFreeUniquePtr<int16_t[]> dv_last = hwy::AllocateAligned<int16_t>(kStripRows * lanes);
  const auto add_rows = [&](int rows) {
    for (int k = 0; k < rows; ++k) {
      for (size_t lane = 0; lane < lanes; ++lane) sums[lane] += dv_last[k * lanes + lane];
    }
  };
  CancelPoller poller(args.cancel);
  const uint64_t strip_cells = static_cast<uint64_t>(kStripRows) * lanes * static_cast<uint64_t>(m);
  const ptrdiff_t n = batch.rows();
  ptrdiff_t i0 = 2;
  for (; i0 + kStripRows - 1 <= n; i0 += kStripRows) {
    if (poller.Cancelled(strip_cells)) return false;
    QuantizedStripRows<kStripRows, kTimed>(d, cost, batch, i0, dd, dv_last.get());
    add_rows(kStripRows);
  }
  if (i0 <= n) {
    QuantizedLastRows<kStripRows - 1, kTimed>(n - i0 + 1, d, cost, batch, i0, dd, dv_last.get());
    add_rows(static_cast<int>(n - i0 + 1));
  }
  std::copy(sums.begin(), sums.end(), args.out);
  return true;
}

template <class Cost>
bool QuantizedWith(const Cost& cost, const QuantizedKernelArgs& args) {
  return args.batch->timed() ? QuantizedDp<true>(cost, args) : QuantizedDp<false>(cost, args);
}

size_t QuantizedLanesImpl() { return hn::Lanes(D()); }

bool QuantizedTwedImpl(const QuantizedKernelArgs& args) {
  if (args.batch->channels() == 1) return QuantizedWith(QuantizedOneChannel{}, args);
  return QuantizedWith(QuantizedL1{args.batch->channels()}, args);
}

#endif  // HWY_TARGET == HWY_EMU128 || HWY_TARGET == HWY_SCALAR

}  // namespace wasserwarp::twed_internal::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace wasserwarp::twed_internal {

HWY_EXPORT(QuantizedLanesImpl);
HWY_EXPORT(QuantizedTwedImpl);

size_t QuantizedLanes() { return HWY_DYNAMIC_DISPATCH(QuantizedLanesImpl)(); }

bool QuantizedSupports(size_t channels, const TwedParams& params) {
  return (channels == 1 || params.p == 1.0) && !params.time_window.has_value() &&
         QuantizedLanes() > 0;
}

QuantizedLaneBatch::QuantizedLaneBatch(std::span<const Series* const> rows,
                                       std::span<const Series* const> cols,
                                       const TwedParams& params, size_t lanes)
    : lanes_(lanes), channels_(rows.front()->num_channels()), timed_(params.nu > 0.0) {
  for (size_t k = 0; k < rows.size(); ++k) {
    rows_ = std::max(rows_, static_cast<ptrdiff_t>(rows[k]->samples()));
    columns_ = std::max(columns_, static_cast<ptrdiff_t>(cols[k]->samples()));
  }
  constexpr size_t kAlign = 64;
  const auto allocate = [&](ptrdiff_t count) {
    const size_t elements = static_cast<size_t>(count + 1) * record_size();
    const size_t bytes = (elements * sizeof(int16_t) + kAlign - 1) / kAlign * kAlign;
    auto* records = static_cast<int16_t*>(std::aligned_alloc(kAlign, bytes));
    std::fill_n(records, bytes / sizeof(int16_t), int16_t{0});
    return records;
  };
  row_records_.reset(allocate(rows_));
  column_records_.reset(allocate(columns_));
  // Sample i (1-based) of a run of `size` on its grid, its last sample past its end at deletion
  // cost 0; lanes without a pair (or whose pair does not fit) stay all zeros.
  const auto fill = [&](int16_t* records, ptrdiff_t count, size_t lane,
                        const std::vector<int16_t>& values, const std::vector<int16_t>& times,
                        const std::vector<int16_t>& dels, size_t size) {
    for (ptrdiff_t i = 1; i <= count; ++i) {
      const size_t at = std::min(static_cast<size_t>(i), size) - 1;
      int16_t* r = records + i * static_cast<ptrdiff_t>(record_size());
      for (size_t k = 0; k < channels_; ++k) r[k * lanes_ + lane] = values[at * channels_ + k];
      r[channels_ * lanes_ + lane] = times[at];
      r[(channels_ + 1) * lanes_ + lane] = static_cast<size_t>(i) <= size ? dels[at] : int16_t{0};
    }
  };
  first_rows_.assign(lanes_, 0);
  // One lane's grid at a time: only the records stay, so the batch holds about as much as the
  // double kernel's (validation_size.cc counts that).
  for (size_t lane = 0; lane < rows.size(); ++lane) {
    const size_t n = rows[lane]->samples();
    const size_t m = cols[lane]->samples();
    const QuantizedPair p = QuantizePair(*rows[lane], *cols[lane], params);
    pairs_.push_back({p.scale, p.rounding_per_term, n, m});
    if (p.scale == 0.0) continue;
    fill(row_records_.get(), rows_, lane, p.a_values, p.a_times, p.a_dels, n);
    fill(column_records_.get(), columns_, lane, p.b_values, p.b_times, p.b_dels, m);
    int64_t first = std::abs(p.a_times[0] - p.b_times[0]);
    for (size_t k = 0; k < channels_; ++k) first += std::abs(p.a_values[k] - p.b_values[k]);
    for (size_t j = 1; j < m; ++j) first += p.b_dels[j];
    first_rows_[lane] = first;
  }
}

QuantizedBound QuantizedLaneBatch::Finish(size_t k, int64_t grid_distance) const {
  const Lane& lane = pairs_[k];
  if (lane.scale == 0.0) return {};
  const double g = static_cast<double>(grid_distance);
  const double terms = static_cast<double>(lane.n + lane.m - 1);
  const double rest = g - lane.rounding_per_term * terms;
  // The double kernels' own roundings, as for the single-precision bound (FinishBound there).
  const double roundings =
      2.0 * static_cast<double>(lane.n + lane.m) + static_cast<double>(channels_) + 16.0;
  const double bound = rest > 0.0 ? rest / lane.scale * (1.0 - roundings * 0x1p-52) : 0.0;
  return {.bound = bound, .estimate = g / lane.scale, .grid_distance = grid_distance};
}

absl::Status QuantizedTwedBound(const QuantizedLaneBatch& batch, std::span<QuantizedBound> out,
                                const CancellationToken* cancel) {
  if (cancel != nullptr && cancel->cancelled()) return TwedCancelledError();
  std::vector<int64_t> sums(batch.lanes(), 0);
  const QuantizedKernelArgs args{.batch = &batch, .out = sums.data(), .cancel = cancel};
  if (!HWY_DYNAMIC_DISPATCH(QuantizedTwedImpl)(args)) return TwedCancelledError();
  for (size_t k = 0; k < batch.size(); ++k) {
    out[k] = batch.Finish(k, batch.first_rows()[k] + sums[k]);
  }
  return absl::OkStatus();
}

absl::StatusOr<QuantizedBound> QuantizedTwedBoundOfPair(const Series& a, const Series& b,
                                                        const TwedParams& params) {
  if (absl::Status s = ValidateTwedInputs(a, b, params); !s.ok()) return s;
  if (!QuantizedSupports(a.num_channels(), params)) return QuantizedBound{};
  const Series* rows[] = {&a};
  const Series* cols[] = {&b};
  const QuantizedLaneBatch batch(rows, cols, params, QuantizedLanes());
  QuantizedBound out;
  if (absl::Status s = QuantizedTwedBound(batch, std::span(&out, 1)); !s.ok()) return s;
  return out;
}

}  // namespace wasserwarp::twed_internal
#endif  // HWY_ONCE
