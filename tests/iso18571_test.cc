// The ISO/TS 18571 rating against a second implementation written here from the definition
// in issue 42 (full DTW matrix, backtracking on the accumulated costs themselves, the slope's
// end rules spelled out), on generated pairs; and the properties the issue names.
#include "wasserwarp/iso18571.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <numbers>
#include <random>
#include <string>
#include <vector>

#include "make_run.h"

namespace wasserwarp {
namespace {

using test_data::MakeRun;

constexpr double kInf = std::numeric_limits<double>::infinity();

struct Expected {
  double z, ep, em, es, r;
  int64_t shift;
};

double Pearson(const std::vector<double>& x, const std::vector<double>& y) {
  const double n = static_cast<double>(x.size());
  double sx = 0, sy = 0, sxx = 0, syy = 0, sxy = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    sx += x[i];
    sy += y[i];
  }
  const double mx = sx / n, my = sy / n;
  for (size_t i = 0; i < x.size(); ++i) {
    sxx += (x[i] - mx) * (x[i] - mx);
    syy += (y[i] - my) * (y[i] - my);
    sxy += (x[i] - mx) * (y[i] - my);
  }
  // A constant part has no correlation: any defined one is larger.
  if (sxx == 0 || syy == 0) return -kInf;
  return sxy / std::sqrt(sxx * syy);
}

std::vector<double> Slice(const std::vector<double>& v, size_t from, size_t count) {
  return std::vector<double>(v.begin() + from, v.begin() + from + count);
}

std::vector<double> Derivative(const std::vector<double>& f) {
  const size_t m = f.size();
  std::vector<double> d(m);
  for (size_t i = 0; i < m; ++i) {
    if (i == 0) {
      d[i] = f[1] - f[0];
    } else if (i == m - 1) {
      d[i] = f[m - 1] - f[m - 2];
    } else {
      d[i] = (f[i + 1] - f[i - 1]) / 2;
    }
  }
  // The 9-point moving average; the first and last four samples average the first (last)
  // 1, 3, 5 and 7 points.
  std::vector<double> s(m);
  for (size_t i = 0; i < m; ++i) {
    size_t lo, hi;
    if (i < 4) {
      lo = 0;
      hi = 2 * i;
    } else if (i + 4 >= m) {
      lo = m - 1 - 2 * (m - 1 - i);
      hi = m - 1;
    } else {
      lo = i - 4;
      hi = i + 4;
    }
    double sum = 0;
    for (size_t k = lo; k <= hi; ++k) sum += d[k];
    s[i] = sum / static_cast<double>(hi - lo + 1);
  }
  return s;
}

double Ratio(double num, double den) {
  if (den == 0) return num == 0 ? 0 : kInf;
  return num / den;
}

Expected Reference(const std::vector<double>& T, const std::vector<double>& C) {
  const size_t n = T.size();
  Expected out{};
  double tnorm = 0;
  for (double t : T) tnorm = std::max(tnorm, std::fabs(t));
  double z = 0;
  for (size_t i = 0; i < n; ++i) {
    const double d = std::fabs(C[i] - T[i]);
    if (tnorm == 0) {
      z += d == 0 ? 1 : 0;
      continue;
    }
    const double a = 0.05 * tnorm, b = 0.5 * tnorm;
    z += d < a ? 1 : d > b ? 0 : std::pow((b - d) / (b - a), 2);
  }
  out.z = z / n;

  const size_t K = static_cast<size_t>(std::floor(0.2 * n));
  double best = Pearson(T, C);
  int64_t shift = 0;
  for (size_t k = 1; k <= K; ++k) {
    const double ahead = Pearson(Slice(C, k, n - k), Slice(T, 0, n - k));
    if (ahead > best) best = ahead, shift = static_cast<int64_t>(k);
    const double behind = Pearson(Slice(C, 0, n - k), Slice(T, k, n - k));
    if (behind > best) best = behind, shift = -static_cast<int64_t>(k);
  }
  out.shift = shift;
  const double k = std::fabs(static_cast<double>(shift));
  out.ep = k == 0 ? 1 : k >= 0.2 * n ? 0 : (0.2 * n - k) / (0.2 * n);
  const size_t m = n - static_cast<size_t>(k);
  const std::vector<double> Cs = shift >= 0 ? Slice(C, static_cast<size_t>(k), m) : Slice(C, 0, m);
  const std::vector<double> Ts = shift >= 0 ? Slice(T, 0, m) : Slice(T, static_cast<size_t>(k), m);

  // DTW over the whole matrix, cells outside the band at infinity.
  const long w = std::max(1L, static_cast<long>(std::ceil(0.1 * n)));
  std::vector<std::vector<double>> D(m, std::vector<double>(m, kInf));
  for (size_t i = 0; i < m; ++i) {
    for (size_t j = 0; j < m; ++j) {
      if (std::labs(static_cast<long>(i) - static_cast<long>(j)) >= w) continue;
      const double cost = (Cs[i] - Ts[j]) * (Cs[i] - Ts[j]);
      if (i == 0 && j == 0) {
        D[i][j] = cost;
        continue;
      }
      const double up = i > 0 ? D[i - 1][j] : kInf;
      const double left = j > 0 ? D[i][j - 1] : kInf;
      const double diag = i > 0 && j > 0 ? D[i - 1][j - 1] : kInf;
      D[i][j] = cost + std::min({up, left, diag});
    }
  }
  size_t i = m - 1, j = m - 1;
  double num = std::fabs(Cs[i] - Ts[j]), den = std::fabs(Ts[j]);
  while (i > 0 || j > 0) {
    const double up = i > 0 ? D[i - 1][j] : kInf;
    const double left = j > 0 ? D[i][j - 1] : kInf;
    const double diag = i > 0 && j > 0 ? D[i - 1][j - 1] : kInf;
    if (up <= left && up <= diag) {
      --i;
    } else if (left <= diag) {
      --j;
    } else {
      --i, --j;
    }
    num += std::fabs(Cs[i] - Ts[j]);
    den += std::fabs(Ts[j]);
  }
  const double em_error = Ratio(num, den);
  out.em = em_error > 0.5 ? 0 : (0.5 - em_error) / 0.5;

  const std::vector<double> dC = Derivative(Cs), dT = Derivative(Ts);
  double snum = 0, sden = 0;
  for (size_t q = 0; q < m; ++q) {
    snum += std::fabs(dC[q] - dT[q]);
    sden += std::fabs(dT[q]);
  }
  const double es_error = Ratio(snum, sden);
  out.es = es_error >= 2 ? 0 : (2 - es_error) / 2;
  out.r = 0.4 * out.z + 0.2 * out.ep + 0.2 * out.em + 0.2 * out.es;
  return out;
}

void ExpectAgrees(const std::vector<double>& T, const std::vector<double>& C,
                  const std::string& label) {
  SCOPED_TRACE(label);
  const Expected expected = Reference(T, C);
  const Iso18571Rating got = RateCurves(T, C, 0.01);
  EXPECT_EQ(got.samples, T.size());
  EXPECT_EQ(got.shift_samples, expected.shift);
  EXPECT_DOUBLE_EQ(got.shift_seconds, 0.01 * static_cast<double>(expected.shift));
  EXPECT_NEAR(got.z, expected.z, 1e-12);
  EXPECT_NEAR(got.ep, expected.ep, 1e-12);
  EXPECT_NEAR(got.em, expected.em, 1e-9);
  EXPECT_NEAR(got.es, expected.es, 1e-9);
  EXPECT_NEAR(got.r, expected.r, 1e-9);
}

// A damped oscillation like a crash pulse, sampled at n points over one second.
std::vector<double> Pulse(size_t n, double delay = 0, double gain = 1) {
  std::vector<double> v(n);
  for (size_t i = 0; i < n; ++i) {
    const double t = static_cast<double>(i) / static_cast<double>(n) - delay;
    v[i] = gain * std::exp(-3 * t) * std::sin(2 * std::numbers::pi * 3 * t);
  }
  return v;
}

std::vector<double> Noisy(std::vector<double> v, double sigma, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> noise(0, sigma);
  for (double& x : v) x += noise(rng);
  return v;
}

TEST(Iso18571, AgreesWithASecondImplementationOnGeneratedPairs) {
  for (const size_t n : {10, 11, 17, 50, 203, 1000}) {
    const std::vector<double> T = Pulse(n);
    ExpectAgrees(T, Noisy(T, 0.05, n), "noise " + std::to_string(n));
    ExpectAgrees(T, Noisy(T, 0.5, n + 1), "heavy noise " + std::to_string(n));
    ExpectAgrees(T, Pulse(n, 0.04), "delay " + std::to_string(n));
    ExpectAgrees(T, Pulse(n, -0.07), "early " + std::to_string(n));
    ExpectAgrees(T, Pulse(n, 0, 1.3), "amplitude " + std::to_string(n));
    ExpectAgrees(T, Pulse(n, 0, -1), "sign " + std::to_string(n));
    ExpectAgrees(Noisy(T, 0.1, 7), Noisy(Pulse(n, 0.1, 0.8), 0.1, 8), "mixed " + std::to_string(n));
    ExpectAgrees(std::vector<double>(n, 2.0), Noisy(std::vector<double>(n, 2.0), 0.1, 3),
                 "constant reference " + std::to_string(n));
    ExpectAgrees(std::vector<double>(n, 0.0), Noisy(std::vector<double>(n, 0.0), 0.1, 4),
                 "silent reference " + std::to_string(n));
    ExpectAgrees(std::vector<double>(n, 0.0), std::vector<double>(n, 0.0),
                 "silent pair " + std::to_string(n));
  }
}

TEST(Iso18571, IdenticalCurvesRateOneEverywhere) {
  for (const std::vector<double>& curve :
       {Pulse(500), Noisy(Pulse(64), 0.3, 1), std::vector<double>(30, 1.5)}) {
    const Iso18571Rating rating = RateCurves(curve, curve, 0.001);
    EXPECT_EQ(rating.z, 1.0);
    EXPECT_EQ(rating.ep, 1.0);
    EXPECT_EQ(rating.em, 1.0);
    EXPECT_EQ(rating.es, 1.0);
    EXPECT_EQ(rating.r, 1.0);
    EXPECT_EQ(rating.shift_samples, 0);
    EXPECT_EQ(Iso18571Grade(rating.r), "excellent");
  }
}

TEST(Iso18571, ShortPairsHaveNoRating) {
  const Iso18571Rating rating = RateCurves(Pulse(9), Pulse(9), 0.1);
  EXPECT_EQ(rating.samples, 9u);
  EXPECT_TRUE(std::isnan(rating.r));
  EXPECT_TRUE(std::isnan(rating.z));
  EXPECT_TRUE(std::isnan(rating.es));
  EXPECT_EQ(Iso18571Grade(rating.r), "");
}

TEST(Iso18571, GradesAtTheirBounds) {
  EXPECT_EQ(Iso18571Grade(0.95), "excellent");
  EXPECT_EQ(Iso18571Grade(0.94), "good");
  EXPECT_EQ(Iso18571Grade(0.80), "fair");
  EXPECT_EQ(Iso18571Grade(0.58), "poor");
}

// One channel of `signal` at times 0, step, ... up to `end`.
Series Sampled(std::string id, double step, double end, double delay) {
  Series run = MakeRun(std::move(id), {"a"}, {}, {});
  for (size_t k = 0; static_cast<double>(k) * step <= end + 1e-12; ++k) {
    const double t = static_cast<double>(k) * step;
    run.times.push_back(t);
    run.values.push_back(std::exp(-2 * (t - delay)) * std::sin(9 * (t - delay)));
  }
  return run;
}

TEST(Iso18571, APureDelayComesBackInSamples) {
  const Series ref = Sampled("ref", 0.01, 2.0, 0.0);
  const Series sim = Sampled("sim", 0.01, 2.0, 0.07);
  const std::vector<Iso18571Rating> ratings = RateMatchedPair(sim, ref);
  ASSERT_EQ(ratings.size(), 1u);
  EXPECT_EQ(ratings[0].samples, 201u);
  EXPECT_EQ(ratings[0].shift_samples, 7);
  EXPECT_NEAR(ratings[0].shift_seconds, 0.07, 1e-12);
  const std::vector<Iso18571Rating> early = RateMatchedPair(ref, sim);
  EXPECT_EQ(early[0].shift_samples, -7);
}

TEST(Iso18571, SameTimestampsAreTheGrid) {
  Series ref = Sampled("ref", 0.01, 1.0, 0.0);
  // Irregular timestamps that both runs share: no value is interpolated.
  for (size_t k = 1; k < ref.times.size(); k += 3) ref.times[k] += 0.003;
  Series sim = ref;
  for (double& v : sim.values) v *= 1.1;
  const std::vector<Iso18571Rating> ratings = RateMatchedPair(sim, ref);
  const Iso18571Rating direct = RateCurves(ref.values, sim.values, 0.01);
  EXPECT_EQ(ratings[0].samples, ref.samples());
  EXPECT_EQ(ratings[0].r, direct.r);
}

TEST(Iso18571, RatingHoldsWhenTheSimulatedRunIsSampledTwiceAsFast) {
  const Series ref = Sampled("ref", 0.004, 2.0, 0.0);
  for (const double delay : {0.0, 0.03, 0.1}) {
    const double coarse = RateMatchedPair(Sampled("sim", 0.004, 2.0, delay), ref)[0].r;
    const double fine = RateMatchedPair(Sampled("sim", 0.002, 2.0, delay), ref)[0].r;
    EXPECT_NEAR(fine, coarse, 0.02) << "delay " << delay;
  }
}

TEST(Iso18571, PairsOfTooFewSamplesRateAsNaN) {
  const std::vector<Iso18571Rating> ratings =
      RateMatchedPair(Sampled("sim", 0.1, 0.5, 0.0), Sampled("ref", 0.1, 0.5, 0.0));
  EXPECT_EQ(ratings[0].samples, 6u);
  EXPECT_TRUE(std::isnan(ratings[0].r));
}

TEST(Iso18571, PlanWeightedAverages) {
  const std::vector<PlanEntry> plan = {{.row = 0, .col = 0, .mass = 0.75},
                                       {.row = 1, .col = 1, .mass = 0.25}};
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const std::vector<PairIso18571> pairs = {
      {0, 0, 0, {.samples = 20, .r = 0.9, .z = 1, .ep = 1, .em = 0.5, .es = 1}},
      {1, 1, 0, {.samples = 20, .r = 0.5, .z = 0, .ep = 1, .em = 1, .es = 0.5}},
      {0, 0, 1, {.samples = 5, .r = nan, .z = nan, .ep = nan, .em = nan, .es = nan}},
      {1, 1, 1, {.samples = 20, .r = 0.7, .z = 0.5, .ep = 1, .em = 1, .es = 1}},
  };
  const std::vector<Iso18571Average> average = PlanWeightedIso18571(pairs, plan, 2);
  ASSERT_EQ(average.size(), 2u);
  EXPECT_DOUBLE_EQ(average[0].r, 0.8);
  EXPECT_DOUBLE_EQ(average[0].z, 0.75);
  EXPECT_DOUBLE_EQ(average[0].em, 0.625);
  EXPECT_DOUBLE_EQ(average[0].min_r, 0.5);
  EXPECT_DOUBLE_EQ(average[1].r, 0.7);
  EXPECT_DOUBLE_EQ(average[1].min_r, 0.7);
}

TEST(Iso18571, DtwCellsFollowTheBand) {
  EXPECT_EQ(Iso18571DtwCells(10), 10u);  // w = 1: the diagonal
  EXPECT_EQ(Iso18571DtwCells(2000), 2000u * 399u);
  EXPECT_EQ(Iso18571GridSamples(2, 2, 0.01, 201), 201u);
  EXPECT_EQ(Iso18571GridSamples(1.5, 2, 0.01, 151), 151u);
  EXPECT_EQ(Iso18571GridSamples(3, 2, 0.01, 201), 201u);
  // Half the steps tiny: the median is 0.01 s, the span 1.01 s, and the shared timestamps' grid
  // the 201 samples.
  EXPECT_EQ(Iso18571GridSamples(1.01, 1.01, 0.01, 201), 201u);
}

}  // namespace
}  // namespace wasserwarp
