#include "wasserwarp/pair_metrics.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <numbers>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "metrics/fft.h"
#include "metrics/interpolation.h"
#include "series/sampling_rate.h"

namespace wasserwarp {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// The lag search resamples both runs on one grid. Beyond this many points in
// all, the step grows instead, so that a long simulated run against a finely
// sampled reference costs a fraction of a second rather than minutes and
// gigabytes (the transforms hold up to twice as many complex numbers).
constexpr int64_t kMaxLagGridPoints = int64_t{1} << 20;

// An overlap whose variance is below this share of its signal's overall
// variance is flat up to the rounding of the sums: its correlation is
// undefined, not whatever the rounding makes of it.
constexpr long double kFlatVarianceShare = 1e-10L;

// Both runs resampled on one uniform lattice origin + k * step, each over its
// own time range, so that whole-step shifts compare samples at equal times.
struct LagGrid {
  double step = 0.0;
  int64_t offset = 0;  // the simulated run's first lattice index minus the reference's
  std::vector<InterpolationPoint> sim;
  std::vector<InterpolationPoint> ref;
};

std::optional<LagGrid> MakeLagGrid(const Series& sim, const Series& ref) {
  double step = MedianStep(ref.times);
  const double sim_span = sim.times.back() - sim.times.front();
  const double ref_span = ref.times.back() - ref.times.front();
  step = std::max(step, (sim_span + ref_span) / static_cast<double>(kMaxLagGridPoints - 4));
  if (!(step > 0.0) || !std::isfinite(step)) return std::nullopt;
  const double origin = std::min(sim.times.front(), ref.times.front());
  const auto first_index = [&](const Series& run) {
    return static_cast<int64_t>(std::ceil((run.times.front() - origin) / step));
  };
  const auto count = [&](const Series& run) {
    const auto last = static_cast<int64_t>(std::floor((run.times.back() - origin) / step));
    return std::max<int64_t>(0, last - first_index(run) + 1);
  };
  const int64_t sim_count = count(sim);
  const int64_t ref_count = count(ref);
  if (sim_count < 2 || ref_count < 2) return std::nullopt;
  const auto locate = [&](const Series& run, int64_t points) {
    const int64_t first = first_index(run);
    return Locate(run.times, static_cast<size_t>(points),
                  [&](size_t k) { return origin + static_cast<double>(first + k) * step; });
  };
  return LagGrid{.step = step,
                 .offset = first_index(sim) - first_index(ref),
                 .sim = locate(sim, sim_count),
                 .ref = locate(ref, ref_count)};
}

// Subtracts the mean; false when the signal is constant.
bool Center(std::vector<double>& signal) {
  const auto [lowest, highest] = std::minmax_element(signal.begin(), signal.end());
  if (*lowest == *highest) return false;
  long double sum = 0.0L;
  for (double x : signal) sum += x;
  const double mean = static_cast<double>(sum / signal.size());
  for (double& x : signal) x -= mean;
  return true;
}

// Running sums of x and x^2 in extended precision: the sums over an overlap
// are differences of two of them, and the variance subtracts further.
struct PrefixSums {
  std::vector<long double> sum{0.0L};
  std::vector<long double> sum_of_squares{0.0L};

