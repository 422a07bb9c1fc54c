// Pairs of runs on which a lower bound on TWED computed at reduced precision could go wrong: the
// cases the single-precision and 16-bit bounds are tested on (twed_single_test.cc,
// twed_quantized_test.cc).

#ifndef WASSERWARP_TESTS_ADVERSARIAL_CASES_H_
#define WASSERWARP_TESTS_ADVERSARIAL_CASES_H_

#include <cstddef>
#include <random>
#include <utility>

#include "random_runs.h"
#include "wasserwarp/series.h"
#include "wasserwarp/twed.h"

namespace wasserwarp::test_data {

// The kinds AdversarialCase draws from.
inline constexpr int kAdversarialKinds = 10;

// One case of `kind`: values and times far from 0 that float cannot hold exactly, near-copies
// whose TWED is mostly rounding, identical runs (TWED 0), runs of one sample, values whose squares
// leave float's range above and below, rows far from the columns they meet, values beyond float's
// range, runs that jump between extremes at every sample (deletion costs as large as the value
// range, which a 16-bit grid must coarsen to hold), and constant runs. Lengths 1 to 300, 1 to 4
// channels, nu and lambda 0, small or large.
inline TwedCase AdversarialCase(std::mt19937_64& rng, int kind) {
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  const size_t d = 1 + rng() % 4;
  const double p = d == 1 ? (rng() % 2 == 0 ? 1.0 : 3.0) : (rng() % 2 == 0 ? 1.0 : 2.0);
  const double nu = rng() % 5 == 0 ? 0.0 : rng() % 3 == 0 ? 1.0 : 0.001 * unit(rng);
  const double lambda = rng() % 2 == 0 ? 0.0 : rng() % 4 == 0 ? 1e3 * unit(rng) : unit(rng);
  const TwedParams params = MakeTwedParams(nu, lambda, p);
  const size_t n = rng() % 5 == 0 ? 1 : 1 + rng() % 300;
  const size_t m = rng() % 5 == 0 ? 1 : 1 + rng() % 300;
  Sampling sampling{.min_gap = 0.001, .max_gap = 0.02, .start_time = 0.0};
  if (kind == 1) sampling.start_time = 1e6 * unit(rng);
  Series a = RandomWalkRun(rng, "a", n, d, sampling);
  Series b = RandomWalkRun(rng, "b", m, d, sampling);
  switch (kind) {
    case 0:  // far from 0 in value: float keeps 7 digits of 1e5 + noise
      for (double& x : a.values) x = 1e5 + 1e-3 * x;
      for (double& x : b.values) x = 1e5 + 1e-3 * x;
      break;
    case 2:  // a near-copy: every sample within 1e-9
      b = a;
      for (double& x : b.values) x += 1e-9 * (unit(rng) - 0.5);
      break;
    case 3:  // identical runs
      b = a;
      break;
    case 4:  // squares and sums beyond float's range
      for (double& x : a.values) x *= 1e28;
      for (double& x : b.values) x *= 1e28;
      break;
    case 6:  // values near 0 whose squared differences are subnormal in float
      for (double& x : a.values) x *= 1e-19;
      for (double& x : b.values) x *= 1e-19;
      break;
    case 5:  // the row far from its columns in time and value
      for (double& t : b.times) t += 1e5;
      for (double& x : b.values) x += 1e7;
      break;
    case 8:  // every sample at the other extreme of the range
      for (size_t i = 0; i < a.values.size(); ++i) a.values[i] = (i / d) % 2 == 0 ? 50.0 : -50.0;
      for (size_t i = 0; i < b.values.size(); ++i) b.values[i] = (i / d) % 2 == 0 ? -50.0 : 50.0;
      break;
    case 9:  // constant runs
      for (double& x : a.values) x = 3.0;
      for (double& x : b.values) x = 3.0;
      break;
    default:  // beyond the single range
      for (double& x : a.values) x *= 1e40;
      break;
  }
  return {std::move(a), std::move(b), params};
}

}  // namespace wasserwarp::test_data

#endif  // WASSERWARP_TESTS_ADVERSARIAL_CASES_H_
