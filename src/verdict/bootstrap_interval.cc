#include "verdict/bootstrap_interval.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <utility>
#include <vector>

#include "verdict/resampling_summary.h"

namespace wasserwarp::resampling {

double NormalCdf(double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); }

double NormalQuantile(double p) {
  // Bisection on the distribution function: 128 halvings of [-40, 40] reach the spacing of
  // doubles, and Phi is monotone, so the result is as exact as NormalCdf.
  double lo = -40.0;
  double hi = 40.0;
  for (int step = 0; step < 128 && hi - lo > 0.0; ++step) {
    const double mid = 0.5 * (lo + hi);
    if (mid == lo || mid == hi) break;
    (NormalCdf(mid) < p ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

double JackknifeAcceleration(const std::vector<std::vector<double>>& leave_one_out) {
  double cubes = 0.0;
  double squares = 0.0;
  for (const std::vector<double>& group : leave_one_out) {
    if (group.size() < 2) continue;
    const double n = static_cast<double>(group.size());
    double mean = 0.0;
    for (double value : group) mean += value;
    mean /= n;
    for (double value : group) {
      const double u = (n - 1.0) * (mean - value);
      cubes += u * u * u / (n * n * n);
      squares += u * u / (n * n);
    }
  }
  return squares > 0.0 ? cubes / (6.0 * std::pow(squares, 1.5)) : 0.0;
}

BootstrapInterval BcaInterval(double estimate, std::vector<double> resamples, double acceleration,
                              double confidence) {
  std::sort(resamples.begin(), resamples.end());
  const double count = static_cast<double>(resamples.size());
  const auto below = static_cast<double>(
      std::lower_bound(resamples.begin(), resamples.end(), estimate) - resamples.begin());
  const auto ties =
      static_cast<double>(std::upper_bound(resamples.begin(), resamples.end(), estimate) -
                          resamples.begin()) -
      below;
  // Half a resample from either end, so that z0 stays finite when every resample falls on one
  // side of the estimate.
  const double share = std::clamp((below + 0.5 * ties) / count, 0.5 / count, 1.0 - 0.5 / count);
  BootstrapInterval interval;
  interval.bias_correction = NormalQuantile(share);
  interval.acceleration = acceleration;
  const auto level = [&](double tail) {
    const double z = interval.bias_correction + NormalQuantile(tail);
    const double stretch = 1.0 - acceleration * z;
    // Where a z reaches 1 the adjusted level has run off to 0 or 1; beyond, the formula
    // would turn back.
    if (stretch <= 0.0) return z > 0.0 ? 1.0 : 0.0;
    return NormalCdf(interval.bias_correction + z / stretch);
  };
  const double tail = (1.0 - confidence) / 2.0;
  interval.lo = Quantile(resamples, level(tail));
  interval.hi = Quantile(resamples, level(1.0 - tail));
  return interval;
}

}  // namespace wasserwarp::resampling