  explicit PrefixSums(const std::vector<double>& signal) {
    sum.reserve(signal.size() + 1);
    sum_of_squares.reserve(signal.size() + 1);
    for (double x : signal) {
      sum.push_back(sum.back() + x);
      sum_of_squares.push_back(sum_of_squares.back() + static_cast<long double>(x) * x);
    }
  }
  long double Sum(size_t begin, size_t end) const { return sum[end] - sum[begin]; }
  long double SumOfSquares(size_t begin, size_t end) const {
    return sum_of_squares[end] - sum_of_squares[begin];
  }
  // n times the variance of signal[begin, end).
  long double ScaledVariance(size_t begin, size_t end) const {
    const long double s = Sum(begin, end);
    return SumOfSquares(begin, end) - s * s / static_cast<long double>(end - begin);
  }
};

// The index of the correlation peak to report: lag index + `lag_offset` is
// the lag in steps, and `overlap_share(index)` the share of the shorter
// signal compared there. The lags where the correlation is at least halfway
// from its lowest to its highest value form separate peaks; a periodic signal
// gives one per period, all about equally high, and rounding alone would
// choose among them. So each peak scores its highest correlation times the
// square root of its overlap share, which prefers the alignment comparing
// more of the runs unless another is clearly better correlated; within the
// chosen peak the highest correlation wins, so that its position is not
// biased. Ties go to the lag nearest zero; -1 when no lag is defined.
template <typename OverlapShare>
int64_t BestPeak(const std::vector<double>& correlation, int64_t lag_offset,
                 OverlapShare overlap_share) {
  double highest = -std::numeric_limits<double>::infinity();
  double lowest = std::numeric_limits<double>::infinity();
  for (double value : correlation) {
    if (std::isnan(value)) continue;
    highest = std::max(highest, value);
    lowest = std::min(lowest, value);
  }
  if (highest < lowest) return -1;
  const double level = 0.5 * (highest + lowest);
  const auto size = static_cast<int64_t>(correlation.size());
  int64_t best = -1;
  double best_score = 0.0;
  for (int64_t index = 0; index < size;) {
    // NaN compares false: undefined lags separate peaks too.
    if (!(correlation[index] >= level)) {
      ++index;
      continue;
    }
    int64_t peak = index;
    for (; index < size && correlation[index] >= level; ++index) {
      if (correlation[index] > correlation[peak]) peak = index;
    }
    const double score = correlation[peak] * std::sqrt(overlap_share(peak));
    if (best < 0 || score > best_score ||
        (score == best_score && std::abs(peak + lag_offset) < std::abs(best + lag_offset))) {
      best = peak;
      best_score = score;
    }
  }
  return best;
}

// The lag in seconds (positive: `sim` late) at the peak of the Pearson
// correlation of the overlapping parts of the two resampled signals, refined
// between steps. Each lag's correlation uses its overlap's own means and
// variances, so that a pure delay scores exactly 1 whatever the run ends cut
// off: correlating whole runs instead pulls the peak of a step response
// towards zero by tens of steps.
double EstimateLag(std::vector<double> sim, std::vector<double> ref, int64_t offset, double step) {
  if (!Center(sim) || !Center(ref)) return kNaN;
  const std::vector<double> products = CrossCorrelation(sim, ref);
  const PrefixSums sim_sums(sim);
  const PrefixSums ref_sums(ref);
  const auto ns = static_cast<int64_t>(sim.size());
  const auto nr = static_cast<int64_t>(ref.size());
  const int64_t min_overlap = std::max<int64_t>(2, (std::min(ns, nr) + 1) / 2);
  const long double sim_flat = kFlatVarianceShare * sim_sums.ScaledVariance(0, ns) / ns;
  const long double ref_flat = kFlatVarianceShare * ref_sums.ScaledVariance(0, nr) / nr;
  // correlation[d + nr - 1]: sim[i] against ref[i - d].
  std::vector<double> correlation(products.size(), kNaN);
  for (int64_t d = -(nr - 1); d < ns; ++d) {
    const int64_t sim_begin = std::max<int64_t>(0, d);
    const int64_t sim_end = std::min(ns, nr + d);
    const int64_t overlap = sim_end - sim_begin;
    if (overlap < min_overlap) continue;
    const long double sim_variance = sim_sums.ScaledVariance(sim_begin, sim_end);
    const long double ref_variance = ref_sums.ScaledVariance(sim_begin - d, sim_end - d);
    if (sim_variance <= sim_flat * overlap || ref_variance <= ref_flat * overlap) continue;
    const long double covariance =
        products[d + nr - 1] -
        sim_sums.Sum(sim_begin, sim_end) * ref_sums.Sum(sim_begin - d, sim_end - d) / overlap;
    correlation[d + nr - 1] =
        static_cast<double>(covariance / std::sqrt(sim_variance * ref_variance));
  }
  const int64_t best = BestPeak(correlation, offset - (nr - 1), [&](int64_t index) {
    const int64_t d = index - (nr - 1);
    return static_cast<double>(std::min(ns, nr + d) - std::max<int64_t>(0, d)) /
           static_cast<double>(std::min(ns, nr));
  });
  if (best < 0) return kNaN;
  double refinement = 0.0;
  if (best > 0 && best + 1 < static_cast<int64_t>(correlation.size())) {
    const double before = correlation[best - 1];
    const double peak = correlation[best];
    const double after = correlation[best + 1];
    const double curvature = before - 2.0 * peak + after;
    // The vertex of the parabola through the three points; NaN neighbours
    // (too short or flat overlaps) fail the comparison and leave whole steps.
    if (curvature < 0.0) refinement = std::clamp(0.5 * (before - after) / curvature, -0.5, 0.5);
  }
  const int64_t whole_steps = offset + best - (nr - 1);
  return (static_cast<double>(whole_steps) + refinement) * step;
}

ChannelMetrics Undefined(uint64_t samples) {
  return ChannelMetrics{.samples = samples,
                        .rmse = kNaN,
                        .theil_u = kNaN,
                        .q3 = kNaN,
                        .sprague_geers_m = kNaN,
                        .sprague_geers_p = kNaN,
                        .sprague_geers_c = kNaN,
                        .lag = kNaN};
}

// Every metric but the lag, of the computed `z` against the measured `y`.
ChannelMetrics RigidMetrics(const std::vector<double>& y, const std::vector<double>& z) {
  const auto n = static_cast<double>(y.size());
  double squared_error = 0.0;
  double y_squared = 0.0;
  double z_squared = 0.0;
  double q3 = 0.0;
  for (size_t k = 0; k < y.size(); ++k) {
    const double error = z[k] - y[k];
    squared_error += error * error;
    y_squared += y[k] * y[k];
    z_squared += z[k] * z[k];
    q3 += 1.0 / (1.0 + error * error);
  }
  ChannelMetrics metrics;
  metrics.samples = y.size();
  metrics.rmse = std::sqrt(squared_error / n);
  const double theil_denominator = std::sqrt(y_squared / n) + std::sqrt(z_squared / n);
  metrics.theil_u = theil_denominator == 0.0 ? 0.0 : metrics.rmse / theil_denominator;
  metrics.q3 = q3 / n;
  metrics.sprague_geers_m = y_squared > 0.0 ? std::sqrt(z_squared / y_squared) - 1.0 : kNaN;
  metrics.sprague_geers_p = kNaN;
  if (y_squared > 0.0 && z_squared > 0.0) {
    // The angle between the two vectors as 2 atan2(|u - v|, |u + v|) on the
    // unit vectors, equal to acos of the cosine but exact near 0 and pi,
    // where acos turns a cosine rounded to 1 - 1e-16 into an angle of 1e-8.
    const double y_norm = std::sqrt(y_squared);
    const double z_norm = std::sqrt(z_squared);
    double difference = 0.0;
    double sum = 0.0;
    for (size_t k = 0; k < y.size(); ++k) {
      const double u = z[k] / z_norm;
      const double v = y[k] / y_norm;
      difference += (u - v) * (u - v);
      sum += (u + v) * (u + v);
    }
    const double angle = 2.0 * std::atan2(std::sqrt(difference), std::sqrt(sum));
    metrics.sprague_geers_p = angle / std::numbers::pi;
  }
  metrics.sprague_geers_c = std::hypot(metrics.sprague_geers_m, metrics.sprague_geers_p);
  return metrics;
}

}  // namespace

