#include "twed/twed_single.h"

#include <gtest/gtest.h>
#include <xmmintrin.h>

#include <cfenv>
#include <cmath>
#include <cstddef>
#include <limits>
#include <ostream>
#include <random>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "random_runs.h"
#include "twed/twed_batch.h"
#include "wasserwarp/cancellation.h"
#include "wasserwarp/series.h"
#include "wasserwarp/twed.h"

namespace wasserwarp {
namespace twed_internal {
void PrintTo(const BatchTarget& target, std::ostream* os) { *os << target.name; }
}  // namespace twed_internal

namespace {

using ::wasserwarp::test_data::Describe;
using ::wasserwarp::test_data::MakeTwedParams;
using ::wasserwarp::test_data::RandomWalkRun;
using ::wasserwarp::test_data::Sampling;
using ::wasserwarp::test_data::TwedCase;

// The bound's claim is exact: never above Twed's double, so no test here allows a tolerance.
class TwedSingleTest : public ::testing::TestWithParam<twed_internal::BatchTarget> {
 protected:
  void SetUp() override {
    twed_internal::ForceBatchTarget(GetParam().id);
    if (twed_internal::SingleLanes() == 0) GTEST_SKIP() << "no lanes on " << GetParam().name;
  }
  void TearDown() override { twed_internal::ForceBatchTarget(0); }
};

double Twed(const TwedCase& c) {
  absl::StatusOr<double> d = wasserwarp::Twed(c.a, c.b, c.params);
  EXPECT_TRUE(d.ok()) << d.status();
  return d.value_or(std::numeric_limits<double>::quiet_NaN());
}

double Bound(const TwedCase& c) {
  absl::StatusOr<double> d = twed_internal::SingleTwedBoundOfPair(c.a, c.b, c.params);
  EXPECT_TRUE(d.ok()) << d.status();
  return d.value_or(std::numeric_limits<double>::quiet_NaN());
}

// The cases where rounding could push a careless single-precision DP above the TWED: values and
// times far from 0 that float cannot hold exactly, near-copies whose TWED is mostly rounding,
// identical runs (TWED 0), runs of one sample, values whose squares leave float's range above
// and below, and rows far from the columns they meet.
TwedCase AdversarialCase(std::mt19937_64& rng, int kind) {
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  const size_t d = 1 + rng() % 4;
  const double p = d == 1 ? (rng() % 2 == 0 ? 1.0 : 3.0) : (rng() % 2 == 0 ? 1.0 : 2.0);
  const TwedParams params =
      MakeTwedParams(rng() % 3 == 0 ? 1.0 : 0.001 * unit(rng), rng() % 2 == 0 ? 0.0 : unit(rng), p);
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
    default:  // beyond the single range: the bound is 0
      for (double& x : a.values) x *= 1e40;
      break;
  }
  return {std::move(a), std::move(b), params};
}

TEST_P(TwedSingleTest, NeverAboveTheTwedOnRandomAndAdversarialPairs) {
  std::mt19937_64 rng(19);
  int positive = 0;
  for (int trial = 0; trial < 2400; ++trial) {
    const TwedCase c = AdversarialCase(rng, trial % 8);
    const double twed = Twed(c);
    const double bound = Bound(c);
    ASSERT_GE(bound, 0.0) << Describe(c);
    ASSERT_LE(bound, twed) << Describe(c) << " kind " << trial % 8;
    if (bound > 0.0) ++positive;
  }
  EXPECT_GT(positive, 800);
}

// On the runs the lazy transport meets (random walks of 2000 samples) the bound is within 2e-4
// of the TWED, which is what lets it price pairs out.
TEST_P(TwedSingleTest, TightOnLongRuns) {
  std::mt19937_64 rng(7);
  for (const double p : {1.0, 2.0}) {
    for (const size_t d : {1, 3}) {
      const TwedCase c{RandomWalkRun(rng, "a", 2000, d), RandomWalkRun(rng, "b", 1800, d),
                       MakeTwedParams(0.001, 0.1, p)};
      const double twed = Twed(c);
      EXPECT_LE(Bound(c), twed) << Describe(c);
      EXPECT_GE(Bound(c), twed * (1.0 - 2e-4)) << Describe(c);
    }
  }
}

TEST_P(TwedSingleTest, LanesGiveEachPairsBoundAlone) {
  std::mt19937_64 rng(3);
  const TwedParams params = MakeTwedParams(0.01, 0.5, 2.0);
  const Series row = RandomWalkRun(rng, "row", 90, 2);
  const size_t lanes = twed_internal::SingleLanes();
  std::vector<Series> cols;
  for (size_t k = 0; k + 1 < lanes; ++k) cols.push_back(RandomWalkRun(rng, "c", 20 + 7 * k, 2));
  std::vector<const Series*> series;
  for (const Series& s : cols) series.push_back(&s);
  const twed_internal::SingleLaneBatch batch(series, row, params, lanes);
  std::vector<double> out(cols.size(), -1.0);
  ASSERT_TRUE(twed_internal::SingleTwedBound(row, batch, params, out).ok());
  for (size_t k = 0; k < cols.size(); ++k) {
    EXPECT_EQ(out[k], Bound({row, cols[k], params})) << k;
    EXPECT_LE(out[k], Twed({row, cols[k], params})) << k;
  }
}

TEST_P(TwedSingleTest, LeavesTheRoundingModeAsItFoundIt) {
  std::mt19937_64 rng(5);
  const TwedCase c{RandomWalkRun(rng, "a", 50, 1), RandomWalkRun(rng, "b", 40, 1),
                   MakeTwedParams(0.01, 0.0)};
  const unsigned int csr = _mm_getcsr();
  Bound(c);
  EXPECT_EQ(std::fegetround(), FE_TONEAREST);
  EXPECT_EQ(_mm_getcsr(), csr);
}

TEST_P(TwedSingleTest, CancelledBeforeItStarts) {
  std::mt19937_64 rng(5);
  const Series a = RandomWalkRun(rng, "a", 50, 1);
  const Series b = RandomWalkRun(rng, "b", 40, 1);
  const Series* series[] = {&b};
  const TwedParams params = MakeTwedParams(0.01, 0.0);
  const twed_internal::SingleLaneBatch batch(series, a, params, twed_internal::SingleLanes());
  CancellationToken token;
  token.Cancel();
  double out = 0.0;
  EXPECT_TRUE(
      absl::IsCancelled(twed_internal::SingleTwedBound(a, batch, params, {&out, 1}, &token)));
}

INSTANTIATE_TEST_SUITE_P(Targets, TwedSingleTest,
                         ::testing::ValuesIn(twed_internal::AvailableBatchTargets()),
                         [](const ::testing::TestParamInfo<twed_internal::BatchTarget>& info) {
                           return info.param.name;
                         });

}  // namespace
}  // namespace wasserwarp
