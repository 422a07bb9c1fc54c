// The single-precision lower bound on TWED, compiled once per SIMD target by Highway's
// foreach_target.h (which re-includes this file) and picked at run time.
//
// The kernel runs the recurrence of twed_kernel.h with the processor rounding every float
// operation toward zero (TowardZero around the call; this file is built with -frounding-math
// so that the compiler neither folds nor moves float arithmetic across it). Every cost and sum
// is then monotone and never above its exact result, which is what the proof in
// docs/twed_bounds.md needs: on the non-negative sums, products, fused multiply-adds and square
// roots toward zero is toward -inf, and a difference rounded toward zero keeps |x - y| from growing
// (toward -inf would not: a rounded-down x - y < 0 grows under Abs, and max - min costs an
// operation more). The strips are twed_batch.cc's (twed_strip-inl.h) on float lanes; only the
// rounding, the records and the cost functors, which take the plain square root rather than
// twed_sqrt-inl.h's (that one exists to give std::sqrt's bits, which a bound does not need), are
// this file's.

#ifndef HWY_DISABLED_TARGETS
#define HWY_DISABLED_TARGETS (HWY_SSSE3 | HWY_SSE4)
#endif

#include "twed/twed_single.h"

#include <algorithm>
#include <cfenv>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <span>
#include <vector>

#if defined(__SSE__)
#include <pmmintrin.h>
#include <xmmintrin.h>
#endif

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "twed/twed_batch.h"
#include "twed/twed_kernel.h"
#include "wasserwarp/cancellation.h"

#ifndef WASSERWARP_SRC_TWED_TWED_SINGLE_CC_ONCE_
#define WASSERWARP_SRC_TWED_TWED_SINGLE_CC_ONCE_
namespace wasserwarp::twed_internal {

// One row series against a SingleLaneBatch, as the per-target kernels take it.
struct SingleKernelArgs {
  bool l2;  // else L1, which is also every one-channel norm
  float nu;
  ptrdiff_t rows;
  // Sample 0 (the virtual one) of the row series; rows 1..rows follow.
  const float* a_values;
  const float* a_times;
  const float* a_dels;
  const SingleLaneBatch* batch;
  float* out;  // one per lane
  const CancellationToken* cancel;
  // Where each lane has its own row series (SingleTwedBoundOfPairs): their records, else null.
  const SingleLaneBatch* row_batch = nullptr;
};

}  // namespace wasserwarp::twed_internal
#endif  // WASSERWARP_SRC_TWED_TWED_SINGLE_CC_ONCE_

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "twed/twed_single.cc"
#include "hwy/aligned_allocator.h"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "twed/twed_strip-inl.h"

HWY_BEFORE_NAMESPACE();
namespace wasserwarp::twed_internal::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

#if HWY_TARGET == HWY_EMU128 || HWY_TARGET == HWY_SCALAR

size_t SingleLanesImpl() { return 0; }
bool SingleTwedImpl(const SingleKernelArgs& /*args*/) {
  HWY_ABORT("no SIMD target for SingleTwedBound");
}

#else

using D = hn::ScalableTag<float>;
using V = hn::Vec<D>;

// The lanes' c(a_i, b_j), as twed_batch.cc's cost functors: Row holds one sample of the row
// series, `b` points at a column record, channel k's lanes at b + k * lanes. Under L2 the
// difference is squared as it is, its sign being no matter: an Abs there cost a tenth of a
// three-channel cell (BM_TwedSingle_AVX3/1000/3, 123 against 114 ps).
struct SingleOneChannel {
  using Row = V;
  Row Broadcast(D d, const float* a) const { return hn::Set(d, *a); }
  Row PerLane(D d, const float* a, size_t /*lanes*/) const { return hn::Load(d, a); }
  V operator()(D d, const Row& a, const float* b, size_t /*lanes*/, bool /*fma_sqrt*/) const {
    return hn::Abs(hn::Sub(a, hn::Load(d, b)));
  }
};

template <bool kL2>
struct SingleNorm {
  size_t channels;
  using Row = const float*;
  Row Broadcast(D /*d*/, const float* a) const { return a; }
  V operator()(D d, const Row& a, const float* b, size_t lanes, bool /*fma_sqrt*/) const {
    V sum = hn::Zero(d);
    for (size_t k = 0; k < channels; ++k) {
      const V diff = hn::Sub(hn::Set(d, a[k]), hn::Load(d, b + k * lanes));
      sum = kL2 ? hn::MulAdd(diff, diff, sum) : hn::Add(sum, hn::Abs(diff));
    }
    return kL2 ? hn::Sqrt(sum) : sum;
  }
};