std::vector<ChannelMetrics> CompareMatchedPair(const Series& sim, const Series& ref,
                                               const std::vector<double>& channel_divisors) {
  const size_t channels = ref.num_channels();
  if (sim.samples() == 0 || ref.samples() == 0) return std::vector(channels, Undefined(0));
  const double begin = std::max(sim.times.front(), ref.times.front());
  const double end = std::min(sim.times.back(), ref.times.back());
  const auto first = std::lower_bound(ref.times.begin(), ref.times.end(), begin);
  const auto last = std::upper_bound(ref.times.begin(), ref.times.end(), end);
  const uint64_t samples = first < last ? last - first : 0;
  if (samples < 2) return std::vector(channels, Undefined(samples));

  const size_t first_sample = first - ref.times.begin();
  const std::vector<InterpolationPoint> at_ref_times =
      Locate(sim.times, samples, [&](size_t k) { return ref.times[first_sample + k]; });
  const std::vector<InterpolationPoint> ref_samples = [&] {
    std::vector<InterpolationPoint> points(samples);
    for (size_t k = 0; k < samples; ++k) points[k].left = first_sample + k;
    return points;
  }();
  const std::optional<LagGrid> grid = MakeLagGrid(sim, ref);

  std::vector<ChannelMetrics> metrics;
  metrics.reserve(channels);
  for (size_t c = 0; c < channels; ++c) {
    const double divisor = channel_divisors.empty() ? 1.0 : channel_divisors[c];
    ChannelMetrics channel = RigidMetrics(Interpolate(ref, c, ref_samples, divisor),
                                          Interpolate(sim, c, at_ref_times, divisor));
    channel.lag = grid ? EstimateLag(Interpolate(sim, c, grid->sim, 1.0),
                                     Interpolate(ref, c, grid->ref, 1.0), grid->offset, grid->step)
                       : kNaN;
    metrics.push_back(channel);
  }
  return metrics;
}

