// The BCa interval against values computed by another route: Python's statistics.NormalDist
// for Phi and its inverse, and the formulas of Efron and Tibshirani (1993, 14.9 and 14.15)
// evaluated by hand in that script.
#include "verdict/bootstrap_interval.h"

#include <gtest/gtest.h>

#include <vector>

namespace wasserwarp::resampling {
namespace {

TEST(BcaIntervalTest, NormalQuantileInvertsTheDistributionFunction) {
  EXPECT_NEAR(NormalQuantile(0.5), 0.0, 1e-15);
  EXPECT_NEAR(NormalQuantile(0.975), 1.959963984540054, 1e-14);
  EXPECT_NEAR(NormalQuantile(0.35), -0.3853204664075676, 1e-14);
  EXPECT_NEAR(NormalCdf(-1.959963984540054), 0.025, 1e-15);
}

TEST(BcaIntervalTest, WithoutBiasOrAccelerationItIsThePercentileInterval) {
  std::vector<double> resamples;
  for (int k = 20; k >= 1; --k) resamples.push_back(k);
  // Half the resamples below 10.5: z0 = 0; levels 0.025 and 0.975 of 1..20 (type 7).
  const BootstrapInterval interval = BcaInterval(10.5, resamples, 0.0, 0.95);
  EXPECT_NEAR(interval.bias_correction, 0.0, 1e-15);
  EXPECT_NEAR(interval.lo, 1.475, 1e-12);
  EXPECT_NEAR(interval.hi, 19.525, 1e-12);
}

TEST(BcaIntervalTest, HandComputedCase) {
  std::vector<double> resamples;
  for (int k = 1; k <= 20; ++k) resamples.push_back(k);
  // 7 of 20 below 7.5: z0 = Phi^-1(0.35); with a = 0.1 the levels are 0.011154608412350275
  // and 0.9310442613788245, at positions 0.2119 and 17.6898 of the sorted resamples.
  const BootstrapInterval interval = BcaInterval(7.5, resamples, 0.1, 0.95);
  EXPECT_NEAR(interval.bias_correction, -0.3853204664075676, 1e-12);
  EXPECT_NEAR(interval.lo, 1.2119375598346553, 1e-9);
  EXPECT_NEAR(interval.hi, 18.689840966197664, 1e-9);
}

TEST(BcaIntervalTest, JackknifeAccelerationOfTwoGroups) {
  EXPECT_NEAR(JackknifeAcceleration({{1, 2, 4}, {3, 3, 6, 10}}), -0.0461721347196117, 1e-15);
  EXPECT_EQ(JackknifeAcceleration({{2, 2, 2}}), 0.0);
  // A group of one unit has no jackknife.
  EXPECT_NEAR(JackknifeAcceleration({{1, 2, 4}, {7}, {3, 3, 6, 10}}), -0.0461721347196117, 1e-15);
}

TEST(BcaIntervalTest, EstimateOutsideEveryResampleStaysFinite) {
  const BootstrapInterval interval = BcaInterval(100.0, {1, 2, 3, 4}, 0.0, 0.9);
  EXPECT_GT(interval.bias_correction, 0.0);
  EXPECT_LE(interval.hi, 4.0);
  EXPECT_GE(interval.lo, 1.0);
}

}  // namespace
}  // namespace wasserwarp::resampling
