// The lane-parallel TWED kernel, compiled once per SIMD target by Highway's
// foreach_target.h (which re-includes this file) and picked at run time.
// Over 500 lines: the per-target kernels and the entry points that dispatch
// to them (HWY_EXPORT, HWY_DYNAMIC_DISPATCH) must share this translation unit.
//
// Bit equality with the scalar strip kernel (twed_kernel.h) rests on three
// things: every lane evaluates the same expressions in the same order; the
// whole library is built with -ffp-contract=off, so that neither kernel
// fuses a multiply and an add into an FMA (GCC contracts by default in C++,
// and the AVX2 and AVX-512 targets have FMA); and Min, Abs and Sqrt are
// exact or correctly rounded in both. (Min differs from std::min only for
// NaN and signed zeros, and no cell holds either: costs are sums of
// absolute values, square roots and +inf.)

#ifndef HWY_DISABLED_TARGETS
// SSE4's two lanes are not worth the compile time; scalar code covers it.
#define HWY_DISABLED_TARGETS (HWY_SSSE3 | HWY_SSE4)
#endif

#include "twed/twed_batch.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <span>
#include <type_traits>
#include <vector>

#include "absl/status/status.h"
#include "twed/twed_kernel.h"
#include "wasserwarp/cancellation.h"

#ifndef WASSERWARP_SRC_TWED_BATCH_CC_ONCE_
#define WASSERWARP_SRC_TWED_BATCH_CC_ONCE_
namespace wasserwarp::twed_internal {

// ForceFmaSqrtForTest's choice: -1 leaves it to FmaSqrtPays, 0 and 1 force it.
inline std::atomic<int> fma_sqrt_forced{-1};

// One row series against a LaneBatch, as the per-target kernels take it.
struct KernelArgs {
  enum class Norm { kOneChannel, kL1, kL2 } norm;
  // Every value of both sides is moderate (ModerateValues), so that FmaSqrt
  // may take the square roots (where it pays on this CPU: UseFmaSqrt).
  bool moderate;
  double nu;
  ptrdiff_t rows;
  // Sample 0 (the virtual one) of the row series; rows 1..rows follow.
  const double* a_values;
  const double* a_times;
  const double* a_dels;
  const LaneBatch* batch;
  // BatchTwedPairs: lane k's own row series, in place of a_values, a_times and a_dels.
  const LaneBatch* row_batch = nullptr;
  double* out;
  const CancellationToken* cancel;
  // Pruned (BatchTwedWithin): one threshold per lane, and per lane the DP cells evaluated.
  // nullptr: every cell, as BatchTwed.
  const double* thresholds = nullptr;
  uint64_t* cells = nullptr;
  // BatchTwedPairsWithPath: per lane the match count and time-shift sum of the path; nullptr: no
  // path.
  double* path_counts = nullptr;
  double* path_sums = nullptr;
};

// The lane kernel of WithCost's functor for `channels` channels under norm p (BatchSupports
// holds, so several channels have p 1 or 2).
inline KernelArgs::Norm NormOf(size_t channels, double p) {
  return channels == 1 ? KernelArgs::Norm::kOneChannel
         : p == 1.0    ? KernelArgs::Norm::kL1
                       : KernelArgs::Norm::kL2;
}

// Whether every value is 0 or 2^-400 <= |v| <= 2^400. Then every sum of
// squared differences is 0 or in [2^-904, 2^805] (a non-zero difference is
// at least ulp(2^-400) = 2^-452), the domain of FmaSqrt (twed_sqrt-inl.h).
inline bool ModerateValues(std::span<const double> values) {
  return std::all_of(values.begin(), values.end(), [](double v) {
    return v == 0.0 || (std::abs(v) >= 0x1p-400 && std::abs(v) <= 0x1p400);
  });
}

}  // namespace wasserwarp::twed_internal
#endif  // WASSERWARP_SRC_TWED_BATCH_CC_ONCE_

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "twed/twed_batch.cc"
#include "hwy/aligned_allocator.h"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "twed/lane_scratch.h"
#include "twed/twed_sqrt-inl.h"
#include "twed/twed_strip-inl.h"

