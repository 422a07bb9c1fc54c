// The bias-corrected and accelerated (BCa) bootstrap interval (Efron 1987; Efron and
// Tibshirani 1993, ch. 14).

#ifndef WASSERWARP_SRC_VERDICT_BOOTSTRAP_INTERVAL_H_
#define WASSERWARP_SRC_VERDICT_BOOTSTRAP_INTERVAL_H_

#include <vector>

namespace wasserwarp::resampling {

// The standard normal distribution function and its inverse (p in (0, 1)).
double NormalCdf(double x);
double NormalQuantile(double p);

// The acceleration of an estimate from its leave-one-out values, one list for each
// independently drawn group of units (e.g. variant runs and reference runs), by the
// multi-sample jackknife: with U_gi = (n_g - 1) (mean_g - value_gi),
// a = sum_g sum_i U_gi^3 / n_g^3 / (6 (sum_g sum_i U_gi^2 / n_g^2)^(3/2)); 0 when nothing varies.
double JackknifeAcceleration(const std::vector<std::vector<double>>& leave_one_out);

struct BootstrapInterval {
  double lo = 0.0;
  double hi = 0.0;
  double bias_correction = 0.0;  // z0
  double acceleration = 0.0;     // a
};

// The BCa interval at `confidence` for `estimate` from its non-empty `resamples`: the
// percentile interval's levels moved by a bias correction z0, from where the estimate falls
// among its resamples, and an acceleration a, from the jackknife's skewness. It corrects a
// percentile interval whose centre drifts from the estimate (compare's, when one variant is
// off) and is second-order accurate.
BootstrapInterval BcaInterval(double estimate, std::vector<double> resamples, double acceleration,
                              double confidence);

}  // namespace wasserwarp::resampling

#endif  // WASSERWARP_SRC_VERDICT_BOOTSTRAP_INTERVAL_H_
