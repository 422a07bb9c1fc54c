// Each pair of the 16-bit bound on its common grid (QuantizePair of twed_quantized.h): the grid's
// scale, and the runs' values, times and deletion costs on it. The rounding onto the grid runs in
// SIMD lanes, compiled once per target by Highway's foreach_target.h (which re-includes this
// file) and picked at run time, as the lazy transport puts every run on a grid once per pair.

#ifndef HWY_DISABLED_TARGETS
#define HWY_DISABLED_TARGETS (HWY_SSSE3 | HWY_SSE4)
#endif

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <span>
#include <vector>

#include "twed/twed_quantized.h"
#include "wasserwarp/series.h"
#include "wasserwarp/twed.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "twed/twed_grid.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace wasserwarp::twed_internal::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// q[i] = floor(scale (x[i] - middle)) clamped to [-grid_half, grid_half] for i < n, in lanes and
// for the tail with the same double operations.
void OnGridImpl(const double* x, size_t n, double scale, double middle, double grid_half,
                int16_t* q) {
  const hn::ScalableTag<double> d;
  const hn::Rebind<int32_t, decltype(d)> d32;
  const hn::Rebind<int16_t, decltype(d)> d16;
  const size_t lanes = hn::Lanes(d);
  const auto s = hn::Set(d, scale);
  const auto m = hn::Set(d, middle);
  const auto hi = hn::Set(d, grid_half);
  const auto lo = hn::Neg(hi);
  size_t i = 0;
  for (; i + lanes <= n; i += lanes) {
    const auto y = hn::Min(hn::Max(hn::Mul(s, hn::Sub(hn::LoadU(d, x + i), m)), lo), hi);
    hn::StoreU(hn::DemoteTo(d16, hn::DemoteTo(d32, hn::Floor(y))), d16, q + i);
  }
  for (; i < n; ++i) {
    const double y = std::min(std::max(scale * (x[i] - middle), -grid_half), grid_half);
    q[i] = static_cast<int16_t>(std::floor(y));
  }
}

}  // namespace wasserwarp::twed_internal::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace wasserwarp::twed_internal {

HWY_EXPORT(OnGridImpl);

namespace {

// The grid's half-width: values and times lie in [-kGridHalf, kGridHalf], so that the difference
// of two fits 16 bits.
constexpr double kGridHalf = 16383.0;

// Relative slack on the rounding per term for the double roundings before the integer grid:
// each at most 2^-52 of a grid value below 2^14 (the proof).
constexpr double kTermSlack = 1.0 + 0x1p-30;

// The smallest and largest grid scales tried: beyond them the pair does not fit (bound 0).
constexpr double kMinScale = 0x1p-1000;
constexpr double kMaxScale = 0x1p60;

// x[i] on a grid of scale s around `middle`: floor(s (x[i] - middle)), clamped to the grid (only
// ever by rounding: the scale keeps every exact value inside), in SIMD lanes, as the lazy
// transport puts every run on a grid once per pair.
void OnGrid(std::span<const double> x, double s, double middle, int16_t* q) {
  HWY_DYNAMIC_DISPATCH(OnGridImpl)(x.data(), x.size(), s, middle, kGridHalf, q);
}

// The middle of [lo, hi] and the largest distance from it to either end, rounded up.
struct Span {
  double middle = 0.0;
  double half = 0.0;
};
Span SpanOf(double lo, double hi) {
  const double middle = 0.5 * lo + 0.5 * hi;
  return {middle, std::max(hi - middle, middle - lo) * (1.0 + 0x1p-50)};
}

// Samples, times and deletion costs of one run on the grid; the largest deletion cost. Each pass
// is a plain loop over one array, in SIMD lanes or vectorized by the compiler: the lazy transport
// puts every run on a grid once per pair.
int QuantizeRun(const Series& run, std::span<const Span> channel_spans, const Span& time_span,
                double s, double time_scale, int lambda, std::vector<int16_t>& values,
                std::vector<int16_t>& times, std::vector<int16_t>& dels) {
  const size_t c = run.num_channels();
  const size_t n = run.samples();
  values.resize(n * c);
  times.resize(n);
  dels.assign(n, 0);
  int16_t* q = values.data();
  if (c == 1) {
    OnGrid(run.values, s, channel_spans[0].middle, q);
  } else {
    std::vector<double> channel(n);
    std::vector<int16_t> grid(n);
    for (size_t k = 0; k < c; ++k) {
      for (size_t i = 0; i < n; ++i) channel[i] = run.values[i * c + k];
      OnGrid(channel, s, channel_spans[k].middle, grid.data());
      for (size_t i = 0; i < n; ++i) q[i * c + k] = grid[i];
    }
  }
  const int16_t* qt = times.data();
  OnGrid(run.times, time_scale, time_span.middle, times.data());
  std::vector<int32_t> cost(n, lambda);
  for (size_t i = 1; i < n; ++i) cost[i] += std::abs(qt[i] - qt[i - 1]);
  for (size_t i = c; i < n * c; ++i) cost[i / c] += std::abs(q[i] - q[i - c]);
  int largest = 0;
  for (size_t i = 1; i < n; ++i) largest = std::max(largest, cost[i]);
  for (size_t i = 1; i < n; ++i) {
    dels[i] = static_cast<int16_t>(std::min(cost[i], int32_t{std::numeric_limits<int16_t>::max()}));
  }
  return largest;
}

}  // namespace

