// The scores of ISO/TS 18571 on two curves already on one grid. The constants are the
// standard's; where it leaves a choice open (ties, undefined correlations, a silent reference)
// the choice is made here once and stated where it is made, so that every build gives the same
// numbers.
#include "wasserwarp/iso18571.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <string_view>
#include <vector>

namespace wasserwarp {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInfinity = std::numeric_limits<double>::infinity();

// Corridor: inner and outer half-widths as shares of max|T|, and the exponent between them.
constexpr double kInnerShare = 0.05;
constexpr double kOuterShare = 0.5;
constexpr double kCorridorExponent = 2.0;
// Phase: the largest shift tried, as a share of n, and the score's exponent.
constexpr double kMaxShiftShare = 0.2;
constexpr double kPhaseExponent = 1.0;
// Magnitude: the DTW band's half-width as a share of n, the error that scores 0, the exponent.
constexpr double kBandShare = 0.1;
constexpr double kMaxMagnitudeError = 0.5;
constexpr double kMagnitudeExponent = 1.0;
// Slope: the error that scores 0, and the smoothing window's half-width.
constexpr double kMaxSlopeError = 2.0;
constexpr size_t kSmoothingHalfWidth = 4;
// The weights of Z, EP, EM and ES in R.
constexpr double kCorridorWeight = 0.4;
constexpr double kPhaseWeight = 0.2;
constexpr double kMagnitudeWeight = 0.2;
constexpr double kSlopeWeight = 0.2;

double CorridorScore(std::span<const double> test, std::span<const double> cae) {
  double t_norm = 0.0;
  for (const double t : test) t_norm = std::max(t_norm, std::abs(t));
  const double inner = kInnerShare * t_norm;
  const double outer = kOuterShare * t_norm;
  double sum = 0.0;
  for (size_t i = 0; i < test.size(); ++i) {
    const double deviation = std::abs(cae[i] - test[i]);
    if (t_norm == 0.0) {
      // A silent reference has no corridor: only an exact match scores.
      sum += deviation == 0.0 ? 1.0 : 0.0;
    } else if (deviation < inner) {
      sum += 1.0;
    } else if (deviation <= outer) {
      sum += std::pow((outer - deviation) / (outer - inner), kCorridorExponent);
    }
  }
  return sum / static_cast<double>(test.size());
}

// Pearson's correlation of two equally long parts; -infinity where either is constant, so
// that any defined correlation beats it and a constant curve keeps the shift 0.
double Correlation(std::span<const double> a, std::span<const double> b) {
  const double count = static_cast<double>(a.size());
  double mean_a = 0.0;
  double mean_b = 0.0;
  for (size_t i = 0; i < a.size(); ++i) {
    mean_a += a[i];
    mean_b += b[i];
  }
  mean_a /= count;
  mean_b /= count;
  double ab = 0.0;
  double aa = 0.0;
  double bb = 0.0;
  for (size_t i = 0; i < a.size(); ++i) {
    ab += (a[i] - mean_a) * (b[i] - mean_b);
    aa += (a[i] - mean_a) * (a[i] - mean_a);
    bb += (b[i] - mean_b) * (b[i] - mean_b);
  }
  if (!(aa > 0.0) || !(bb > 0.0)) return -kInfinity;
  return ab / std::sqrt(aa * bb);
}

// The curves' parts that the shift compares: C[k:] and T[:n-k] for a positive (late
// simulation) shift, C[:n-k] and T[k:] for a negative one.
struct Shifted {
  std::span<const double> test;
  std::span<const double> cae;
};
Shifted Shift(std::span<const double> test, std::span<const double> cae, int64_t shift) {
  const size_t k = static_cast<size_t>(shift < 0 ? -shift : shift);
  const size_t kept = test.size() - k;
  if (shift >= 0) return {test.subspan(0, kept), cae.subspan(k, kept)};
  return {test.subspan(k, kept), cae.subspan(0, kept)};
}

int64_t BestShift(std::span<const double> test, std::span<const double> cae) {
  const auto largest = static_cast<int64_t>(std::floor(kMaxShiftShare * test.size()));
  int64_t best = 0;
  double best_correlation = Correlation(test, cae);
  for (int64_t k = 1; k <= largest; ++k) {
    for (const int64_t shift : {k, -k}) {
      const Shifted parts = Shift(test, cae, shift);
      const double correlation = Correlation(parts.test, parts.cae);
      if (correlation > best_correlation) {
        best_correlation = correlation;
        best = shift;
      }
    }
  }
  return best;
}

double PhaseScore(int64_t shift, size_t n) {
  const double k = static_cast<double>(shift < 0 ? -shift : shift);
  const double limit = kMaxShiftShare * static_cast<double>(n);
  if (k == 0.0) return 1.0;
  if (k >= limit) return 0.0;
  return std::pow((limit - k) / limit, kPhaseExponent);
}

// sum |a - b| / sum |b|: 0 when both sums are 0, +infinity when only the reference's is.
double RelativeError(double difference, double reference) {
  if (reference > 0.0) return difference / reference;
  return difference > 0.0 ? kInfinity : 0.0;
}

// Where the accumulated cost of a DTW cell came from.
enum Step : uint8_t { kFromUp, kFromLeft, kFromDiagonal, kStart };

// sum |C_w - T_w| / sum |T_w| along the banded DTW path (squared local cost) of `cae` (rows
// i) against `test` (columns j). Only a row's band is held, with the step each cell took;
// the forward pass's choice of predecessor is the backtrack's (ties go to (i-1, j), then
// (i, j-1), then (i-1, j-1)), since both take the smallest of the same three accumulated costs.
double WarpedMagnitudeError(std::span<const double> test, std::span<const double> cae,
                            size_t half_width) {
  const size_t m = test.size();
  const size_t width = 2 * half_width - 1;  // columns j = i - (w - 1) .. i + (w - 1)
  std::vector<uint8_t> steps(m * width, kStart);
  std::vector<double> previous(width, kInfinity);
  std::vector<double> current(width, kInfinity);
  // Column j of row i sits at slot j - i + w - 1.
  const auto slot = [&](size_t i, size_t j) { return j + half_width - 1 - i; };
  for (size_t i = 0; i < m; ++i) {
    std::fill(current.begin(), current.end(), kInfinity);
    const size_t j_first = i + 1 > half_width ? i + 1 - half_width : 0;
    const size_t j_last = std::min(m - 1, i + half_width - 1);
    for (size_t j = j_first; j <= j_last; ++j) {
      const double difference = cae[i] - test[j];
      const double cost = difference * difference;
      const size_t s = slot(i, j);
      if (i == 0 && j == 0) {
        current[s] = cost;
        continue;
      }
      // Slots of the predecessors: (i-1, j) is slot s + 1 of the previous row, (i, j-1) slot
      // s - 1 of this one, (i-1, j-1) slot s of the previous row.
      const double up = i > 0 && s + 1 < width ? previous[s + 1] : kInfinity;
      const double left = j > 0 && s > 0 ? current[s - 1] : kInfinity;
      const double diagonal = i > 0 && j > 0 ? previous[s] : kInfinity;
      Step step = kFromUp;
      double best = up;
      if (left < best) {
        best = left;
        step = kFromLeft;
      }
      if (diagonal < best) {
        best = diagonal;
        step = kFromDiagonal;
      }
      current[s] = cost + best;
      steps[i * width + s] = step;
    }
    std::swap(previous, current);
  }
  double difference = 0.0;
  double reference = 0.0;
  size_t i = m - 1;
  size_t j = m - 1;
  while (true) {
    difference += std::abs(cae[i] - test[j]);
    reference += std::abs(test[j]);
    const uint8_t step = steps[i * width + slot(i, j)];
    if (step == kStart) break;
    if (step != kFromLeft) --i;
    if (step != kFromUp) --j;
  }
  return RelativeError(difference, reference);
}

// numpy.gradient with unit spacing (the spacing cancels in the slope error), then a centred
// moving average over up to 9 points, narrowed to 7, 5, 3 and 1 points at the ends.
std::vector<double> SmoothedSlope(std::span<const double> curve) {
  const size_t m = curve.size();
  std::vector<double> slope(m);
  slope[0] = curve[1] - curve[0];
  slope[m - 1] = curve[m - 1] - curve[m - 2];
  for (size_t i = 1; i + 1 < m; ++i) slope[i] = 0.5 * (curve[i + 1] - curve[i - 1]);
  std::vector<double> smoothed(m);
  for (size_t i = 0; i < m; ++i) {
    const size_t half = std::min({kSmoothingHalfWidth, i, m - 1 - i});
    double sum = 0.0;
    for (size_t k = i - half; k <= i + half; ++k) sum += slope[k];
    smoothed[i] = sum / static_cast<double>(2 * half + 1);
  }
  return smoothed;
}

double SlopeScore(std::span<const double> test, std::span<const double> cae) {
  const std::vector<double> test_slope = SmoothedSlope(test);
  const std::vector<double> cae_slope = SmoothedSlope(cae);
  double difference = 0.0;
  double reference = 0.0;
  for (size_t i = 0; i < test_slope.size(); ++i) {
    difference += std::abs(cae_slope[i] - test_slope[i]);
    reference += std::abs(test_slope[i]);
  }
  const double error = RelativeError(difference, reference);
  return error >= kMaxSlopeError ? 0.0 : (kMaxSlopeError - error) / kMaxSlopeError;
}

}  // namespace

