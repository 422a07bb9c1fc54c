// Order statistics of the verdict's resampled distances.

#ifndef WASSERWARP_SRC_VERDICT_RESAMPLING_SUMMARY_H_
#define WASSERWARP_SRC_VERDICT_RESAMPLING_SUMMARY_H_

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

namespace wasserwarp::resampling {

// Hyndman and Fan's type 7, the default of R and NumPy: linear between the
// order statistics around p (n - 1) of the sorted, non-empty `sorted`.
inline double Quantile(const std::vector<double>& sorted, double p) {
  const double position = p * static_cast<double>(sorted.size() - 1);
  const auto below = static_cast<size_t>(std::floor(position));
  const size_t above = std::min(below + 1, sorted.size() - 1);
  // Equal neighbours, infinite ones included, need no interpolation (inf - inf is NaN).
  if (sorted[above] == sorted[below]) return sorted[below];
  return sorted[below] + (position - static_cast<double>(below)) * (sorted[above] - sorted[below]);
}

struct Summary {
  double median = 0.0;
  double p05 = 0.0;
  double p95 = 0.0;
};

inline Summary Summarise(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return {.median = Quantile(values, 0.5),
          .p05 = Quantile(values, 0.05),
          .p95 = Quantile(values, 0.95)};
}

}  // namespace wasserwarp::resampling

#endif  // WASSERWARP_SRC_VERDICT_RESAMPLING_SUMMARY_H_