// A compile-time channel count keeps the broadcast samples in registers, as in twed_batch.cc.
template <size_t C, bool kL2>
struct SingleFixedNorm {
  struct Row {
    V v[C];
  };
  Row Broadcast(D d, const float* a) const {
    Row row;
    for (size_t k = 0; k < C; ++k) row.v[k] = hn::Set(d, a[k]);
    return row;
  }
  // Lane k's own sample: channel k's lanes at a + k * lanes, as in a column record.
  Row PerLane(D d, const float* a, size_t lanes) const {
    Row row;
    for (size_t k = 0; k < C; ++k) row.v[k] = hn::Load(d, a + k * lanes);
    return row;
  }
  V operator()(D d, const Row& a, const float* b, size_t lanes, bool /*fma_sqrt*/) const {
    V sum = hn::Zero(d);
    for (size_t k = 0; k < C; ++k) {
      const V diff = hn::Sub(a.v[k], hn::Load(d, b + k * lanes));
      sum = kL2 ? hn::MulAdd(diff, diff, sum) : hn::Add(sum, hn::Abs(diff));
    }
    return kL2 ? hn::Sqrt(sum) : sum;
  }
};

// Rows per strip, as twed_batch.cc measured for its kernel.
constexpr int kStripRows = HWY_TARGET <= HWY_AVX3 ? 4 : 3;

// Whether all rows were computed, that is, args.cancel was not found cancelled.
template <class Cost>
bool SingleTwedWith(const Cost& cost, const SingleKernelArgs& args) {
  if (args.row_batch != nullptr) {
    if constexpr (requires(const float* a) { cost.PerLane(D(), a, 0); }) {
      const SingleLaneBatch& rows = *args.row_batch;
      return LaneDp<kStripRows>(
          D(), cost, *args.batch,
          LaneRows<float>{rows.column_zero(), static_cast<ptrdiff_t>(rows.record_size())}, args.nu,
          rows.lengths(), args.cancel, args.out);
    }
    HWY_ABORT("SingleTwedBoundOfPairs on more channels than SinglePairsSupport allows");
  }
  return LaneDp<kStripRows>(D(), cost, *args.batch,
                            LaneRow<float>{args.a_values, args.a_times, args.a_dels}, args.nu,
                            args.rows, args.cancel, args.out);
}

size_t SingleLanesImpl() { return hn::Lanes(D()); }

template <bool kL2>
bool SingleTwedNorm(const SingleKernelArgs& args) {
  switch (args.batch->channels()) {
    case 2:
      return SingleTwedWith(SingleFixedNorm<2, kL2>{}, args);
    case 3:
      return SingleTwedWith(SingleFixedNorm<3, kL2>{}, args);
    case 4:
      return SingleTwedWith(SingleFixedNorm<4, kL2>{}, args);
    default:
      return SingleTwedWith(SingleNorm<kL2>{args.batch->channels()}, args);
  }
}

bool SingleTwedImpl(const SingleKernelArgs& args) {
  if (args.batch->channels() == 1) return SingleTwedWith(SingleOneChannel{}, args);
  return args.l2 ? SingleTwedNorm<true>(args) : SingleTwedNorm<false>(args);
}

#endif  // HWY_TARGET == HWY_EMU128 || HWY_TARGET == HWY_SCALAR

}  // namespace wasserwarp::twed_internal::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace wasserwarp::twed_internal {

HWY_EXPORT(SingleLanesImpl);
HWY_EXPORT(SingleTwedImpl);

