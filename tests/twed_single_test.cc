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
#include "adversarial_cases.h"
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

using ::wasserwarp::test_data::AdversarialCase;
using ::wasserwarp::test_data::Describe;
using ::wasserwarp::test_data::kAdversarialKinds;
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

// `runs` in single precision relative to `origin`, and pointers to them for a batch.
struct SingleRuns {
  std::vector<twed_internal::SingleRun> runs;
  std::vector<const twed_internal::SingleRun*> pointers;
};
SingleRuns ToSingleRuns(const std::vector<Series>& series,
                        const twed_internal::SingleOrigin& origin, const TwedParams& params) {
  SingleRuns single;
  for (const Series& s : series) single.runs.push_back(ToSingleRun(s, origin, params));
  for (const twed_internal::SingleRun& run : single.runs) single.pointers.push_back(&run);
  return single;
}

double Bound(const TwedCase& c) {
  absl::StatusOr<double> d = twed_internal::SingleTwedBoundOfPair(c.a, c.b, c.params);
  EXPECT_TRUE(d.ok()) << d.status();
  return d.value_or(std::numeric_limits<double>::quiet_NaN());
}

// One pair's bound with both runs relative to `origin`.
double BoundFrom(const TwedCase& c, const twed_internal::SingleOrigin& origin) {
  const twed_internal::SingleRun column = twed_internal::ToSingleRun(c.b, origin, c.params);
  const twed_internal::SingleRun* runs[] = {&column};
  double out = -1.0;
  EXPECT_TRUE(twed_internal::SingleTwedBound(
                  twed_internal::ToSingleRun(c.a, origin, c.params),
                  twed_internal::SingleLaneBatch(runs, twed_internal::SingleLanes()), c.params,
                  {&out, 1})
                  .ok());
  return out;
}

// Relative to the first run's first sample (Bound), and on every other trial also to the other
// run's first sample, to a point far from both and to 0: the lazy transport takes every run of a
// computation relative to one origin, and any origin gives a bound.
TEST_P(TwedSingleTest, NeverAboveTheTwedOnRandomAndAdversarialPairs) {
  std::mt19937_64 rng(19);
  int positive = 0;
  for (int trial = 0; trial < 2400; ++trial) {
    const TwedCase c = AdversarialCase(rng, trial % kAdversarialKinds);
    const double twed = Twed(c);
    std::vector<double> bounds = {Bound(c)};
    if (bounds.front() > 0.0) ++positive;
    if (trial % 2 == 0) {
      twed_internal::SingleOrigin far = twed_internal::OriginAt(c.b);
      for (double& v : far.values) v = 1e3 * v + 37.5;
      far.time += 1e4;
      const twed_internal::SingleOrigin zero{.values = std::vector<double>(c.a.num_channels(), 0.0),
                                             .time = 0.0};
      for (const twed_internal::SingleOrigin& origin : {twed_internal::OriginAt(c.b), far, zero}) {
        bounds.push_back(BoundFrom(c, origin));
      }
    }
    for (size_t k = 0; k < bounds.size(); ++k) {
      ASSERT_GE(bounds[k], 0.0) << Describe(c) << " origin " << k;
      ASSERT_LE(bounds[k], twed) << Describe(c) << " kind " << trial % kAdversarialKinds
                                 << " origin " << k;
    }
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
  const twed_internal::SingleOrigin origin = twed_internal::OriginAt(row);
  const SingleRuns single = ToSingleRuns(cols, origin, params);
  const twed_internal::SingleLaneBatch batch(single.pointers, lanes);
  std::vector<double> out(cols.size(), -1.0);
  ASSERT_TRUE(twed_internal::SingleTwedBound(twed_internal::ToSingleRun(row, origin, params), batch,
                                             params, out)
                  .ok());
  for (size_t k = 0; k < cols.size(); ++k) {
    EXPECT_EQ(out[k], Bound({row, cols[k], params})) << k;
    EXPECT_LE(out[k], Twed({row, cols[k], params})) << k;
  }
}

// Lanes of pairs that share no run, each with its own row series and lengths, give each pair's
// bound bit for bit as the lanes of one row do: the same floats, relative to the same origin.
TEST_P(TwedSingleTest, PairLanesGiveEachPairsBoundAlone) {
  std::mt19937_64 rng(11);
  const size_t lanes = twed_internal::SingleLanes();
  for (const size_t channels : {1, 2, 4}) {
    const TwedParams params = MakeTwedParams(0.01, 0.5, channels == 2 ? 1.0 : 2.0);
    std::vector<Series> rows;
    std::vector<Series> cols;
    for (size_t k = 0; k + 1 < lanes; ++k) {
      rows.push_back(RandomWalkRun(rng, "r", 10 + 9 * k, channels));
      cols.push_back(RandomWalkRun(rng, "c", 80 - 3 * k, channels));
    }
    const twed_internal::SingleOrigin origin = twed_internal::OriginAt(rows.back());
    const SingleRuns single_rows = ToSingleRuns(rows, origin, params);
    const SingleRuns single_cols = ToSingleRuns(cols, origin, params);
    ASSERT_TRUE(twed_internal::SinglePairsSupport(channels, params));
    const twed_internal::SingleLaneBatch row_batch(single_rows.pointers, lanes);
    const twed_internal::SingleLaneBatch batch(single_cols.pointers, lanes);
    std::vector<double> out(rows.size(), -1.0);
    ASSERT_TRUE(twed_internal::SingleTwedBoundOfPairs(row_batch, batch, params, out).ok());
    for (size_t k = 0; k < rows.size(); ++k) {
      const twed_internal::SingleRun* col[] = {single_cols.pointers[k]};
      double alone = -1.0;
      ASSERT_TRUE(twed_internal::SingleTwedBound(single_rows.runs[k],
                                                 twed_internal::SingleLaneBatch(col, lanes), params,
                                                 {&alone, 1})
                      .ok());
      EXPECT_EQ(out[k], alone) << channels << " channels, lane " << k;
      EXPECT_LE(out[k], Twed({rows[k], cols[k], params})) << channels << " channels, lane " << k;
    }
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
  const TwedParams params = MakeTwedParams(0.01, 0.0);
  const twed_internal::SingleOrigin origin = twed_internal::OriginAt(a);
  const twed_internal::SingleRun column = twed_internal::ToSingleRun(b, origin, params);
  const twed_internal::SingleRun* runs[] = {&column};
  const twed_internal::SingleLaneBatch batch(runs, twed_internal::SingleLanes());
  CancellationToken token;
  token.Cancel();
  double out = 0.0;
  EXPECT_TRUE(absl::IsCancelled(twed_internal::SingleTwedBound(
      twed_internal::ToSingleRun(a, origin, params), batch, params, {&out, 1}, &token)));
}

INSTANTIATE_TEST_SUITE_P(Targets, TwedSingleTest,
                         ::testing::ValuesIn(twed_internal::AvailableBatchTargets()),
                         [](const ::testing::TestParamInfo<twed_internal::BatchTarget>& info) {
                           return info.param.name;
                         });

}  // namespace
}  // namespace wasserwarp