std::vector<ChannelMetrics> PlanWeightedMetrics(const std::vector<PairMetrics>& pairs,
                                                const std::vector<PlanEntry>& plan,
                                                size_t channels) {
  static constexpr double ChannelMetrics::*kAveraged[] = {
      &ChannelMetrics::rmse,
      &ChannelMetrics::theil_u,
      &ChannelMetrics::q3,
      &ChannelMetrics::sprague_geers_m,
      &ChannelMetrics::sprague_geers_p,
      &ChannelMetrics::sprague_geers_c,
      &ChannelMetrics::lag,
  };
  constexpr size_t kCount = std::size(kAveraged);
  std::map<std::pair<int, int>, double> mass;
  for (const PlanEntry& entry : plan) mass[{entry.row, entry.col}] += entry.mass;

  std::vector<ChannelMetrics> average(channels);
  std::vector<double> weighted_sum(channels * kCount, 0.0);
  std::vector<double> weight(channels * kCount, 0.0);
  for (const PairMetrics& pair : pairs) {
    if (pair.channel < 0 || static_cast<size_t>(pair.channel) >= channels) continue;
    const auto found = mass.find({pair.sim, pair.ref});
    if (found == mass.end() || !(found->second > 0.0)) continue;
    const size_t c = pair.channel;
    average[c].samples += pair.metrics.samples;
    for (size_t k = 0; k < kCount; ++k) {
      const double value = pair.metrics.*kAveraged[k];
      if (std::isnan(value)) continue;
      weighted_sum[c * kCount + k] += found->second * value;
      weight[c * kCount + k] += found->second;
    }
  }
  for (size_t c = 0; c < channels; ++c) {
    for (size_t k = 0; k < kCount; ++k) {
      const double total = weight[c * kCount + k];
      average[c].*kAveraged[k] = total > 0.0 ? weighted_sum[c * kCount + k] / total : kNaN;
    }
  }
  return average;
}

}  // namespace wasserwarp
