// Each pair of the 16-bit bound on its common grid (QuantizePair of twed_quantized.h): the grid's
// scale, and the runs' values, times and deletion costs on it. The rounding onto the grid runs in
// SIMD lanes, compiled once per target by Highway's foreach_target.h (which re-includes this
// file) and picked at run time, as the lazy transport puts every run on a grid once per pair.

#ifndef HWY_DISABLED_TARGETS
#define HWY_DISABLED_TARGETS (HWY_SSSE3 | HWY_SSE4)
#endif

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <limits>
#include <random>
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
                double s, double time_scale, int lambda, bool l2, std::vector<int16_t>& values,
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
  if (l2) {
    for (size_t i = 1; i < n; ++i) cost[i] += QuantizedCost(q + i * c, q + (i - 1) * c, c, true);
  } else {
    for (size_t i = c; i < n * c; ++i) cost[i / c] += std::abs(q[i] - q[i - c]);
  }
  int largest = 0;
  for (size_t i = 1; i < n; ++i) largest = std::max(largest, cost[i]);
  for (size_t i = 1; i < n; ++i) {
    dels[i] = static_cast<int16_t>(std::min(cost[i], int32_t{std::numeric_limits<int16_t>::max()}));
  }
  return largest;
}

}  // namespace

namespace {

// The weights' squares, in units of 2^-32: at most 2^32 for a lower bound on the L2 norm.
uint64_t SquaresOf(std::span<const uint16_t> w) {
  uint64_t sum = 0;
  for (uint16_t x : w) sum += uint64_t{x} * x;
  return sum;
}

// 2^16 / sqrt(k), rounded down exactly: the weight of k equal terms.
uint16_t EqualWeight(size_t k) {
  constexpr uint64_t kOne = uint64_t{1} << 32;
  uint64_t f = std::min<uint64_t>(
      0xffff, static_cast<uint64_t>(std::sqrt(static_cast<double>(kOne) / static_cast<double>(k))));
  while (f * f * k > kOne) --f;
  return static_cast<uint16_t>(f);
}

// QuantizedCost of the differences v (each |x_k - y_k|, at most kQuantizedSortedChannels of them
// where w has sorted weights), reordering v.
int32_t L2CostOf(std::span<int32_t> v, const QuantizedL2Weights& w) {
  const auto times = [](int32_t x, uint16_t weight) {
    return static_cast<int32_t>((static_cast<uint32_t>(x) * weight) >> 16);
  };
  std::sort(v.begin(), v.end(), std::greater<>());
  int32_t sum = 0;
  int32_t weighted = 0;
  for (size_t k = 0; k < v.size(); ++k) {
    sum += times(v[k], w.all);
    if (k < kQuantizedSortedChannels) weighted += times(v[k], w.sorted[k]);
  }
  const int32_t pair = v.size() < 2 ? 0 : times(v[0], w.pair) + times(v[1], w.pair);
  return std::max({v.empty() ? 0 : v[0], sum, pair, weighted});
}

// The mean of QuantizedCost's share of the L2 norm over differences of no preferred direction:
// 4096 of them with Gaussian components of deviation 1000 grid units, from a fixed seed (raw
// std::mt19937_64 output and Box-Muller, so the same on every platform).
double MeanShare(size_t d, const QuantizedL2Weights& w) {
  std::mt19937_64 rng(d);
  const auto uniform = [&] { return static_cast<double>(rng() >> 11) * 0x1p-53; };
  constexpr int kDraws = 4096;
  std::vector<int32_t> v(d);
  double share = 0.0;
  for (int draw = 0; draw < kDraws; ++draw) {
    double squares = 0.0;
    for (int32_t& x : v) {
      const double g =
          std::sqrt(-2.0 * std::log(1.0 - uniform())) * std::cos(6.283185307179586 * uniform());
      x = static_cast<int32_t>(std::min(16383.0, std::abs(1000.0 * g)));
      squares += static_cast<double>(x) * x;
    }
    if (squares > 0.0) share += L2CostOf(v, w) / std::sqrt(squares);
  }
  return share / kDraws;
}

QuantizedL2Weights ComputeL2Weights(size_t d) {
  QuantizedL2Weights w;
  w.all = EqualWeight(d);
  w.pair = EqualWeight(2);
  if (d <= kQuantizedSortedChannels) {
    double norm = 0.0;
    for (size_t k = 0; k < d; ++k) norm += std::ldexp(1.0, -2 * static_cast<int>(k));
    for (size_t k = 0; k < d; ++k) {
      w.sorted[k] = static_cast<uint16_t>(std::min(
          65535.0, std::floor(65536.0 * std::ldexp(1.0, -static_cast<int>(k)) / std::sqrt(norm))));
    }
    // Rounding down leaves the squares at most 2^32; this only makes sure of it.
    while (SquaresOf(w.sorted) > (uint64_t{1} << 32)) --w.sorted[0];
  }
  return w;
}

}  // namespace