HWY_BEFORE_NAMESPACE();
namespace wasserwarp::twed_internal::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// The target this copy was compiled for: the one the dispatcher chose, when it runs.
int64_t DispatchedTargetImpl() { return HWY_TARGET; }

#if HWY_TARGET == HWY_EMU128 || HWY_TARGET == HWY_SCALAR

// Emulated lanes are slower than the scalar kernel: callers use Twed().
size_t BatchLanesImpl() { return 0; }
bool BatchTwedImpl(const KernelArgs& /*args*/) { HWY_ABORT("no SIMD target for BatchTwed"); }
void LaneSqrtForTestImpl(const double* x, double* out, size_t n) {
  for (size_t i = 0; i < n; ++i) out[i] = std::sqrt(x[i]);
}

#else

using D = hn::ScalableTag<double>;
using V = hn::Vec<D>;

// The per-lane twins of the cost functors in twed_kernel.h. Row holds one
// sample of the row series, broadcast to every lane once per strip; `b`
// points at a column record, channel k's lanes at b + k * lanes.
// `fma_sqrt` asks for FmaSqrt in place of the divider where the functor may
// use it.
struct LaneOneChannel {
  using Row = V;
  Row Broadcast(D d, const double* a) const { return hn::Set(d, *a); }
  Row PerLane(D d, const double* a, size_t /*lanes*/) const { return hn::Load(d, a); }
  V operator()(D d, const Row& a, const double* b, size_t /*lanes*/, bool /*fma_sqrt*/) const {
    return hn::Abs(hn::Sub(a, hn::Load(d, b)));
  }
};

// Sums |a_k - b_k| (L1) or (a_k - b_k)^2 (L2) as the scalar functors do, but
// from the first term instead of 0.0 + first term: the same bits, as no term
// is -0.
template <bool kL2>
HWY_INLINE V NormTerm(V a, V b) {
  const V diff = hn::Sub(a, b);
  return kL2 ? hn::Mul(diff, diff) : hn::Abs(diff);
}

// A compile-time channel count keeps the broadcast samples in registers.
// kFmaSqrt: the values are moderate enough for FmaSqrt (ModerateValues).
template <size_t C, bool kL2, bool kFmaSqrt>
struct LaneFixedNorm {
  struct Row {
    V v[C];
  };
  Row Broadcast(D d, const double* a) const {
    Row row;
    for (size_t k = 0; k < C; ++k) row.v[k] = hn::Set(d, a[k]);
    return row;
  }
  // Lane k's own sample: channel k's lanes at a + k * lanes, as in a column record.
  Row PerLane(D d, const double* a, size_t lanes) const {
    Row row;
    for (size_t k = 0; k < C; ++k) row.v[k] = hn::Load(d, a + k * lanes);
    return row;
  }
  V operator()(D d, const Row& a, const double* b, size_t lanes, bool fma_sqrt) const {
    V sum = NormTerm<kL2>(a.v[0], hn::Load(d, b));
    for (size_t k = 1; k < C; ++k) {
      sum = hn::Add(sum, NormTerm<kL2>(a.v[k], hn::Load(d, b + k * lanes)));
    }
    if constexpr (!kL2) return sum;
#if HWY_TARGET <= HWY_AVX3
    if (kFmaSqrt && fma_sqrt) return FmaSqrt(d, sum);
#endif
    return hn::Sqrt(sum);
  }
};

template <bool kL2>
struct LaneNorm {
  size_t channels;
  using Row = const double*;
  Row Broadcast(D /*d*/, const double* a) const { return a; }
  V operator()(D d, const Row& a, const double* b, size_t lanes, bool /*fma_sqrt*/) const {
    V sum = NormTerm<kL2>(hn::Set(d, a[0]), hn::Load(d, b));
    for (size_t k = 1; k < channels; ++k) {
      sum = hn::Add(sum, NormTerm<kL2>(hn::Set(d, a[k]), hn::Load(d, b + k * lanes)));
    }
    return kL2 ? hn::Sqrt(sum) : sum;
  }
};