namespace {

// Above this magnitude a value, time or deletion cost does not go to single precision: the bound
// is 0 instead. Far below FLT_MAX, so that no conversion overflows.
constexpr double kSingleRange = 0x1p100;

// x rounded to float toward -inf, for x >= 0.
float RoundedDown(double x) {
  float f = static_cast<float>(x);
  if (static_cast<double>(f) > x) f = std::nextafter(f, -std::numeric_limits<float>::infinity());
  return f;
}

// Below this magnitude a shifted value or time is stored as 0, so that the kernel never reads a
// subnormal float (each costs a microcode assist, and the demo's runs start with values of
// 1e-18); the error is counted like any rounding.
constexpr double kSingleFloor = 0x1p-60;

// x - origin to single precision, and an upper bound on the error |(x - origin) - result| of
// the exact difference: the double subtraction's own error (Knuth's TwoSum, exact) plus the
// float rounding of its result (exact in double).
struct Shifted {
  float value;
  double error;
};
Shifted ShiftToSingle(double x, double origin) {
  const double s = x - origin;
  const double x_part = s + origin;
  const double residual = (x - x_part) + (-origin - (s - x_part));
  const float f = std::abs(s) < kSingleFloor ? 0.0f : static_cast<float>(s);
  return {f, std::abs(s - static_cast<double>(f)) + std::abs(residual)};
}

// The kernel's floating-point environment for its lifetime: rounding toward zero, and on x86
// subnormal results flushed to zero and subnormal operands read as zero. Flushing only lowers
// the non-negative sums, products and square roots, and |x - y| (to 0); the operands read as
// zero can only be nu and deletion costs, non-negative, as no value or time is subnormal
// (kSingleFloor). So the proof holds, and no operation takes the slow subnormal path.
class TowardZero {
 public:
  TowardZero() : rounding_(std::fegetround()) {
#if defined(__SSE__)
    csr_ = _mm_getcsr();
#endif
    std::fesetround(FE_TOWARDZERO);
#if defined(__SSE__)
    _mm_setcsr(_mm_getcsr() | _MM_FLUSH_ZERO_ON | _MM_DENORMALS_ZERO_ON);
#endif
  }
  ~TowardZero() {
#if defined(__SSE__)
    _mm_setcsr(csr_);
#endif
    std::fesetround(rounding_);
  }
  TowardZero(const TowardZero&) = delete;
  TowardZero& operator=(const TowardZero&) = delete;

 private:
  int rounding_;
#if defined(__SSE__)
  unsigned int csr_ = 0;
#endif
};

// Relative slack on the rounding-error terms for their own double roundings.
constexpr double kErrorSlack = 1.0 + 0x1p-40;

// The proof's bound from the float DP's value `dp` of a pair of lengths n and m, d channels and
// largest rounding errors `row_error` and `col_error`.
double FinishBound(float dp, size_t n, size_t m, size_t d, double row_error, double col_error) {
  if (!std::isfinite(dp)) return 0.0;
  const double input_error =
      2.0 * static_cast<double>(std::min(n, m)) * (row_error + col_error) * kErrorSlack;
  const double rest = static_cast<double>(dp) - input_error;
  if (!(rest > 0.0)) return 0.0;
  const double roundings = 2.0 * static_cast<double>(n + m) + static_cast<double>(d) + 16.0;
  return rest * (1.0 - roundings * 0x1p-52);
}

}  // namespace

size_t SingleLanes() { return HWY_DYNAMIC_DISPATCH(SingleLanesImpl)(); }

bool SingleSupports(size_t channels, const TwedParams& params) {
  return BatchSupports(channels, params) && SingleLanes() > 0;
}

bool SinglePairsSupport(size_t channels, const TwedParams& params) {
  return SingleSupports(channels, params) && channels <= 4;  // SingleFixedNorm's, with PerLane
}

SingleOrigin OriginAt(const Series& run) {
  SingleOrigin origin{.values = {}, .time = run.times[0]};
  for (size_t k = 0; k < run.num_channels(); ++k) origin.values.push_back(run.value(0, k));
  return origin;
}

SingleRun ToSingleRun(const Series& run, const SingleOrigin& origin, const TwedParams& params) {
  const size_t c = run.num_channels();
  const size_t n = run.samples();
  SingleRun single{.channels = c,
                   .values = std::vector<float>((n + 1) * c, 0.0f),
                   .times = std::vector<float>(n + 1, 0.0f),
                   .dels = std::vector<float>(n + 1, 0.0f)};
  const auto fits = [](double x) { return std::abs(x) <= kSingleRange; };
  for (size_t j = 0; j < n; ++j) {
    double error = 0.0;
    for (size_t k = 0; k < c; ++k) {
      const Shifted v = ShiftToSingle(run.value(j, k), origin.values[k]);
      single.values[(j + 1) * c + k] = v.value;
      single.moderate = single.moderate && fits(run.value(j, k) - origin.values[k]);
      error += v.error;
    }
    const Shifted t = ShiftToSingle(run.times[j], origin.time);
    single.times[j + 1] = t.value;
    single.moderate = single.moderate && fits(run.times[j] - origin.time);
    single.rounding_error = std::max(single.rounding_error, (error + params.nu * t.error));
  }
  single.rounding_error *= kErrorSlack;
  WithCost(c, params.p, [&](const auto& cost) {
    const Side side(run, 0, cost, params.nu, params.lambda);
    for (ptrdiff_t j = 2; j <= side.size(); ++j) {
      single.moderate = single.moderate && fits(side.del(j));
      single.dels[j] = RoundedDown(std::min(side.del(j), kSingleRange));
    }
    return 0;
  });
  return single;
}