QuantizedPair QuantizePair(const Series& a, const Series& b, const TwedParams& params) {
  QuantizedPair pair;
  const size_t c = a.num_channels();
  pair.channels = c;
  std::vector<Span> channel_spans(c);
  double widest = 0.0;
  for (size_t k = 0; k < c; ++k) {
    double lo = a.value(0, k);
    double hi = lo;
    for (const Series* run : {&a, &b}) {
      for (size_t i = 0; i < run->samples(); ++i) {
        lo = std::min(lo, run->value(i, k));
        hi = std::max(hi, run->value(i, k));
      }
    }
    channel_spans[k] = SpanOf(lo, hi);
    widest = std::max(widest, channel_spans[k].half);
  }
  const Span time_span =
      SpanOf(std::min(a.times.front(), b.times.front()), std::max(a.times.back(), b.times.back()));
  const double time_half = params.nu * time_span.half;
  const double extent = std::max(widest, time_half);
  if (!std::isfinite(extent) || !std::isfinite(params.lambda)) return pair;
  // The finest grid that keeps every value and time on it, coarsened until scale * lambda is an
  // integer (what the grid loses to that is below 1 / (scale * lambda) of its resolution) and then
  // by halves until the deletion costs fit; its products round, which the slack per term covers
  // (the proof).
  double s = extent > 0.0 ? kGridHalf / extent * (1.0 - 0x1p-40) : kMaxScale;
  if (params.lambda > 0.0) s = std::min(s, kQuantizedDeletionLimit / params.lambda * 0.5);
  for (s = std::min(s, kMaxScale); s >= kMinScale; s *= 0.5) {
    const double lambda_units = std::floor(s * params.lambda);
    if (lambda_units >= 1.0) s = lambda_units / params.lambda;
    const int lambda = static_cast<int>(lambda_units);
    // Below the normal range the time terms are left out, which only lowers every cost.
    double time_scale = s * params.nu;
    if (!std::isnormal(time_scale)) time_scale = 0.0;
    const int a_largest = QuantizeRun(a, channel_spans, time_span, s, time_scale, lambda,
                                      pair.a_values, pair.a_times, pair.a_dels);
    const int b_largest = QuantizeRun(b, channel_spans, time_span, s, time_scale, lambda,
                                      pair.b_values, pair.b_times, pair.b_dels);
    if (a_largest + b_largest + lambda > kQuantizedDeletionLimit) continue;
    pair.scale = s;
    pair.lambda = lambda;
    const double rounded = static_cast<double>(c) + (params.nu > 0.0 ? 1.0 : 0.0);
    pair.rounding_per_term = rounded * kTermSlack;
    return pair;
  }
  QuantizedPair unfit;
  unfit.channels = c;
  return unfit;
}

}  // namespace wasserwarp::twed_internal
#endif  // HWY_ONCE