// Rows per strip, as in the scalar kernel: enough independent add+min
// chains to fill the pipeline. Measured at length 1000 on one channel:
// AVX-512 0.36 ns per cell with 3 rows, 0.31 with 4 (5 would spill its 32
// registers); AVX2 0.65 with 2, 0.52 with 3.
constexpr int kStripRows = HWY_TARGET <= HWY_AVX3 ? 4 : 3;
static_assert(kStripRows - 1 <= LaneBatch::kBatchPad);

// Where a pruned strip left the DP: the live columns of its last row (some lane at or below its
// threshold; first > last when none) and the last column it stored.
struct LiveColumns {
  ptrdiff_t first = 0;
  ptrdiff_t last = -1;
  ptrdiff_t stored = 0;
};

// LaneStrip (twed_strip-inl.h) for the cells that can lie on a path at or below the lanes'
// thresholds, as twed_pruned.cc argues for one pair: the strip starts at `lo`, the first live
// column of the row above, and once past `hi`, its last, it stops when every lane of every row has
// been above its threshold for two steps in a row (a cell reads the row above at its own and the
// previous step). On entry dd holds +inf right of the row above's last stored column; every cell
// it computes is the exact DP value or above the threshold of its lane, as cells left of `lo` are.
template <int R, class Cost>
LiveColumns PrunedStripRows(const Cost& cost, const KernelArgs& args, ptrdiff_t i0, double* dd,
                            ptrdiff_t lo, ptrdiff_t hi, V threshold) {
  const D d;
  const ptrdiff_t m = args.batch->longest();
  const ptrdiff_t begin = std::max<ptrdiff_t>(lo, 1);
  LaneStrip<R, D, Cost, LaneBatch> strip(d, cost, *args.batch,
                                         LaneRow<double>{args.a_values, args.a_times, args.a_dels},
                                         args.nu, i0, dd, begin);
  NoPath no_path;
  LiveColumns live{.first = m + 1, .last = 0, .stored = m};
  int dead_steps = 0;
  for (ptrdiff_t s = begin; s <= m + R - 1; ++s) {
    strip.Step(d, s, dd, no_path);
    const ptrdiff_t column = s - R + 1;
    if (column >= 1 && !hn::AllTrue(d, hn::Gt(strip.RowD(R - 1), threshold))) {
      live.first = std::min(live.first, column);
      live.last = column;
    }
    if (s > hi + 1) {
      bool dead = true;
      for (int k = 0; k < R; ++k) dead = dead && hn::AllTrue(d, hn::Gt(strip.RowD(k), threshold));
      dead_steps = dead ? dead_steps + 1 : 0;
      if (dead_steps >= 2) {
        live.stored = column;
        break;
      }
    }
  }
  return live;
}

template <int R, class Cost>
LiveColumns PrunedLastRows(ptrdiff_t rows, const Cost& cost, const KernelArgs& args, ptrdiff_t i0,
                           double* dd, ptrdiff_t lo, ptrdiff_t hi, V threshold) {
  if constexpr (R > 0) {
    if (rows == R) return PrunedStripRows<R>(cost, args, i0, dd, lo, hi, threshold);
    return PrunedLastRows<R - 1>(rows, cost, args, i0, dd, lo, hi, threshold);
  }
  return {};
}

