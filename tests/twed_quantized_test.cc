// The 16-bit lower bound on TWED (twed/twed_quantized.h) on every dispatch target: the lanes give
// the exact TWED of the quantized pair (against a textbook DP over 64-bit integers), the grid
// keeps the proof's premises, and the bound is never above Twed, with no tolerance.

#include "twed/twed_quantized.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <random>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "adversarial_cases.h"
#include "batch_targets.h"
#include "random_runs.h"
#include "wasserwarp/cancellation.h"
#include "wasserwarp/series.h"
#include "wasserwarp/twed.h"

namespace wasserwarp {
namespace {

using twed_internal::QuantizedBound;
using twed_internal::QuantizedPair;
using ::wasserwarp::test_data::AdversarialCase;
using ::wasserwarp::test_data::Describe;
using ::wasserwarp::test_data::kAdversarialKinds;
using ::wasserwarp::test_data::MakeTwedParams;
using ::wasserwarp::test_data::RandomWalkRun;
using ::wasserwarp::test_data::TwedCase;

class TwedQuantizedTest : public testing::OnEveryBatchTarget {
 protected:
  void SetUp() override {
    OnEveryBatchTarget::SetUp();
    if (twed_internal::QuantizedLanes() == 0) GTEST_SKIP() << "no lanes on " << GetParam().name;
  }
};

// The spec's recurrence over the quantized pair, textbook style: the full matrix in 64 bits.
int64_t GridTwed(const QuantizedPair& q) {
  const size_t c = q.channels;
  const size_t n = q.a_times.size();
  const size_t m = q.b_times.size();
  const auto local = [&](size_t i, size_t j) {
    int64_t sum = std::abs(q.a_times[i] - q.b_times[j]);
    for (size_t k = 0; k < c; ++k) sum += std::abs(q.a_values[i * c + k] - q.b_values[j * c + k]);
    return sum;
  };
  constexpr int64_t kInf = std::numeric_limits<int64_t>::max() / 4;
  std::vector<int64_t> d((n + 1) * (m + 1), kInf);
  const auto at = [&](size_t i, size_t j) -> int64_t& { return d[i * (m + 1) + j]; };
  at(1, 1) = local(0, 0);
  for (size_t i = 1; i <= n; ++i) {
    for (size_t j = 1; j <= m; ++j) {
      if (i == 1 && j == 1) continue;
      int64_t best = kInf;
      if (i >= 2 && j >= 2) best = at(i - 1, j - 1) + local(i - 2, j - 2) + local(i - 1, j - 1);
      if (i >= 2) best = std::min(best, at(i - 1, j) + q.a_dels[i - 1]);
      if (j >= 2) best = std::min(best, at(i, j - 1) + q.b_dels[j - 1]);
      at(i, j) = best;
    }
  }
  return at(n, m);
}

QuantizedBound Bound(const TwedCase& c) {
  absl::StatusOr<QuantizedBound> bound =
      twed_internal::QuantizedTwedBoundOfPair(c.a, c.b, c.params);
  EXPECT_TRUE(bound.ok()) << bound.status();
  return bound.value_or(QuantizedBound{});
}

double Twed(const TwedCase& c) {
  absl::StatusOr<double> d = wasserwarp::Twed(c.a, c.b, c.params);
  EXPECT_TRUE(d.ok()) << d.status();
  return d.value_or(std::numeric_limits<double>::quiet_NaN());
}

// The 16-bit bound takes one channel under any norm and several under L1.
TwedCase Supported(TwedCase c) {
  if (c.a.num_channels() > 1) c.params.p = 1.0;
  return c;
}

TEST_P(TwedQuantizedTest, LanesGiveTheExactTwedOfTheGrid) {
  std::mt19937_64 rng(31);
  int fitted = 0;
  for (int trial = 0; trial < 1200; ++trial) {
    const TwedCase c = Supported(AdversarialCase(rng, trial % kAdversarialKinds));
    const QuantizedPair q = twed_internal::QuantizePair(c.a, c.b, c.params);
    if (q.scale == 0.0) continue;
    ++fitted;
    ASSERT_EQ(Bound(c).grid_distance, GridTwed(q))
        << Describe(c) << " kind " << trial % kAdversarialKinds << " scale " << q.scale;
  }
  EXPECT_GT(fitted, 1000);
}

// What the proof takes of the grid: values and times within 14 bits and a sign, the deletion costs
// of the two runs below the limit together with lambda's, and no quantized cost term more than
// rounding_per_term above scale times its exact value (long double stands in for exact).
TEST_P(TwedQuantizedTest, TheGridKeepsTheProofsPremises) {
  std::mt19937_64 rng(37);
  for (int trial = 0; trial < 600; ++trial) {
    const TwedCase c = Supported(AdversarialCase(rng, trial % kAdversarialKinds));
    const QuantizedPair q = twed_internal::QuantizePair(c.a, c.b, c.params);
    if (q.scale == 0.0) continue;
    const size_t d = q.channels;
    const auto within = [](int16_t x) { return x >= -16383 && x <= 16383; };
    for (int16_t x : q.a_values) ASSERT_TRUE(within(x)) << Describe(c);
    for (int16_t x : q.b_values) ASSERT_TRUE(within(x)) << Describe(c);
    for (int16_t x : q.a_times) ASSERT_TRUE(within(x)) << Describe(c);
    for (int16_t x : q.b_times) ASSERT_TRUE(within(x)) << Describe(c);
    const long double s = q.scale;
    const long double lambda_grid = q.lambda;
    ASSERT_LE(lambda_grid, s * c.params.lambda * (1.0L + 0x1p-50L)) << Describe(c);
    const int largest_a = *std::max_element(q.a_dels.begin(), q.a_dels.end());
    const int largest_b = *std::max_element(q.b_dels.begin(), q.b_dels.end());
    ASSERT_LE(largest_a + largest_b + lambda_grid, twed_internal::kQuantizedDeletionLimit)
        << Describe(c);
    // Cost terms of c(x, y) + nu |tx - ty| (+ lambda for a deletion) between samples of either run.
    const auto excess = [&](const std::vector<int16_t>& xv, const std::vector<int16_t>& xt,
                            const Series& x, size_t i, const std::vector<int16_t>& yv,
                            const std::vector<int16_t>& yt, const Series& y, size_t j) {
      long double exact =
          c.params.nu * std::fabs(static_cast<long double>(x.times[i]) - y.times[j]);
      int64_t grid = std::abs(xt[i] - yt[j]);
      for (size_t k = 0; k < d; ++k) {
        exact += std::fabs(static_cast<long double>(x.value(i, k)) - y.value(j, k));
        grid += std::abs(xv[i * d + k] - yv[j * d + k]);
      }
      return static_cast<long double>(grid) - s * exact;
    };
    for (int probe = 0; probe < 50; ++probe) {
      const size_t i = rng() % c.a.samples();
      const size_t j = rng() % c.b.samples();
      EXPECT_LE(excess(q.a_values, q.a_times, c.a, i, q.b_values, q.b_times, c.b, j),
                q.rounding_per_term)
          << Describe(c);
      if (i > 0) {
        // A deletion's cost is the grid's own cost between the two samples, plus lambda's: the
        // premise of the difference bounds.
        int64_t grid =
            static_cast<int64_t>(lambda_grid) + std::abs(q.a_times[i] - q.a_times[i - 1]);
        for (size_t k = 0; k < d; ++k)
          grid += std::abs(q.a_values[i * d + k] - q.a_values[(i - 1) * d + k]);
        EXPECT_EQ(q.a_dels[i], grid) << Describe(c);
        const long double own =
            excess(q.a_values, q.a_times, c.a, i, q.a_values, q.a_times, c.a, i - 1);
        EXPECT_LE(own + lambda_grid - s * c.params.lambda, q.rounding_per_term) << Describe(c);
      }
    }
  }
}

TEST_P(TwedQuantizedTest, NeverAboveTheTwedOnRandomAndAdversarialPairs) {
  std::mt19937_64 rng(19);
  int positive = 0;
  for (int trial = 0; trial < 2400; ++trial) {
    const TwedCase c = Supported(AdversarialCase(rng, trial % kAdversarialKinds));
    const double twed = Twed(c);
    const QuantizedBound bound = Bound(c);
    ASSERT_GE(bound.bound, 0.0) << Describe(c);
    ASSERT_LE(bound.bound, twed) << Describe(c) << " kind " << trial % kAdversarialKinds;
    if (bound.bound > 0.0) ++positive;
  }
  EXPECT_GT(positive, 1000);
}

// On the runs the lazy transport meets (random walks of 2000 samples) the bound is within 3e-2 of
// the TWED and the estimate within 1e-3, which is what lets the lazy transport plan on the
// estimates and price most pairs out with the bounds.
TEST_P(TwedQuantizedTest, TightOnLongRuns) {
  std::mt19937_64 rng(7);
  for (const double nu : {0.0, 0.001, 1.0}) {
    for (const size_t d : {1, 3}) {
      const TwedCase c{RandomWalkRun(rng, "a", 2000, d), RandomWalkRun(rng, "b", 1800, d),
                       MakeTwedParams(nu, 0.1, 1.0)};
      const double twed = Twed(c);
      const QuantizedBound bound = Bound(c);
      EXPECT_LE(bound.bound, twed) << Describe(c);
      EXPECT_GE(bound.bound, twed * (1.0 - 3e-2)) << Describe(c);
      EXPECT_NEAR(bound.estimate, twed, 1e-3 * twed) << Describe(c);
    }
  }
}

// Lanes of other lengths are padded: for lambda = 0 that leaves each pair's grid distance alone,
// for lambda > 0 it may only lower it.
TEST_P(TwedQuantizedTest, LanesGiveEachPairsBoundAlone) {
  std::mt19937_64 rng(3);
  const size_t lanes = twed_internal::QuantizedLanes();
  for (const double lambda : {0.0, 0.5}) {
    const TwedParams params = MakeTwedParams(0.01, lambda, 1.0);
    std::vector<Series> rows;
    std::vector<Series> cols;
    for (size_t k = 0; k + 1 < lanes; ++k) {
      rows.push_back(RandomWalkRun(rng, "r", 30 + 3 * k, 2));
      cols.push_back(RandomWalkRun(rng, "c", 20 + 7 * k, 2));
    }
    std::vector<const Series*> row_series;
    std::vector<const Series*> col_series;
    for (size_t k = 0; k < rows.size(); ++k) {
      row_series.push_back(&rows[k]);
      col_series.push_back(&cols[k]);
    }
    const twed_internal::QuantizedLaneBatch batch(row_series, col_series, params, lanes);
    std::vector<QuantizedBound> out(rows.size());
    ASSERT_TRUE(twed_internal::QuantizedTwedBound(batch, out).ok());
    for (size_t k = 0; k < rows.size(); ++k) {
      const TwedCase alone{rows[k], cols[k], params};
      if (lambda == 0.0) {
        EXPECT_EQ(out[k].grid_distance, Bound(alone).grid_distance) << k;
      } else {
        EXPECT_LE(out[k].grid_distance, Bound(alone).grid_distance) << k;
      }
      EXPECT_LE(out[k].bound, Twed(alone)) << k;
    }
  }
}

TEST_P(TwedQuantizedTest, NotForOtherNormsOnSeveralChannelsOrWindows) {
  EXPECT_TRUE(twed_internal::QuantizedSupports(1, MakeTwedParams(0.01, 0.0, 2.0)));
  EXPECT_TRUE(twed_internal::QuantizedSupports(3, MakeTwedParams(0.01, 0.0, 1.0)));
  EXPECT_FALSE(twed_internal::QuantizedSupports(3, MakeTwedParams(0.01, 0.0, 2.0)));
  EXPECT_FALSE(twed_internal::QuantizedSupports(1, MakeTwedParams(0.01, 0.0, 2.0, 0.5)));
}

TEST_P(TwedQuantizedTest, CancelledBeforeItStarts) {
  std::mt19937_64 rng(5);
  const Series a = RandomWalkRun(rng, "a", 50, 1);
  const Series b = RandomWalkRun(rng, "b", 40, 1);
  const Series* rows[] = {&a};
  const Series* cols[] = {&b};
  const TwedParams params = MakeTwedParams(0.01, 0.0);
  const twed_internal::QuantizedLaneBatch batch(rows, cols, params,
                                                twed_internal::QuantizedLanes());
  CancellationToken token;
  token.Cancel();
  QuantizedBound out;
  EXPECT_TRUE(absl::IsCancelled(twed_internal::QuantizedTwedBound(batch, {&out, 1}, &token)));
}

INSTANTIATE_TEST_SUITE_P(Targets, TwedQuantizedTest, testing::EveryBatchTarget(),
                         testing::TargetName);

}  // namespace
}  // namespace wasserwarp