QuantizedL2Weights QuantizedL2WeightsOf(size_t d) {
  // Kept for the usual channel counts, as QuantizedCost needs them per sample.
  constexpr size_t kKept = 64;
  static const std::array<QuantizedL2Weights, kKept> kept = [] {
    std::array<QuantizedL2Weights, kKept> weights{};
    for (size_t k = 2; k < kKept; ++k) weights[k] = ComputeL2Weights(k);
    return weights;
  }();
  return d < kKept ? kept[d] : ComputeL2Weights(d);
}

double QuantizedL2MeanShare(size_t d) {
  // Computed once per channel count that is asked for (0 until then); two threads that both
  // compute one store the same number.
  constexpr size_t kKept = 64;
  static std::array<std::atomic<double>, kKept> kept{};
  if (d >= kKept) return MeanShare(d, QuantizedL2WeightsOf(d));
  double share = kept[d].load(std::memory_order_relaxed);
  if (share == 0.0) {
    share = MeanShare(d, QuantizedL2WeightsOf(d));
    kept[d].store(share, std::memory_order_relaxed);
  }
  return share;
}

int32_t QuantizedCost(const int16_t* x, const int16_t* y, size_t channels, bool l2) {
  std::array<int32_t, kQuantizedSortedChannels> small;
  std::vector<int32_t> large;
  std::span<int32_t> v;
  if (channels <= kQuantizedSortedChannels) {
    v = std::span(small.data(), channels);
  } else {
    large.resize(channels);
    v = large;
  }
  for (size_t k = 0; k < channels; ++k) v[k] = std::abs(int32_t{x[k]} - int32_t{y[k]});
  if (!l2) {
    int32_t sum = 0;
    for (int32_t d : v) sum += d;
    return sum;
  }
  return L2CostOf(v, QuantizedL2WeightsOf(channels));
}

QuantizedPair QuantizePair(const Series& a, const Series& b, const TwedParams& params) {
  QuantizedPair pair;
  const size_t c = a.num_channels();
  pair.channels = c;
  pair.l2 = c > 1 && params.p == 2.0;
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
    const int a_largest = QuantizeRun(a, channel_spans, time_span, s, time_scale, lambda, pair.l2,
                                      pair.a_values, pair.a_times, pair.a_dels);
    const int b_largest = QuantizeRun(b, channel_spans, time_span, s, time_scale, lambda, pair.l2,
                                      pair.b_values, pair.b_times, pair.b_dels);
    if (a_largest + b_largest + lambda + QuantizedTriangleSlack(c, pair.l2) >
        kQuantizedDeletionLimit) {
      continue;
    }
    pair.scale = s;
    pair.lambda = lambda;
    // Each channel's difference is off by at most 1 on the grid: c of them under L1, their L2
    // norm sqrt(c) (rounded up) under L2, which QuantizedCost only lowers.
    const double value_rounding =
        pair.l2 ? std::sqrt(static_cast<double>(c)) * (1.0 + 0x1p-50) : static_cast<double>(c);
    const double rounded = value_rounding + (params.nu > 0.0 ? 1.0 : 0.0);
    pair.rounding_per_term = rounded * kTermSlack;
    return pair;
  }
  QuantizedPair unfit;
  unfit.channels = c;
  unfit.l2 = pair.l2;
  return unfit;
}

}  // namespace wasserwarp::twed_internal
#endif  // HWY_ONCE