// BatchTwedWith for BatchTwedWithin: strips over the live columns only, and no strip more once
// a strip's last row has none. Lane k's out is its D(n, m_k) where computed, else +inf.
template <class Cost>
bool BatchTwedPrunedWith(const Cost& cost, const KernelArgs& args) {
  const D d;
  const size_t lanes = hn::Lanes(d);
  const LaneBatch& batch = *args.batch;
  const ptrdiff_t pad = LaneBatch::kBatchPad;
  const ptrdiff_t cell = 2 * static_cast<ptrdiff_t>(lanes);
  const ptrdiff_t m = batch.longest();
  const ptrdiff_t width = m + 1 + 2 * pad;
  AlignedScratch<double, kInlineDpCells> buffer(width * cell);
  std::fill_n(buffer.get(), width * cell, kInf);
  double* dd = buffer.get() + pad * cell;
  std::fill_n(dd, cell, 0.0);
  const V threshold = hn::LoadU(d, args.thresholds);
  const ptrdiff_t n = args.rows;
  CancelPoller poller(args.cancel);
  ptrdiff_t lo = 0;
  ptrdiff_t hi = 0;
  ptrdiff_t stored = 0;
  uint64_t cells = 0;
  bool abandoned = false;
  for (ptrdiff_t i = 1; i <= n;) {
    const ptrdiff_t rows = std::min<ptrdiff_t>(kStripRows, n - i + 1);
    const ptrdiff_t begin = std::max<ptrdiff_t>(lo, 1);
    if (poller.Cancelled(static_cast<uint64_t>(rows) * lanes * static_cast<uint64_t>(m))) {
      return false;
    }
    const LiveColumns live =
        rows == kStripRows
            ? PrunedStripRows<kStripRows>(cost, args, i, dd, lo, hi, threshold)
            : PrunedLastRows<kStripRows - 1>(rows, cost, args, i, dd, lo, hi, threshold);
    cells += static_cast<uint64_t>(rows) * static_cast<uint64_t>(std::max<ptrdiff_t>(
                                               0, std::min(live.stored + rows - 1, m) - begin + 1));
    // What the rows above left right of this strip's last row is stale: the next strip must
    // read +inf there.
    for (ptrdiff_t column = live.stored + 1; column <= stored; ++column) {
      std::fill_n(dd + column * cell, cell, kInf);
    }
    stored = live.stored;
    if (live.first > live.last) {
      abandoned = true;
      break;
    }
    lo = live.first;
    hi = live.last;
    i += rows;
  }
  const std::span<const ptrdiff_t> lengths = batch.lengths();
  for (size_t k = 0; k < lengths.size(); ++k) {
    args.out[k] = abandoned ? kInf : dd[lengths[k] * cell + k];
    args.cells[k] = std::min(cells, static_cast<uint64_t>(n) * static_cast<uint64_t>(lengths[k]));
  }
  return true;
}

// Whether all rows were computed, that is, args.cancel was not found cancelled.
template <class Cost>
bool BatchTwedWith(const Cost& cost, const KernelArgs& args) {
  if (args.thresholds != nullptr) return BatchTwedPrunedWith(cost, args);
  if (args.row_batch != nullptr) {
    if constexpr (requires(const double* a) { cost.PerLane(D(), a, 0); }) {
      const LaneBatch& rows = *args.row_batch;
      const LaneRows<double> lane_rows{rows.column_zero(),
                                       static_cast<ptrdiff_t>(rows.record_size())};
      if (args.path_counts != nullptr) {
        // Four more vectors a row: two rows keep them all in registers.
        return LaneDp<2, true>(D(), cost, *args.batch, lane_rows, args.nu, rows.lengths(),
                               args.cancel, args.out, args.path_counts, args.path_sums);
      }
      return LaneDp<kStripRows>(D(), cost, *args.batch, lane_rows, args.nu, rows.lengths(),
                                args.cancel, args.out);
    }
    HWY_ABORT("BatchTwedPairs on more channels than PairsSupport allows");
  }
  return LaneDp<kStripRows>(D(), cost, *args.batch,
                            LaneRow<double>{args.a_values, args.a_times, args.a_dels}, args.nu,
                            args.rows, args.cancel, args.out);
}

template <bool kL2, bool kFmaSqrt>
bool BatchTwedNorm(const KernelArgs& args) {
  switch (args.batch->channels()) {
    case 2:
      return BatchTwedWith(LaneFixedNorm<2, kL2, kFmaSqrt>{}, args);
    case 3:
      return BatchTwedWith(LaneFixedNorm<3, kL2, kFmaSqrt>{}, args);
    case 4:
      return BatchTwedWith(LaneFixedNorm<4, kL2, kFmaSqrt>{}, args);
    default:
      return BatchTwedWith(LaneNorm<kL2>{args.batch->channels()}, args);
  }
}