SingleLaneBatch::SingleLaneBatch(std::span<const SingleRun* const> runs, size_t lanes)
    : LaneRecords(lanes, runs.front()->channels) {
  for (const SingleRun* run : runs) {
    AddLane(run->samples());
    rounding_errors_.push_back(run->rounding_error);
    moderate_ = moderate_ && run->moderate;
  }
  Allocate();
  const size_t c = channels();
  for (size_t lane = 0; lane < runs.size(); ++lane) {
    const SingleRun& run = *runs[lane];
    for (ptrdiff_t j = 1; j <= run.samples(); ++j) {
      SetSample(lane, j, run.values.data() + j * c, run.times[j], run.dels[j]);
    }
  }
}

namespace {

// The kernel on `args` in its rounding mode, then each lane's bound from its DP value: out[k] for
// the batch's k-th series against a row series of `row_lengths[k]` samples whose largest rounding
// error is `row_errors[k]`.
absl::Status RunSingle(SingleKernelArgs args, std::span<const ptrdiff_t> row_lengths,
                       std::span<const double> row_errors, std::span<double> out) {
  const SingleLaneBatch& batch = *args.batch;
  std::vector<float> lane_out(batch.lanes(), 0.0f);
  args.out = lane_out.data();
  bool completed = false;
  {
    const TowardZero toward_zero;
    completed = HWY_DYNAMIC_DISPATCH(SingleTwedImpl)(args);
  }
  if (!completed) return TwedCancelledError();
  for (size_t k = 0; k < batch.size(); ++k) {
    out[k] = FinishBound(lane_out[k], static_cast<size_t>(row_lengths[k]),
                         static_cast<size_t>(batch.lengths()[k]), batch.channels(), row_errors[k],
                         batch.rounding_errors()[k]);
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status SingleTwedBound(const SingleRun& row, const SingleLaneBatch& batch,
                             const TwedParams& params, std::span<double> out,
                             const CancellationToken* cancel) {
  if (cancel != nullptr && cancel->cancelled()) return TwedCancelledError();
  if (!row.moderate || !batch.moderate() || params.nu > kSingleRange) {
    std::fill_n(out.begin(), batch.size(), 0.0);
    return absl::OkStatus();
  }
  const SingleKernelArgs args{.l2 = params.p == 2.0,
                              .nu = RoundedDown(params.nu),
                              .rows = row.samples(),
                              .a_values = row.values.data(),
                              .a_times = row.times.data(),
                              .a_dels = row.dels.data(),
                              .batch = &batch,
                              .out = nullptr,
                              .cancel = cancel};
  const std::vector<ptrdiff_t> row_lengths(batch.size(), row.samples());
  const std::vector<double> row_errors(batch.size(), row.rounding_error);
  return RunSingle(args, row_lengths, row_errors, out);
}

absl::Status SingleTwedBoundOfPairs(const SingleLaneBatch& rows, const SingleLaneBatch& batch,
                                    const TwedParams& params, std::span<double> out,
                                    const CancellationToken* cancel) {
  if (cancel != nullptr && cancel->cancelled()) return TwedCancelledError();
  if (!rows.moderate() || !batch.moderate() || params.nu > kSingleRange) {
    std::fill_n(out.begin(), batch.size(), 0.0);
    return absl::OkStatus();
  }
  const SingleKernelArgs args{.l2 = params.p == 2.0,
                              .nu = RoundedDown(params.nu),
                              .rows = rows.longest(),
                              .a_values = nullptr,
                              .a_times = nullptr,
                              .a_dels = nullptr,
                              .batch = &batch,
                              .out = nullptr,
                              .cancel = cancel,
                              .row_batch = &rows};
  return RunSingle(args, rows.lengths(), rows.rounding_errors(), out);
}

absl::StatusOr<double> SingleTwedBoundOfPair(const Series& a, const Series& b,
                                             const TwedParams& params) {
  if (absl::Status s = ValidateTwedInputs(a, b, params); !s.ok()) return s;
  if (!SingleSupports(a.num_channels(), params)) return 0.0;
  const SingleOrigin origin = OriginAt(a);
  const SingleRun row = ToSingleRun(a, origin, params);
  const SingleRun col = ToSingleRun(b, origin, params);
  const SingleRun* runs[] = {&col};
  const SingleLaneBatch batch(runs, SingleLanes());
  double out = 0.0;
  if (absl::Status s = SingleTwedBound(row, batch, params, std::span(&out, 1)); !s.ok()) return s;
  return out;
}

}  // namespace wasserwarp::twed_internal
#endif  // HWY_ONCE