std::string_view Iso18571Grade(double r) {
  if (std::isnan(r)) return "";
  if (r > 0.94) return "excellent";
  if (r > 0.80) return "good";
  if (r > 0.58) return "fair";
  return "poor";
}

uint64_t Iso18571DtwCells(uint64_t n) {
  const auto half_width =
      std::max<uint64_t>(1, static_cast<uint64_t>(std::ceil(kBandShare * static_cast<double>(n))));
  return n * (2 * half_width - 1);
}

Iso18571Rating RateCurves(std::span<const double> test, std::span<const double> cae, double step) {
  const size_t n = test.size();
  Iso18571Rating rating{.samples = n};
  if (n < kMinIso18571Samples) {
    rating.r = rating.z = rating.ep = rating.em = rating.es = rating.shift_seconds = kNaN;
    return rating;
  }
  rating.z = CorridorScore(test, cae);
  rating.shift_samples = BestShift(test, cae);
  rating.shift_seconds = static_cast<double>(rating.shift_samples) * step;
  rating.ep = PhaseScore(rating.shift_samples, n);
  const Shifted parts = Shift(test, cae, rating.shift_samples);
  // The band is the grid's n's, whatever the shift kept, so that the job's size is known
  // before any shift is.
  const auto half_width =
      static_cast<size_t>(std::max(1.0, std::ceil(kBandShare * static_cast<double>(n))));
  const double magnitude_error = WarpedMagnitudeError(parts.test, parts.cae, half_width);
  rating.em = magnitude_error > kMaxMagnitudeError
                  ? 0.0
                  : std::pow((kMaxMagnitudeError - magnitude_error) / kMaxMagnitudeError,
                             kMagnitudeExponent);
  rating.es = SlopeScore(parts.test, parts.cae);
  rating.r = kCorridorWeight * rating.z + kPhaseWeight * rating.ep + kMagnitudeWeight * rating.em +
             kSlopeWeight * rating.es;
  return rating;
}

}  // namespace wasserwarp