size_t BatchLanesImpl() { return hn::Lanes(D()); }

void LaneSqrtForTestImpl(const double* x, double* out, size_t n) {
  const D d;
  for (size_t i = 0; i < n; i += hn::Lanes(d)) {
#if HWY_TARGET <= HWY_AVX3
    hn::StoreU(FmaSqrt(d, hn::LoadU(d, x + i)), d, out + i);
#else
    hn::StoreU(hn::Sqrt(hn::LoadU(d, x + i)), d, out + i);
#endif
  }
}

#if HWY_TARGET <= HWY_AVX3
// Whether FmaSqrt takes the square roots faster than the divider on this CPU. It did on the Xeons
// it was written for (0.79 against 1.07 ns a three-channel cell) and does not on AMD's Zen 5
// (BM_TwedBatch_AVX3/1000/3: 356 ps a cell with it, 330 without). Both give the same bits, so
// the choice changes only the time: made once per process and target by timing both on lanes of
// three-channel runs of 160 samples, best of five each (about 2 ms).
bool FmaSqrtPays() {
  static const bool pays = [] {
    constexpr size_t kSamples = 160;
    const D d;
    std::vector<Series> runs(hn::Lanes(d) + 1);
    for (size_t k = 0; k < runs.size(); ++k) {
      runs[k].channels = {"x", "y", "z"};
      for (size_t j = 0; j < kSamples; ++j) {
        const double t = 0.01 * static_cast<double>(j) * (1.0 + 0.01 * static_cast<double>(k));
        runs[k].times.push_back(t);
        for (const double phase : {0.0, 1.0, 2.0}) runs[k].values.push_back(std::sin(t + phase));
      }
    }
    std::vector<const Series*> columns;
    for (size_t k = 1; k < runs.size(); ++k) columns.push_back(&runs[k]);
    const TwedParams params{.nu = 0.001, .lambda = 0.0, .p = 2.0};
    const LaneBatch batch(columns, params, hn::Lanes(d));
    const Side side(runs.front(), 0, L2Cost{3}, params.nu, params.lambda);
    const LaneRow<double> row{side.sample(0, 3), side.times(), side.dels()};
    std::vector<double> out(hn::Lanes(d));
    const auto best_time = [&](const auto& cost) {
      auto best = std::chrono::steady_clock::duration::max();
      for (int run = 0; run < 5; ++run) {
        const auto start = std::chrono::steady_clock::now();
        LaneDp<kStripRows>(d, cost, batch, row, params.nu, side.size(), nullptr, out.data());
        best = std::min(best, std::chrono::steady_clock::now() - start);
      }
      return best;
    };
    return best_time(LaneFixedNorm<3, true, true>{}) < best_time(LaneFixedNorm<3, true, false>{});
  }();
  return pays;
}

bool UseFmaSqrt() {
  const int forced = fma_sqrt_forced.load(std::memory_order_relaxed);
  return forced >= 0 ? forced == 1 : FmaSqrtPays();
}
#endif  // HWY_TARGET <= HWY_AVX3

bool BatchTwedImpl(const KernelArgs& args) {
  switch (args.norm) {
    case KernelArgs::Norm::kOneChannel:
      return BatchTwedWith(LaneOneChannel{}, args);
    case KernelArgs::Norm::kL1:
      return BatchTwedNorm<false, false>(args);
    case KernelArgs::Norm::kL2:
#if HWY_TARGET <= HWY_AVX3
      if (args.moderate && UseFmaSqrt()) return BatchTwedNorm<true, true>(args);
#endif
      return BatchTwedNorm<true, false>(args);
  }
}

#endif  // HWY_TARGET == HWY_EMU128 || HWY_TARGET == HWY_SCALAR

}  // namespace wasserwarp::twed_internal::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace wasserwarp::twed_internal {

