#include "twed/twed_pruned.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <ostream>
#include <random>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "random_runs.h"
#include "reference_twed.h"
#include "twed/twed_batch.h"
#include "wasserwarp/cancellation.h"
#include "wasserwarp/field_error.h"
#include "wasserwarp/series.h"
#include "wasserwarp/twed.h"

namespace wasserwarp {
namespace twed_internal {
void PrintTo(const BatchTarget& target, std::ostream* os) { *os << target.name; }
}  // namespace twed_internal

namespace {

using ::testing::HasSubstr;
using ::wasserwarp::test_data::MakeTwedParams;
using ::wasserwarp::test_data::RandomWalkRun;
using ::wasserwarp::test_data::Sampling;
using ::wasserwarp::test_data::TwedCase;
using ::wasserwarp::testing::ReferenceTwed;
using ::wasserwarp::testing::UnitSpacedSeries;

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kRelTol = 1e-12;
constexpr double kFactors[] = {0.5, 0.9, 1.0, 1.1, 2.0};

// Lengths 1..60, 1 or 3 channels, p 1/2/3, nu and lambda 0 or positive, a window one time in
// three, and one time in four both runs a million seconds late, where time differences round.
TwedCase RandomCase(std::mt19937_64& rng) {
  std::uniform_int_distribution<size_t> length(1, 60);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  const double norms[] = {1.0, 2.0, 3.0};
  const size_t d = rng() % 2 == 0 ? 1 : 3;
  const double offset = rng() % 4 == 0 ? 1e6 : 0.0;
  const double nu = rng() % 4 == 0 ? 0.0 : unit(rng);
  const double lambda = rng() % 4 == 0 ? 0.0 : 2.0 * unit(rng);
  std::optional<double> window;
  if (rng() % 3 == 0) window = 0.5 + 10.0 * unit(rng);
  const double p = norms[rng() % 3];
  const size_t n = length(rng);
  const size_t m = length(rng);
  const double b_start = offset + 4.0 * unit(rng) - 2.0;
  // One draw per statement, so that GCC and Clang (which order arguments differently) test the
  // same pairs.
  Series a = RandomWalkRun(rng, "a", n, d, {0.05, 1.5, offset});
  Series b = RandomWalkRun(rng, "b", m, d, {0.05, 1.5, b_start});
  return {.a = std::move(a), .b = std::move(b), .params = MakeTwedParams(nu, lambda, p, window)};
}

struct Stats {
  int pairs = 0;
  int infeasible = 0;
  int pruned = 0;  // threshold runs that evaluated fewer than n * m cells
};

BoundedTwed Within(const TwedCase& c, double threshold) {
  const absl::StatusOr<BoundedTwed> r = TwedWithin(c.a, c.b, c.params, threshold);
  EXPECT_TRUE(r.ok()) << r.status() << " at threshold " << threshold;
  return r.value_or(BoundedTwed{});
}

// Everything the contract says about one threshold, given the exact distance.
void CheckThreshold(const TwedCase& c, double twed, double threshold, Stats& stats) {
  SCOPED_TRACE(absl::StrCat("threshold ", threshold, " (TWED ", twed, ")"));
  const BoundedTwed r = Within(c, threshold);
  const uint64_t all = TwedCells(c.a, c.b);
  EXPECT_EQ(r.within, twed <= threshold);
  if (r.within) {
    EXPECT_EQ(r.value, twed);
  } else {
    EXPECT_GE(r.value, threshold);
    EXPECT_LE(r.value, twed);
  }
  EXPECT_LE(r.cells, all);
  if (r.cells < all) ++stats.pruned;
}

void CheckPair(const TwedCase& c, Stats& stats) {
  SCOPED_TRACE(Describe(c));
  ++stats.pairs;
  const absl::StatusOr<double> twed = Twed(c.a, c.b, c.params);
  if (!twed.ok()) {
    // A window without a path: Twed's error at every threshold.
    ++stats.infeasible;
    for (const double threshold : {kInf, 1.0, 0.0}) {
      EXPECT_EQ(TwedWithin(c.a, c.b, c.params, threshold).status(), twed.status());
    }
    EXPECT_EQ(*TwedPathUpperBound(c.a, c.b, c.params), kInf);
    return;
  }
  const double reference = ReferenceTwed(c.a, c.b, c.params);
  EXPECT_NEAR(*twed, reference, kRelTol * reference);
  const BoundedTwed full = Within(c, kInf);
  EXPECT_TRUE(full.within);
  EXPECT_EQ(full.value, *twed);
  if (!c.params.time_window) {
    EXPECT_EQ(full.cells, TwedCells(c.a, c.b));
  }
  for (const double f : kFactors) CheckThreshold(c, *twed, f * *twed, stats);
  CheckThreshold(c, *twed, *twed, stats);
  CheckThreshold(c, *twed, 0.0, stats);
  if (*twed > 0.0) CheckThreshold(c, *twed, std::nextafter(*twed, 0.0), stats);
  EXPECT_GE(*TwedPathUpperBound(c.a, c.b, c.params), *twed);
}

TEST(TwedPrunedTest, RandomPairs) {
  std::mt19937_64 rng(1);
  Stats stats;
  for (int trial = 0; trial < 4000; ++trial) {
    const TwedCase c = RandomCase(rng);
    CheckPair(c, stats);
    if (::testing::Test::HasFailure()) break;
  }
  std::cout << stats.pairs << " pairs, " << stats.infeasible << " without a path, " << stats.pruned
            << " pruned threshold runs\n";
  EXPECT_GT(stats.infeasible, 0);
  EXPECT_GT(stats.pruned, stats.pairs);
}

// Small integers at integer times: many equal costs and equal candidates, so that the min and
// the liveness tests meet ties everywhere.
TEST(TwedPrunedTest, SmallIntegerTies) {
  std::mt19937_64 rng(2);
  std::uniform_int_distribution<int> value(0, 3);
  std::uniform_int_distribution<size_t> length(1, 12);
  Stats stats;
  for (int trial = 0; trial < 3000; ++trial) {
    std::vector<double> x(length(rng)), y(length(rng));
    for (double& v : x) v = value(rng);
    for (double& v : y) v = value(rng);
    const std::optional<double> window =
        trial % 3 == 0 ? std::optional<double>(1 + trial % 4) : std::nullopt;
    CheckPair({UnitSpacedSeries("a", x), UnitSpacedSeries("b", y),
               MakeTwedParams(trial % 2, (trial / 2) % 3, 1.0 + trial % 3, window)},
              stats);
    if (::testing::Test::HasFailure()) break;
  }
}

TEST(TwedPrunedTest, IdenticalRunsAreWithinZero) {
  std::mt19937_64 rng(3);
  for (const size_t d : {size_t{1}, size_t{3}}) {
    for (const size_t n : {size_t{1}, size_t{2}, size_t{17}, size_t{60}}) {
      const Series a = RandomWalkRun(rng, "a", n, d, {0.05, 1.5, 1e6});
      for (const std::optional<double> window : {std::optional<double>(), std::optional(0.01)}) {
        const TwedParams params = MakeTwedParams(0.5, 1.0, 2.0, window);
        const absl::StatusOr<BoundedTwed> r = TwedWithin(a, a, params, 0.0);
        ASSERT_TRUE(r.ok()) << r.status();
        EXPECT_TRUE(r->within);
        EXPECT_EQ(r->value, 0.0);
        EXPECT_EQ(*TwedPathUpperBound(a, a, params), 0.0);
        EXPECT_EQ(ReferenceTwed(a, a, params), 0.0);
        // At threshold 0 only the diagonal and its zero-cost neighbours live.
        if (n == 60) {
          EXPECT_LT(r->cells, TwedCells(a, a));
        }
      }
    }
  }
}

TEST(TwedPrunedTest, ConstantAndOneSampleRuns) {
  Stats stats;
  const Series one = UnitSpacedSeries("one", {2.0});
  const Series other = UnitSpacedSeries("other", {-1.0});
  const Series flat = UnitSpacedSeries("flat", std::vector<double>(30, 2.0));
  const Series flat_low = UnitSpacedSeries("flat_low", std::vector<double>(20, 0.5));
  for (const TwedParams& params : {MakeTwedParams(0.0, 0.0), MakeTwedParams(0.1, 1.0, 1.0),
                                   MakeTwedParams(1.0, 0.0, 3.0, 2.5)}) {
    for (const Series* x : {&one, &other, &flat, &flat_low}) {
      for (const Series* y : {&one, &other, &flat, &flat_low}) {
        CheckPair({*x, *y, params}, stats);
      }
    }
  }
}

TEST(TwedPrunedTest, PrunesALongPair) {
  std::mt19937_64 rng(4);
  const Series a = RandomWalkRun(rng, "a", 400, 1);
  Series b = a;
  for (double& v : b.values) v += 0.3;
  for (const std::optional<double> window : {std::optional<double>(), std::optional(1.0)}) {
    const TwedParams params = MakeTwedParams(0.001, 1.0, 2.0, window);
    const double twed = *Twed(a, b, params);
    const BoundedTwed near = *TwedWithin(a, b, params, 1.05 * twed);
    EXPECT_TRUE(near.within);
    EXPECT_EQ(near.value, twed);
    EXPECT_LT(near.cells, TwedCells(a, b) / 2);
    const BoundedTwed below = *TwedWithin(a, b, params, 0.7 * twed);
    EXPECT_FALSE(below.within);
    EXPECT_LT(below.cells, near.cells);
  }
}

TEST(TwedPrunedTest, OverflowIsAboveEveryFiniteThreshold) {
  const Series high{.id = "high", .channels = {"x"}, .times = {0.0}, .values = {1e308}};
  const Series low{.id = "low", .channels = {"x"}, .times = {0.0}, .values = {-1e308}};
  const TwedParams params = MakeTwedParams(0.1, 0.0);
  EXPECT_EQ(TwedWithin(high, low, params, kInf).status(), Twed(high, low, params).status());
  const absl::StatusOr<BoundedTwed> r = TwedWithin(high, low, params, 1e300);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_FALSE(r->within);
  EXPECT_GE(r->value, 1e300);
}

TEST(TwedPrunedTest, RejectsWhatTwedRejects) {
  std::mt19937_64 rng(5);
  const Series a = RandomWalkRun(rng, "left", 5, 2);
  const Series b = RandomWalkRun(rng, "right", 5, 3);
  EXPECT_EQ(TwedWithin(a, b, {}, 1.0).status(), Twed(a, b, {}).status());
  EXPECT_EQ(TwedPathUpperBound(a, b, {}).status(), Twed(a, b, {}).status());
  const TwedParams bad = MakeTwedParams(-0.1, 0.0);
  EXPECT_EQ(TwedWithin(a, a, bad, 1.0).status(), Twed(a, a, bad).status());
  EXPECT_EQ(TwedPathUpperBound(a, a, bad).status(), Twed(a, a, bad).status());
  const Series empty{.id = "empty", .channels = {"c0", "c1"}, .times = {}, .values = {}};
  EXPECT_EQ(TwedWithin(a, empty, {}, 1.0).status(), Twed(a, empty, {}).status());
  EXPECT_EQ(TwedPathUpperBound(empty, a, {}).status(), Twed(empty, a, {}).status());
}

TEST(TwedPrunedTest, RejectsNegativeAndNaNThresholds) {
  std::mt19937_64 rng(6);
  const Series a = RandomWalkRun(rng, "a", 5, 1);
  for (const double threshold : {-1.0, -kInf, std::numeric_limits<double>::quiet_NaN()}) {
    const absl::Status status = TwedWithin(a, a, {}, threshold).status();
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << threshold;
    EXPECT_EQ(ErrorField(status), "threshold");
    EXPECT_THAT(status.message(), HasSubstr("threshold"));
  }
  EXPECT_TRUE(TwedWithin(a, a, {}, -0.0).ok());
}

TEST(TwedPrunedTest, CancelledTokenStopsBeforeStarting) {
  std::mt19937_64 rng(7);
  const Series a = RandomWalkRun(rng, "a", 40, 2);
  CancellationToken token;
  token.Cancel();
  for (const std::optional<double> window : {std::optional<double>(), std::optional(1e9)}) {
    const TwedParams params = MakeTwedParams(0.1, 1.0, 2.0, window);
    EXPECT_EQ(TwedWithin(a, a, params, kInf, &token).status().code(), absl::StatusCode::kCancelled);
  }
}

// About a second of cells uncancelled, twenty times the delay of the cancel.
TEST(TwedPrunedTest, CancelStopsALongComputation) {
  std::mt19937_64 rng(8);
  const Series a = RandomWalkRun(rng, "a", 25000, 1);
  const Series b = RandomWalkRun(rng, "b", 25000, 1);
  for (const std::optional<double> window : {std::optional<double>(), std::optional(1e9)}) {
    const TwedParams params = MakeTwedParams(0.1, 1.0, 2.0, window);
    CancellationToken token;
    std::thread canceller([&token] {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      token.Cancel();
    });
    const absl::Status status = TwedWithin(a, b, params, kInf, &token).status();
    canceller.join();
    EXPECT_EQ(status.code(), absl::StatusCode::kCancelled);
  }
}

// The walk is a real path: never below the textbook DP, and exactly its cost where the walk is
// all matches and deletions forced by the lengths.
TEST(TwedPrunedTest, PathUpperBoundIsAPathCost) {
  const Series a = UnitSpacedSeries("a", {1, 2, 3});
  const Series b = UnitSpacedSeries("b", {4, 5, 6, 7});
  const TwedParams params = MakeTwedParams(0.001, 1.0);
  // Match (1,1), (2,2), (3,3), then delete b's 7: 3 + (3 + 3) + (3 + 3) + (1 + 0.001 + 1).
  EXPECT_NEAR(*TwedPathUpperBound(a, b, params), 17.001, 1e-12);
  EXPECT_GE(*TwedPathUpperBound(a, b, params), ReferenceTwed(a, b, params));
  // A window narrower than the walk's first step.
  const Series late = UnitSpacedSeries("late", {1, 2});
  Series shifted = late;
  for (double& t : shifted.times) t += 5.0;
  EXPECT_EQ(*TwedPathUpperBound(late, shifted, MakeTwedParams(0.1, 0.0, 2.0, 1.0)), kInf);
}

// Within the threshold the pruned value is the batch kernel's too, on every dispatch target.
class TwedPrunedBatchTest : public ::testing::TestWithParam<twed_internal::BatchTarget> {
 protected:
  void SetUp() override { twed_internal::ForceBatchTarget(GetParam().id); }
  void TearDown() override { twed_internal::ForceBatchTarget(0); }
};

TEST_P(TwedPrunedBatchTest, WithinValuesEqualTheBatchKernel) {
  const size_t lanes = twed_internal::BatchLanes();
  if (lanes == 0) GTEST_SKIP() << "no lanes on " << GetParam().name;
  std::mt19937_64 rng(9);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::uniform_int_distribution<size_t> length(1, 60);
  int compared = 0;
  for (int trial = 0; trial < 300; ++trial) {
    const size_t d = trial % 2 == 0 ? 1 : 3;
    const double offset = trial % 4 == 0 ? 1e6 : 0.0;
    const double nu = unit(rng);
    const double lambda = 2.0 * unit(rng);
    const TwedParams params = MakeTwedParams(nu, lambda, 1.0 + trial / 2 % 3);
    if (!twed_internal::BatchSupports(d, params)) continue;
    const size_t n = length(rng);
    const Series a = RandomWalkRun(rng, "a", n, d, {0.05, 1.5, offset});
    std::vector<Series> b;
    for (size_t k = 0; k < 1 + trial % lanes; ++k) {
      const size_t m = length(rng);
      const double start = offset + 4.0 * unit(rng) - 2.0;
      b.push_back(RandomWalkRun(rng, absl::StrCat("b", k), m, d, {0.05, 1.5, start}));
    }
    std::vector<const Series*> pointers;
    for (const Series& s : b) pointers.push_back(&s);
    const twed_internal::LaneBatch batch(pointers, params, lanes);
    std::vector<double> out(b.size());
    ASSERT_TRUE(twed_internal::BatchTwed(a, batch, params, out).ok());
    for (size_t k = 0; k < b.size(); ++k) {
      SCOPED_TRACE(absl::StrCat("trial ", trial, " lane ", k));
      for (const double f : {1.0, 1.1, 2.0}) {
        const BoundedTwed r = *TwedWithin(a, b[k], params, f * out[k]);
        EXPECT_TRUE(r.within);
        EXPECT_EQ(r.value, out[k]);
      }
      EXPECT_EQ(TwedWithin(a, b[k], params, kInf)->value, out[k]);
      ++compared;
    }
  }
  EXPECT_GT(compared, 300);
}

// The lanes pruned each at its own threshold: within exactly where the one-pair kernel is, with
// the same bits, and the threshold as the lower bound otherwise; fewer cells where it prunes.
TEST_P(TwedPrunedBatchTest, PrunedLanesAgreeWithTwedWithin) {
  const size_t lanes = twed_internal::BatchLanes();
  if (lanes == 0) GTEST_SKIP() << "no lanes on " << GetParam().name;
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::uniform_int_distribution<size_t> length(1, 80);
  int within = 0;
  int above = 0;
  uint64_t cells = 0;
  uint64_t full = 0;
  for (int trial = 0; trial < 600; ++trial) {
    const size_t d = trial % 3 == 0 ? 3 : 1;
    const double offset = trial % 5 == 0 ? 1e6 : 0.0;
    const TwedParams params =
        MakeTwedParams(trial % 7 == 0 ? 0.0 : unit(rng), trial % 4 == 0 ? 0.0 : 2.0 * unit(rng),
                       1.0 + trial / 2 % 2);
    if (!twed_internal::BatchSupports(d, params)) continue;
    const size_t n = length(rng);
    const Series a = RandomWalkRun(rng, "a", n, d, {0.05, 1.5, offset});
    std::vector<Series> b;
    for (size_t k = 0; k < 1 + trial % lanes; ++k) {
      // Some lanes a near copy of `a`, whose band is narrow; the others independent walks.
      if (k % 2 == 0) {
        Series copy = a;
        for (double& v : copy.values) v += 0.01 * (unit(rng) - 0.5);
        b.push_back(copy);
      } else {
        const double start = offset + 4.0 * unit(rng) - 2.0;
        b.push_back(RandomWalkRun(rng, absl::StrCat("b", k), length(rng), d, {0.05, 1.5, start}));
      }
    }
    std::vector<const Series*> pointers;
    std::vector<double> thresholds;
    for (const Series& s : b) {
      pointers.push_back(&s);
      const double distance = *Twed(a, s, params);
      const double factors[] = {0.0, 0.5, 0.9, 1.0, 1.05, 2.0, kInf};
      const double factor = factors[(trial + pointers.size()) % 7];
      thresholds.push_back(factor == 1.0 ? distance : factor * distance);
    }
    const twed_internal::LaneBatch batch(pointers, params, lanes);
    std::vector<BoundedTwed> out(b.size());
    ASSERT_TRUE(twed_internal::BatchTwedWithin(a, batch, params, thresholds, out).ok());
    for (size_t k = 0; k < b.size(); ++k) {
      SCOPED_TRACE(absl::StrCat("trial ", trial, " lane ", k, " threshold ", thresholds[k]));
      const double distance = *Twed(a, b[k], params);
      const BoundedTwed one = *TwedWithin(a, b[k], params, thresholds[k]);
      EXPECT_EQ(out[k].within, one.within);
      EXPECT_EQ(out[k].within, distance <= thresholds[k]);
      if (out[k].within) {
        EXPECT_EQ(out[k].value, distance);
        ++within;
      } else {
        EXPECT_GE(out[k].value, thresholds[k]);
        EXPECT_LE(out[k].value, distance);
        ++above;
      }
      EXPECT_LE(out[k].cells, TwedCells(a, b[k]));
      cells += out[k].cells;
      full += TwedCells(a, b[k]);
    }
  }
  EXPECT_GT(within, 300);
  EXPECT_GT(above, 200);
  EXPECT_LT(cells, full);
}

INSTANTIATE_TEST_SUITE_P(Targets, TwedPrunedBatchTest,
                         ::testing::ValuesIn(twed_internal::AvailableBatchTargets()),
                         [](const ::testing::TestParamInfo<twed_internal::BatchTarget>& info) {
                           return info.param.name;
                         });

}  // namespace
}  // namespace wasserwarp
