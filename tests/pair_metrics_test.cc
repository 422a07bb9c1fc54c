#include "wasserwarp/pair_metrics.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstddef>
#include <functional>
#include <numbers>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "make_run.h"
#include "metrics/fft.h"
#include "random_runs.h"

namespace wasserwarp {
namespace {

using test_data::MakeRun;

// One channel sampled from `signal` at times start, start + ~step, ... up to
// `end`, each gap jittered by up to +-jitter * step.
Series SampledRun(std::string id, const std::function<double(double)>& signal, double start,
                  double end, double step, double jitter, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> gap((1.0 - jitter) * step, (1.0 + jitter) * step);
  Series run = MakeRun(std::move(id), {"x"}, {}, {});
  for (double t = start; t <= end; t += gap(rng)) {
    run.times.push_back(t);
    run.values.push_back(signal(t));
  }
  return run;
}

void ExpectAllNaN(const ChannelMetrics& m) {
  EXPECT_TRUE(std::isnan(m.rmse));
  EXPECT_TRUE(std::isnan(m.theil_u));
  EXPECT_TRUE(std::isnan(m.q3));
  EXPECT_TRUE(std::isnan(m.sprague_geers_m));
  EXPECT_TRUE(std::isnan(m.sprague_geers_p));
  EXPECT_TRUE(std::isnan(m.sprague_geers_c));
  EXPECT_TRUE(std::isnan(m.lag));
}

// ---- FFT ----

TEST(FourierTransformTest, MatchesTheDefinition) {
  std::mt19937_64 rng(7);
  std::normal_distribution<double> normal;
  for (size_t n : {1, 2, 4, 8, 64}) {
    std::vector<std::complex<double>> x(n);
    for (auto& v : x) v = {normal(rng), normal(rng)};
    for (bool inverse : {false, true}) {
      std::vector<std::complex<double>> transformed = x;
      FourierTransform(transformed, inverse);
      const double sign = inverse ? 1.0 : -1.0;
      for (size_t k = 0; k < n; ++k) {
        std::complex<double> direct = 0.0;
        for (size_t j = 0; j < n; ++j) {
          direct += x[j] * std::polar(1.0, sign * 2.0 * std::numbers::pi * double(k * j) / n);
        }
        EXPECT_NEAR(transformed[k].real(), direct.real(), 1e-12) << "n " << n << " k " << k;
        EXPECT_NEAR(transformed[k].imag(), direct.imag(), 1e-12) << "n " << n << " k " << k;
      }
    }
  }
}

TEST(FourierTransformTest, InverseUndoesForwardUpToN) {
  std::mt19937_64 rng(8);
  std::normal_distribution<double> normal;
  const size_t n = 1 << 12;
  std::vector<std::complex<double>> x(n);
  for (auto& v : x) v = {normal(rng), normal(rng)};
  std::vector<std::complex<double>> y = x;
  FourierTransform(y, false);
  FourierTransform(y, true);
  for (size_t k = 0; k < n; ++k) {
    EXPECT_NEAR(y[k].real() / n, x[k].real(), 1e-12);
    EXPECT_NEAR(y[k].imag() / n, x[k].imag(), 1e-12);
  }
}

TEST(CrossCorrelationTest, MatchesTheDirectSumAtEveryLag) {
  std::mt19937_64 rng(9);
  std::normal_distribution<double> normal;
  const std::pair<size_t, size_t> sizes[] = {{1, 1},   {1, 5},     {5, 1},   {7, 3},
                                             {3, 7},   {100, 37},  {513, 2}, {1000, 1000},
                                             {64, 64}, {1025, 300}};
  for (const auto& [na, nb] : sizes) {
    std::vector<double> a(na);
    std::vector<double> b(nb);
    for (double& v : a) v = normal(rng);
    for (double& v : b) v = normal(rng);
    const std::vector<double> fast = CrossCorrelation(a, b);
    ASSERT_EQ(fast.size(), na + nb - 1);
    for (long k = -static_cast<long>(nb - 1); k < static_cast<long>(na); ++k) {
      double direct = 0.0;
      for (long i = 0; i < static_cast<long>(na); ++i) {
        if (i - k >= 0 && i - k < static_cast<long>(nb)) direct += a[i] * b[i - k];
      }
      EXPECT_NEAR(fast[k + nb - 1], direct, 1e-10) << na << "x" << nb << " lag " << k;
    }
  }
  EXPECT_TRUE(CrossCorrelation({}, std::vector<double>{1.0}).empty());
}

// ---- rigid metrics ----

TEST(CompareMatchedPairTest, HandComputedPair) {
  // Reference y at t = 0, 1, 2, 3: 1, 2, 3, 4. The simulated run (0, 0),
  // (2, 4), (3, 3) interpolated there: z = 0, 2, 4, 3. z - y = -1, 0, 1, -1.
  const Series ref = MakeRun("ref", {"x"}, {0, 1, 2, 3}, {1, 2, 3, 4});
  const Series sim = MakeRun("sim", {"x"}, {0, 2, 3}, {0, 4, 3});
  const std::vector<ChannelMetrics> metrics = CompareMatchedPair(sim, ref);
  ASSERT_EQ(metrics.size(), 1u);
  const ChannelMetrics& m = metrics[0];
  EXPECT_EQ(m.samples, 4u);
  // sum (z-y)^2 = 3: RMSE = sqrt(3/4).
  EXPECT_NEAR(m.rmse, std::sqrt(0.75), 1e-15);
  // mean y^2 = 30/4, mean z^2 = 29/4.
  EXPECT_NEAR(m.theil_u, std::sqrt(0.75) / (std::sqrt(7.5) + std::sqrt(7.25)), 1e-15);
  // 1/(1+e^2) = 1/2, 1, 1/2, 1/2: mean 2.5/4.
  EXPECT_NEAR(m.q3, 0.625, 1e-15);
  // sum m^2 = 30, sum c^2 = 29, sum c m = 0 + 4 + 12 + 12 = 28.
  const double expected_m = std::sqrt(29.0 / 30.0) - 1.0;
  const double expected_p = std::acos(28.0 / std::sqrt(29.0 * 30.0)) / std::numbers::pi;
  EXPECT_NEAR(m.sprague_geers_m, expected_m, 1e-14);
  EXPECT_NEAR(m.sprague_geers_p, expected_p, 1e-14);
  EXPECT_NEAR(m.sprague_geers_c, std::hypot(expected_m, expected_p), 1e-14);
}

TEST(CompareMatchedPairTest, IdenticalRunsArePerfect) {
  std::mt19937_64 rng(11);
  const Series run = test_data::RandomWalkRun(rng, "run", 500, 3);
  for (const ChannelMetrics& m : CompareMatchedPair(run, run)) {
    EXPECT_EQ(m.samples, 500u);
    EXPECT_EQ(m.rmse, 0.0);
    EXPECT_EQ(m.theil_u, 0.0);
    EXPECT_EQ(m.q3, 1.0);
    EXPECT_EQ(m.sprague_geers_m, 0.0);
    EXPECT_EQ(m.sprague_geers_p, 0.0);
    EXPECT_EQ(m.sprague_geers_c, 0.0);
    EXPECT_NEAR(m.lag, 0.0, 1e-9);
  }
}

TEST(CompareMatchedPairTest, InterpolatesOntoIrregularReferenceTimes) {
  // The simulated run (0, 0), (1, 2), (3, 0) at the reference times 0, 0.5,
  // 2.5, 3: z = 0, 1, 0.5, 0 against a silent reference y = 0.
  const Series sim = MakeRun("sim", {"x"}, {0, 1, 3}, {0, 2, 0});
  const Series ref = MakeRun("ref", {"x"}, {0, 0.5, 2.5, 3}, {0, 0, 0, 0});
  const ChannelMetrics m = CompareMatchedPair(sim, ref)[0];
  EXPECT_EQ(m.samples, 4u);
  // sum e^2 = 1 + 0.25 = 1.25 over 4 samples.
  EXPECT_NEAR(m.rmse, std::sqrt(1.25 / 4), 1e-15);
  // A silent reference: U = rmse / (0 + rmse) = 1.
  EXPECT_NEAR(m.theil_u, 1.0, 1e-15);
  // 1, 1/2, 1/1.25, 1: mean 3.3/4.
  EXPECT_NEAR(m.q3, 0.825, 1e-15);
  // Sprague-Geers measures against the reference's energy, which is zero.
  EXPECT_TRUE(std::isnan(m.sprague_geers_m));
  EXPECT_TRUE(std::isnan(m.sprague_geers_p));
  EXPECT_TRUE(std::isnan(m.sprague_geers_c));
  EXPECT_TRUE(std::isnan(m.lag));  // the reference is constant
}

TEST(CompareMatchedPairTest, UsesOnlyTheOverlap) {
  // Reference y = t at t = 0..5; the simulated run z = t + 1 on [2.5, 10].
  // Overlap [2.5, 5]: reference samples t = 3, 4, 5 with y = 3, 4, 5 and z = 4, 5, 6.
  const Series ref = MakeRun("ref", {"x"}, {0, 1, 2, 3, 4, 5}, {0, 1, 2, 3, 4, 5});
  const Series sim = MakeRun("sim", {"x"}, {2.5, 3.5, 4.5, 5.5, 10}, {3.5, 4.5, 5.5, 6.5, 11});
  const ChannelMetrics m = CompareMatchedPair(sim, ref)[0];
  EXPECT_EQ(m.samples, 3u);
  EXPECT_NEAR(m.rmse, 1.0, 1e-15);
  // mean y^2 = 50/3, mean z^2 = 77/3.
  EXPECT_NEAR(m.theil_u, 1.0 / (std::sqrt(50.0 / 3) + std::sqrt(77.0 / 3)), 1e-15);
  EXPECT_NEAR(m.q3, 0.5, 1e-15);
  // sum c m = 12 + 20 + 30 = 62.
  EXPECT_NEAR(m.sprague_geers_m, std::sqrt(77.0 / 50.0) - 1.0, 1e-14);
  EXPECT_NEAR(m.sprague_geers_p, std::acos(62.0 / std::sqrt(77.0 * 50.0)) / std::numbers::pi,
              1e-14);
}

TEST(CompareMatchedPairTest, NoOverlapLeavesEveryMetricUndefined) {
  const Series ref = MakeRun("ref", {"x", "y"}, {0, 1, 2}, {0, 1, 2, 3, 4, 5});
  const Series later = MakeRun("sim", {"x", "y"}, {3, 4}, {0, 1, 2, 3});
  for (const ChannelMetrics& m : CompareMatchedPair(later, ref)) {
    EXPECT_EQ(m.samples, 0u);
    ExpectAllNaN(m);
  }
  // Touching at t = 2: one reference sample is not enough.
  const Series touching = MakeRun("sim", {"x", "y"}, {2, 4}, {0, 1, 2, 3});
  for (const ChannelMetrics& m : CompareMatchedPair(touching, ref)) {
    EXPECT_EQ(m.samples, 1u);
    ExpectAllNaN(m);
  }
}

TEST(CompareMatchedPairTest, DivisorsRestoreTheChannelUnits) {
  const Series ref = MakeRun("ref", {"a", "b"}, {0, 1, 2, 3}, {1, 10, 2, 20, 3, 30, 4, 40});
  const Series sim = MakeRun("sim", {"a", "b"}, {0, 2, 3}, {0, 0, 4, 40, 3, 30});
  // The same runs divided by 2 (channel a) and 10 (channel b).
  auto scaled = [](Series run) {
    for (size_t i = 0; i < run.samples(); ++i) {
      run.values[2 * i] /= 2.0;
      run.values[2 * i + 1] /= 10.0;
    }
    return run;
  };
  const std::vector<ChannelMetrics> original = CompareMatchedPair(sim, ref);
  const std::vector<ChannelMetrics> restored =
      CompareMatchedPair(scaled(sim), scaled(ref), {2.0, 10.0});
  ASSERT_EQ(restored.size(), 2u);
  for (size_t c = 0; c < 2; ++c) {
    EXPECT_NEAR(restored[c].rmse, original[c].rmse, 1e-13) << c;
    EXPECT_NEAR(restored[c].theil_u, original[c].theil_u, 1e-15) << c;
    EXPECT_NEAR(restored[c].q3, original[c].q3, 1e-15) << c;
    EXPECT_NEAR(restored[c].sprague_geers_m, original[c].sprague_geers_m, 1e-14) << c;
    EXPECT_NEAR(restored[c].sprague_geers_p, original[c].sprague_geers_p, 1e-14) << c;
  }
  // Channel a is the hand-computed pair above: RMSE sqrt(3/4); channel b is
  // ten times it.
  EXPECT_NEAR(restored[0].rmse, std::sqrt(0.75), 1e-15);
  EXPECT_NEAR(restored[1].rmse, 10.0 * std::sqrt(0.75), 1e-13);
  // Q3 is not scale-free: the errors 10, 0, 10, 10 give 1/101 three times.
  EXPECT_NEAR(restored[1].q3, (3.0 / 101.0 + 1.0) / 4.0, 1e-15);
}

TEST(CompareMatchedPairTest, SilentRunsAndOppositePhase) {
  const Series zeros = MakeRun("zeros", {"x"}, {0, 1, 2}, {0, 0, 0});
  const Series signal = MakeRun("signal", {"x"}, {0, 1, 2}, {1, -2, 3});
  const Series negated = MakeRun("negated", {"x"}, {0, 1, 2}, {-1, 2, -3});

  const ChannelMetrics both_silent = CompareMatchedPair(zeros, zeros)[0];
  EXPECT_EQ(both_silent.theil_u, 0.0);
  EXPECT_EQ(both_silent.rmse, 0.0);
  EXPECT_TRUE(std::isnan(both_silent.sprague_geers_m));
  EXPECT_TRUE(std::isnan(both_silent.sprague_geers_c));

  // Silent model, live reference: c = 0 gives M = -1; the phase has no angle.
  const ChannelMetrics silent_sim = CompareMatchedPair(zeros, signal)[0];
  EXPECT_EQ(silent_sim.sprague_geers_m, -1.0);
  EXPECT_TRUE(std::isnan(silent_sim.sprague_geers_p));
  EXPECT_TRUE(std::isnan(silent_sim.sprague_geers_c));
  EXPECT_NEAR(silent_sim.theil_u, 1.0, 1e-15);

  // c = -m: equal energy (M = 0), cosine -1 (P = 1), C = 1; U = 2 rms / 2 rms = 1.
  const ChannelMetrics opposite = CompareMatchedPair(negated, signal)[0];
  EXPECT_EQ(opposite.sprague_geers_m, 0.0);
  EXPECT_NEAR(opposite.sprague_geers_p, 1.0, 1e-15);
  EXPECT_NEAR(opposite.sprague_geers_c, 1.0, 1e-15);
  EXPECT_NEAR(opposite.theil_u, 1.0, 1e-15);
}

// ---- lag ----

double Pulse(double t) {
  // A bump, then a smooth step: both shapes a manoeuvre produces.
  return std::exp(-std::pow((t - 3.0) / 0.3, 2)) + 0.5 * std::tanh((t - 5.0) / 0.2);
}

// A slow ramp to a plateau: correlating the whole runs would put its peak
// tens of steps off.
double RampAndHold(double t) { return std::clamp((t - 1.0) / 3.0, 0.0, 1.0); }

// Nearly five periods: a copy one period away correlates as well as the
// right one, and only the overlap decides.
double Sine(double t) { return std::sin(2.0 * std::numbers::pi * 0.6 * t); }

// sim(t) = signal(t - delay) sampled at its own irregular ~7 ms, against
// the signal at an irregular ~10 ms.
double LagOfDelayed(double (*signal)(double), double delay) {
  const Series ref = SampledRun("ref", signal, 0.0, 8.0, 0.01, 0.2, 1);
  const Series sim = SampledRun(
      "sim", [&](double t) { return signal(t - delay); }, 0.0, 8.0, 0.007, 0.3, 2);
  return CompareMatchedPair(sim, ref)[0].lag;
}

TEST(CompareMatchedPairTest, RecoversAConstantDelay) {
  const double step = 0.01;  // the reference's median step
  for (double (*signal)(double) : {Pulse, RampAndHold}) {
    for (double delay : {0.0, 0.1234, -0.0567, 0.8, -1.5, 0.005}) {
      EXPECT_NEAR(LagOfDelayed(signal, delay), delay, 0.01 * step) << "delay " << delay;
    }
  }
  for (double delay : {0.0, 0.1234, -0.0567, 0.4, -0.5}) {
    EXPECT_NEAR(LagOfDelayed(Sine, delay), delay, 0.01 * step) << "delay " << delay;
  }
}

TEST(CompareMatchedPairTest, PeriodicSignalGivesTheNearestAlignment) {
  // Delayed by 1.5 s, or equally well advanced by one period (1/0.6 s) less:
  // the latter compares more of the runs.
  EXPECT_NEAR(LagOfDelayed(Sine, -1.5), 1.0 / 0.6 - 1.5, 0.01 * 0.01);
}

TEST(CompareMatchedPairTest, RecoversADelayWithDifferentStarts) {
  // The simulated run starts 0.37 s later and ends later; the lag concerns
  // the signal, not where each run starts.
  const double step = 0.01;
  const Series ref = SampledRun("ref", Pulse, 0.0, 8.0, step, 0.0, 1);
  for (double delay : {0.2345, -0.3456}) {
    const Series sim = SampledRun(
        "sim", [&](double t) { return Pulse(t - delay); }, 0.37, 9.1, 0.005, 0.1, 3);
    EXPECT_NEAR(CompareMatchedPair(sim, ref)[0].lag, delay, 0.01 * step) << "delay " << delay;
  }
}

TEST(CompareMatchedPairTest, LongRunsAgainstAFineReferenceUseACoarserGrid) {
  // 2000 s on the reference's 0.1 ms step would be 2e7 grid points; the lag
  // search coarsens to about 2 ms and still finds the delay.
  const double delay = 0.0432;
  const Series ref = SampledRun("ref", Pulse, 0.0, 8.0, 1e-4, 0.0, 1);
  const Series sim = SampledRun(
      "sim", [&](double t) { return Pulse(t - delay); }, 0.0, 2000.0, 0.01, 0.0, 2);
  const double coarse_step = (2000.0 + 8.0) / ((1 << 20) - 4);
  EXPECT_NEAR(CompareMatchedPair(sim, ref)[0].lag, delay, 0.01 * coarse_step);
}

TEST(CompareMatchedPairTest, ConstantSignalHasNoLag) {
  const Series ref = SampledRun("ref", Pulse, 0.0, 8.0, 0.01, 0.0, 1);
  const Series flat = SampledRun(
      "sim", [](double) { return 2.0; }, 0.0, 8.0, 0.01, 0.0, 1);
  const ChannelMetrics m = CompareMatchedPair(flat, ref)[0];
  EXPECT_TRUE(std::isnan(m.lag));
  EXPECT_FALSE(std::isnan(m.rmse));
}

// ---- plan-weighted averages ----

ChannelMetrics Metrics(uint64_t samples, double value, double lag) {
  return ChannelMetrics{.samples = samples,
                        .rmse = value,
                        .theil_u = value / 10,
                        .q3 = value / 100,
                        .sprague_geers_m = value,
                        .sprague_geers_p = value,
                        .sprague_geers_c = value,
                        .lag = lag};
}

TEST(PlanWeightedMetricsTest, WeightsByMassAndSkipsNaN) {
  const double nan = std::nan("");
  const std::vector<PlanEntry> plan = {{.row = 0, .col = 1, .mass = 0.75},
                                       {.row = 1, .col = 0, .mass = 0.25}};
  const std::vector<PairMetrics> pairs = {
      {.sim = 0, .ref = 1, .channel = 0, .metrics = Metrics(10, 1.0, 0.5)},
      {.sim = 0, .ref = 1, .channel = 1, .metrics = Metrics(10, nan, nan)},
      {.sim = 1, .ref = 0, .channel = 0, .metrics = Metrics(20, 5.0, nan)},
      {.sim = 1, .ref = 0, .channel = 1, .metrics = Metrics(20, nan, nan)},
  };
  const std::vector<ChannelMetrics> average = PlanWeightedMetrics(pairs, plan, 2);
  ASSERT_EQ(average.size(), 2u);
  // 0.75 * 1 + 0.25 * 5 = 2.
  EXPECT_DOUBLE_EQ(average[0].rmse, 2.0);
  EXPECT_DOUBLE_EQ(average[0].theil_u, 0.2);
  EXPECT_DOUBLE_EQ(average[0].q3, 0.02);
  EXPECT_DOUBLE_EQ(average[0].sprague_geers_c, 2.0);
  // Only the first pair has a lag: its mass renormalised to 1.
  EXPECT_DOUBLE_EQ(average[0].lag, 0.5);
  EXPECT_EQ(average[0].samples, 30u);
  // Nothing defined on channel 1.
  ExpectAllNaN(average[1]);
}

}  // namespace
}  // namespace wasserwarp