HWY_EXPORT(BatchLanesImpl);
HWY_EXPORT(BatchTwedImpl);
HWY_EXPORT(LaneSqrtForTestImpl);
HWY_EXPORT(DispatchedTargetImpl);

size_t BatchLanes() { return HWY_DYNAMIC_DISPATCH(BatchLanesImpl)(); }

const char* BatchTargetName() {
  // Emulated lanes leave every distance to the scalar kernel.
  if (BatchLanes() == 0) return "scalar";
  return hwy::TargetName(HWY_DYNAMIC_DISPATCH(DispatchedTargetImpl)());
}

bool BatchSupports(size_t channels, const TwedParams& params) {
  return !params.time_window && (channels == 1 || params.p == 1.0 || params.p == 2.0);
}

LaneBatch::LaneBatch(std::span<const Series* const> series, const TwedParams& params, size_t lanes)
    : LaneRecords(lanes, series.front()->num_channels()) {
  for (const Series* s : series) {
    AddLane(static_cast<ptrdiff_t>(s->samples()));
    moderate_ = moderate_ && ModerateValues(s->values);
  }
  Allocate();
  WithCost(channels(), params.p, [&](const auto& cost) {
    for (size_t lane = 0; lane < series.size(); ++lane) {
      // The scalar kernel's deletion costs, computed by the same code.
      const Side side(*series[lane], 0, cost, params.nu, params.lambda);
      for (ptrdiff_t j = 1; j <= side.size(); ++j) {
        SetSample(lane, j, side.sample(j, channels()), side.time(j), side.del(j));
      }
    }
    return 0;
  });
}

namespace {

// Runs the dispatched kernel on `a` against `batch`: every cell, or with `thresholds` (one per
// lane) the cells that can stay at or below them, with the cells evaluated per lane in `cells`.
absl::Status RunBatch(const Series& a, const LaneBatch& batch, const TwedParams& params,
                      double* out, const double* thresholds, uint64_t* cells,
                      const CancellationToken* cancel) {
  const size_t c = batch.channels();
  HWY_ASSERT(BatchSupports(c, params));
  if (cancel != nullptr && cancel->cancelled()) return TwedCancelledError();
  const bool completed = WithCost(c, params.p, [&](const auto& cost) {
    const Side side(a, 0, cost, params.nu, params.lambda);
    const KernelArgs args{.norm = NormOf(c, params.p),
                          .moderate = batch.moderate() && ModerateValues(a.values),
                          .nu = params.nu,
                          .rows = side.size(),
                          .a_values = side.sample(0, c),
                          .a_times = side.times(),
                          .a_dels = side.dels(),
                          .batch = &batch,
                          .out = out,
                          .cancel = cancel,
                          .thresholds = thresholds,
                          .cells = cells};
    return HWY_DYNAMIC_DISPATCH(BatchTwedImpl)(args);
  });
  return completed ? absl::OkStatus() : TwedCancelledError();
}

}  // namespace

absl::Status BatchTwed(const Series& a, const LaneBatch& batch, const TwedParams& params,
                       std::span<double> out, const CancellationToken* cancel) {
  return RunBatch(a, batch, params, out.data(), nullptr, nullptr, cancel);
}

bool PairsSupport(size_t channels, const TwedParams& params) {
  return BatchSupports(channels, params) && channels <= 4;  // LaneFixedNorm's, with PerLane
}

namespace {

// The kernel on lanes of pairs that share no run, with the path's counts and sums where they are
// not null.
absl::Status RunPairs(const LaneBatch& rows, const LaneBatch& batch, const TwedParams& params,
                      double* out, double* path_counts, double* path_sums,
                      const CancellationToken* cancel) {
  const size_t c = batch.channels();
  HWY_ASSERT(PairsSupport(c, params) && rows.channels() == c && rows.lanes() == batch.lanes() &&
             rows.size() == batch.size());
  if (cancel != nullptr && cancel->cancelled()) return TwedCancelledError();
  const KernelArgs args{.norm = NormOf(c, params.p),
                        .moderate = batch.moderate() && rows.moderate(),
                        .nu = params.nu,
                        .rows = rows.longest(),
                        .a_values = nullptr,
                        .a_times = nullptr,
                        .a_dels = nullptr,
                        .batch = &batch,
                        .row_batch = &rows,
                        .out = out,
                        .cancel = cancel,
                        .path_counts = path_counts,
                        .path_sums = path_sums};
  return HWY_DYNAMIC_DISPATCH(BatchTwedImpl)(args) ? absl::OkStatus() : TwedCancelledError();
}

}  // namespace

absl::Status BatchTwedPairs(const LaneBatch& rows, const LaneBatch& batch, const TwedParams& params,
                            std::span<double> out, const CancellationToken* cancel) {
  return RunPairs(rows, batch, params, out.data(), nullptr, nullptr, cancel);
}

absl::Status BatchTwedPairsWithPath(const LaneBatch& rows, const LaneBatch& batch,
                                    const TwedParams& params, std::span<EditPathSummary> out,
                                    const CancellationToken* cancel) {
  std::vector<double> distances(batch.size());
  std::vector<double> counts(batch.size());
  std::vector<double> sums(batch.size());
  if (absl::Status status =
          RunPairs(rows, batch, params, distances.data(), counts.data(), sums.data(), cancel);
      !status.ok()) {
    return status;
  }
  for (size_t k = 0; k < batch.size(); ++k) {
    const auto matches = static_cast<uint64_t>(counts[k]);
    out[k] = {.distance = distances[k],
              .matches = matches,
              .a_deletions = static_cast<uint64_t>(rows.lengths()[k]) - matches,
              .b_deletions = static_cast<uint64_t>(batch.lengths()[k]) - matches,
              .mean_time_shift = sums[k] / static_cast<double>(matches)};
  }
  return absl::OkStatus();
}

absl::Status BatchTwedWithin(const Series& a, const LaneBatch& batch, const TwedParams& params,
                             std::span<const double> thresholds, std::span<BoundedTwed> out,
                             const CancellationToken* cancel) {
  // Lanes past the batch's series are above any threshold, so that they keep no column live.
  std::vector<double> lane_thresholds(batch.lanes(), -1.0);
  std::copy(thresholds.begin(), thresholds.end(), lane_thresholds.begin());
  std::vector<double> distances(batch.lanes(), kInf);
  std::vector<uint64_t> cells(batch.lanes(), 0);
  if (absl::Status status = RunBatch(a, batch, params, distances.data(), lane_thresholds.data(),
                                     cells.data(), cancel);
      !status.ok()) {
    return status;
  }
  for (size_t k = 0; k < batch.size(); ++k) {
    const bool within = distances[k] <= thresholds[k];
    out[k] = {.within = within, .value = within ? distances[k] : thresholds[k], .cells = cells[k]};
  }
  return absl::OkStatus();
}

void LaneSqrtForTest(std::span<const double> x, std::span<double> out) {
  HWY_DYNAMIC_DISPATCH(LaneSqrtForTestImpl)(x.data(), out.data(), x.size());
}

std::vector<BatchTarget> AvailableBatchTargets() {
  std::vector<BatchTarget> targets;
  for (int64_t bits = hwy::SupportedTargets() & HWY_TARGETS; bits != 0; bits &= bits - 1) {
    const int64_t target = bits & -bits;
    targets.push_back({target, hwy::TargetName(target)});
  }
  return targets;
}

void ForceFmaSqrtForTest(std::optional<bool> use) {
  fma_sqrt_forced.store(use.has_value() ? static_cast<int>(*use) : -1, std::memory_order_relaxed);
}

void ForceBatchTarget(int64_t id) {
  hwy::SetSupportedTargetsForTest(id);
  hwy::GetChosenTarget().Update(hwy::SupportedTargets());
}

}  // namespace wasserwarp::twed_internal
#endif  // HWY_ONCE
