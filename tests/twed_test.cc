#include "wasserwarp/twed.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstddef>
#include <limits>
#include <optional>
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
#include "wasserwarp/cancellation.h"
#include "wasserwarp/series.h"

namespace wasserwarp {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::wasserwarp::test_data::MakeTwedParams;
using ::wasserwarp::test_data::RandomWalkRun;
using ::wasserwarp::test_data::Sampling;

// Irregular gaps of 0.05 to 1.5 s: time mismatch weighs as much as values.
constexpr Sampling kGaps{0.05, 1.5, 0.0};
using ::wasserwarp::testing::ReferenceResult;
using ::wasserwarp::testing::ReferenceTwed;
using ::wasserwarp::testing::ReferenceTwedWithPath;
using ::wasserwarp::testing::UnitSpacedSeries;

constexpr double kRelTol = 1e-12;

double Ok(const absl::StatusOr<double>& distance) {
  EXPECT_TRUE(distance.ok()) << distance.status();
  return distance.value_or(std::numeric_limits<double>::quiet_NaN());
}

std::vector<double> Range(double first, double last) {
  std::vector<double> values;
  for (double x = first; x <= last; x += 1.0) values.push_back(x);
  return values;
}

struct Published {
  std::vector<double> a;
  std::vector<double> b;
  double nu;
  double lambda;
  double twed;
};

std::vector<Published> PublishedValues() {
  const std::vector<double> s1 = {0, 0, 1, 1, 2, 3, 5, 2, 0, 1, -0.1};
  const std::vector<double> s2 = {0, 1, 2, 2.5, 3, 3.5, 4, 4.5, 5.5, 2, 0, 0, 0.25, 0.05, 0};
  const std::vector<double> s3 = {4, 4, 3, 3, 3, 3, 2, 5, 2, 0.5, 0.5, 0.5};
  return {
      {{573,  375,  301,  212,  55,  34,   25,   33,  113, 143, 303, 615,
        1226, 1281, 1221, 1081, 866, 1096, 1039, 975, 746, 581, 409, 182},
       {603,  348,  176,  177,  47,   30,   40,   42,   101, 180, 401, 777,
        1344, 1573, 1408, 1243, 1141, 1178, 1256, 1114, 814, 635, 304, 168},
       0.001,
       1,
       3030.036},
      {s1, s2, 0.1, 0.2, 11.9},
      {s1, s3, 0.1, 0.2, 16.3},
      {s2, s3, 0.1, 0.2, 19.9},
      {Range(1, 10), Range(11, 20), 0.001, 1, 46.018},
      {Range(1, 3), Range(4, 7), 0.001, 1, 13.005},
  };
}

TEST(TwedTest, PublishedValues) {
  for (const Published& row : PublishedValues()) {
    const Series a = UnitSpacedSeries("a", row.a);
    const Series b = UnitSpacedSeries("b", row.b);
    const TwedParams params = MakeTwedParams(row.nu, row.lambda);
    const double distance = Ok(Twed(a, b, params));
    // The published values are rounded to 3 decimals.
    EXPECT_NEAR(distance, row.twed, 5e-4) << "expected " << row.twed;
    EXPECT_NEAR(distance, ReferenceTwed(a, b, params), kRelTol * row.twed);
  }
}

// Random inputs in the shapes the tests below sweep.
struct RandomCase {
  Series a;
  Series b;
  TwedParams params;
};

RandomCase MakeRandomCase(std::mt19937_64& rng, size_t max_length) {
  std::uniform_int_distribution<size_t> length(1, max_length);
  std::uniform_int_distribution<size_t> channels(1, 4);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  const double norms[] = {1.0, 2.0, 3.0};
  const size_t d = channels(rng);
  return {
      .a = RandomWalkRun(rng, "a", length(rng), d, kGaps),
      .b = RandomWalkRun(rng, "b", length(rng), d, {0.05, 1.5, 4.0 * unit(rng) - 2.0}),
      .params = MakeTwedParams(unit(rng), 2.0 * unit(rng), norms[rng() % 3]),
  };
}

std::string Describe(const RandomCase& c) {
  std::string s = absl::StrCat("n=", c.a.samples(), " m=", c.b.samples(), " d=", c.a.num_channels(),
                               " p=", c.params.p);
  if (c.params.time_window) absl::StrAppend(&s, " w=", *c.params.time_window);
  return s;
}

TEST(TwedTest, MatchesReferenceWithoutWindow) {
  std::mt19937_64 rng(1);
  for (int trial = 0; trial < 400; ++trial) {
    RandomCase c = MakeRandomCase(rng, 60);
    SCOPED_TRACE(Describe(c));
    const double distance = Ok(Twed(c.a, c.b, c.params));
    const double reference = ReferenceTwed(c.a, c.b, c.params);
    EXPECT_NEAR(distance, reference, kRelTol * reference);
    // A window wider than both series runs the banded kernel over every cell:
    // it must agree with the strip kernel to the bit.
    c.params.time_window = 1e6;
    EXPECT_EQ(Ok(Twed(c.a, c.b, c.params)), distance);
  }
}

TEST(TwedTest, MatchesReferenceWithWindow) {
  std::mt19937_64 rng(2);
  std::uniform_real_distribution<double> window(0.3, 8.0);
  int feasible = 0;
  int infeasible = 0;
  for (int trial = 0; trial < 400; ++trial) {
    RandomCase c = MakeRandomCase(rng, 60);
    c.params.time_window = window(rng);
    SCOPED_TRACE(Describe(c));
    const absl::StatusOr<double> distance = Twed(c.a, c.b, c.params);
    const double reference = ReferenceTwed(c.a, c.b, c.params);
    if (std::isinf(reference)) {
      ++infeasible;
      EXPECT_EQ(distance.status().code(), absl::StatusCode::kInvalidArgument);
      EXPECT_THAT(distance.status().message(),
                  AllOf(HasSubstr("'a'"), HasSubstr("'b'"), HasSubstr("window")));
    } else {
      ++feasible;
      EXPECT_NEAR(Ok(distance), reference, kRelTol * reference);
    }
  }
  EXPECT_GT(feasible, 50);
  EXPECT_GT(infeasible, 50);
}

TEST(TwedTest, PathMatchesTwedAndReference) {
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> window(0.5, 8.0);
  int checked = 0;
  for (int trial = 0; trial < 600; ++trial) {
    RandomCase c = MakeRandomCase(rng, 60);
    if (trial % 2 == 1) c.params.time_window = window(rng);
    SCOPED_TRACE(Describe(c));
    const absl::StatusOr<double> distance = Twed(c.a, c.b, c.params);
    const absl::StatusOr<EditPathSummary> path = TwedWithPath(c.a, c.b, c.params);
    ASSERT_EQ(path.status(), distance.status());
    if (!path.ok()) continue;
    ++checked;
    EXPECT_EQ(path->distance, *distance);
    EXPECT_EQ(path->matches + path->a_deletions, c.a.samples());
    EXPECT_EQ(path->matches + path->b_deletions, c.b.samples());
    // Exact ties between different paths have probability zero on these
    // inputs, so the reference walks the same path.
    const ReferenceResult reference = ReferenceTwedWithPath(c.a, c.b, c.params);
    EXPECT_EQ(path->matches, reference.matches);
    EXPECT_EQ(path->a_deletions, reference.a_deletions);
    EXPECT_EQ(path->b_deletions, reference.b_deletions);
    EXPECT_NEAR(path->mean_time_shift, reference.shift_sum / reference.matches, 1e-9);
  }
  EXPECT_GT(checked, 300);
}

TEST(TwedTest, IdentitySymmetryAndNonNegativity) {
  std::mt19937_64 rng(4);
  for (int trial = 0; trial < 100; ++trial) {
    const RandomCase c = MakeRandomCase(rng, 40);
    SCOPED_TRACE(Describe(c));
    EXPECT_EQ(Ok(Twed(c.a, c.a, c.params)), 0.0);
    const double ab = Ok(Twed(c.a, c.b, c.params));
    EXPECT_GE(ab, 0.0);
    EXPECT_NEAR(Ok(Twed(c.b, c.a, c.params)), ab, kRelTol * ab);
  }
}

TEST(TwedTest, TriangleInequality) {
  std::mt19937_64 rng(5);
  std::uniform_int_distribution<size_t> length(1, 30);
  for (int trial = 0; trial < 200; ++trial) {
    RandomCase c = MakeRandomCase(rng, 30);
    c.params.nu += 1e-3;  // TWED is a metric only for nu > 0
    const Series x = RandomWalkRun(rng, "c", length(rng), c.a.num_channels(), {0.05, 1.5, -1.0});
    SCOPED_TRACE(Describe(c));
    const double ac = Ok(Twed(c.a, x, c.params));
    const double ab = Ok(Twed(c.a, c.b, c.params));
    const double bc = Ok(Twed(c.b, x, c.params));
    EXPECT_LE(ac, (ab + bc) * (1.0 + kRelTol));
  }
}

TEST(TwedTest, TimeShiftInvariance) {
  std::mt19937_64 rng(6);
  for (int trial = 0; trial < 100; ++trial) {
    RandomCase c = MakeRandomCase(rng, 40);
    SCOPED_TRACE(Describe(c));
    const double distance = Ok(Twed(c.a, c.b, c.params));
    for (double& t : c.a.times) t += 1234.5;
    for (double& t : c.b.times) t += 1234.5;
    EXPECT_NEAR(Ok(Twed(c.a, c.b, c.params)), distance, 1e-9 * distance);
  }
}

TEST(TwedTest, LengthOneSeries) {
  const Series one{.id = "one", .channels = {"x"}, .times = {0.0}, .values = {5.0}};
  const Series three{
      .id = "three", .channels = {"x"}, .times = {0.0, 1.0, 3.0}, .values = {1.0, 2.0, 4.0}};
  const TwedParams params = MakeTwedParams(0.5, 2.0);
  // D(1,1) = |5 - 1| = 4, then two deletions in b: (1 + 0.5 + 2) and (2 + 1 + 2).
  EXPECT_EQ(Ok(Twed(one, three, params)), 12.5);
  EXPECT_EQ(Ok(Twed(three, one, params)), 12.5);
  const Series other{.id = "other", .channels = {"x"}, .times = {2.0}, .values = {3.5}};
  EXPECT_EQ(Ok(Twed(one, other, params)), 1.5 + 0.5 * 2.0);

  const absl::StatusOr<EditPathSummary> path = TwedWithPath(three, one, params);
  ASSERT_TRUE(path.ok()) << path.status();
  EXPECT_EQ(path->distance, 12.5);
  EXPECT_EQ(path->matches, 1);
  EXPECT_EQ(path->a_deletions, 2);
  EXPECT_EQ(path->b_deletions, 0);
  EXPECT_EQ(path->mean_time_shift, 0.0);
}

TEST(TwedTest, PathOfShiftedCopy) {
  std::mt19937_64 rng(7);
  const Series a = RandomWalkRun(rng, "a", 50, 2, kGaps);
  Series b = a;
  b.id = "b";
  for (double& t : b.times) t += 0.25;
  const absl::StatusOr<EditPathSummary> path = TwedWithPath(a, b, MakeTwedParams(0.1, 1.0));
  ASSERT_TRUE(path.ok()) << path.status();
  // Matching everything costs nu * 0.25 for (1,1) and twice that for every later match.
  EXPECT_NEAR(path->distance, 0.1 * 0.25 * (2 * 50 - 1), 1e-12);
  EXPECT_EQ(path->matches, 50);
  EXPECT_EQ(path->a_deletions, 0);
  EXPECT_EQ(path->b_deletions, 0);
  EXPECT_NEAR(path->mean_time_shift, 0.25, 1e-12);
}

TEST(TwedTest, CancelledTokenStopsBeforeStarting) {
  std::mt19937_64 rng(9);
  const Series a = RandomWalkRun(rng, "a", 40, 2, kGaps);
  const Series b = RandomWalkRun(rng, "b", 30, 2, kGaps);
  CancellationToken token;
  token.Cancel();
  for (const std::optional<double> window : {std::optional<double>(), std::optional<double>(1e9)}) {
    TwedParams params = MakeTwedParams(0.1, 1.0);
    params.time_window = window;
    EXPECT_EQ(Twed(a, b, params, &token).status().code(), absl::StatusCode::kCancelled);
    EXPECT_EQ(TwedWithPath(a, b, params, &token).status().code(), absl::StatusCode::kCancelled);
    EXPECT_TRUE(Twed(a, b, params).ok());
  }
}

// Each computation takes about a second uncancelled, twenty times the delay
// of the cancel, so only the kernels' own polling can make it Cancelled.
TEST(TwedTest, CancelStopsALongComputation) {
  std::mt19937_64 rng(10);
  const Series a = RandomWalkRun(rng, "a", 25000, 1, kGaps);
  const Series b = RandomWalkRun(rng, "b", 25000, 1, kGaps);
  const auto cancelled_after_50ms = [](const auto& compute) {
    CancellationToken token;
    std::thread canceller([&token] {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      token.Cancel();
    });
    const absl::Status status = compute(&token);
    canceller.join();
    return status;
  };
  // A window wider than the runs keeps every cell while taking the banded kernel.
  for (const std::optional<double> window : {std::optional<double>(), std::optional<double>(1e9)}) {
    TwedParams params = MakeTwedParams(0.1, 1.0);
    params.time_window = window;
    EXPECT_EQ(cancelled_after_50ms([&](const CancellationToken* token) {
                return Twed(a, b, params, token).status();
              }).code(),
              absl::StatusCode::kCancelled);
    EXPECT_EQ(cancelled_after_50ms([&](const CancellationToken* token) {
                return TwedWithPath(a, b, params, token).status();
              }).code(),
              absl::StatusCode::kCancelled);
  }
}

TEST(TwedTest, Cells) {
  std::mt19937_64 rng(8);
  EXPECT_EQ(TwedCells(RandomWalkRun(rng, "a", 7, 1, kGaps), RandomWalkRun(rng, "b", 11, 1, kGaps)),
            77);
}

TEST(TwedTest, RejectsDifferentChannelCounts) {
  std::mt19937_64 rng(9);
  const Series a = RandomWalkRun(rng, "left", 5, 2, kGaps);
  const Series b = RandomWalkRun(rng, "right", 5, 3, kGaps);
  for (const absl::Status& status : {Twed(a, b, {}).status(), TwedWithPath(a, b, {}).status()}) {
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(status.message(), AllOf(HasSubstr("left"), HasSubstr("right")));
  }
}

TEST(TwedTest, RejectsInvalidParams) {
  constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
  constexpr double kInf = std::numeric_limits<double>::infinity();
  EXPECT_TRUE(ValidateTwedParams({}).ok());
  EXPECT_TRUE(ValidateTwedParams(MakeTwedParams(0.0, 0.0, 1.0, 0.1)).ok());
  const std::vector<TwedParams> invalid = {
      MakeTwedParams(-0.1, 0.0),           MakeTwedParams(kNaN, 0.0),
      MakeTwedParams(kInf, 0.0),           MakeTwedParams(0.1, -1.0),
      MakeTwedParams(0.1, kNaN),           MakeTwedParams(0.1, 0.0, 0.5),
      MakeTwedParams(0.1, 0.0, kNaN),      MakeTwedParams(0.1, 0.0, kInf),
      MakeTwedParams(0.1, 0.0, 2.0, 0.0),  MakeTwedParams(0.1, 0.0, 2.0, -1.0),
      MakeTwedParams(0.1, 0.0, 2.0, kNaN), MakeTwedParams(0.1, 0.0, 2.0, kInf),
  };
  std::mt19937_64 rng(10);
  const Series a = RandomWalkRun(rng, "a", 5, 1, kGaps);
  for (const TwedParams& params : invalid) {
    EXPECT_EQ(ValidateTwedParams(params).code(), absl::StatusCode::kInvalidArgument);
    EXPECT_EQ(Twed(a, a, params).status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_EQ(TwedWithPath(a, a, params).status().code(), absl::StatusCode::kInvalidArgument);
  }
}

TEST(TwedTest, ReportsOverflow) {
  const Series high{.id = "high", .channels = {"x"}, .times = {0.0}, .values = {1e308}};
  const Series low{.id = "low", .channels = {"x"}, .times = {0.0}, .values = {-1e308}};
  const absl::Status status = Twed(high, low, MakeTwedParams(0.1, 0.0)).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kOutOfRange);
  EXPECT_THAT(status.message(), AllOf(HasSubstr("high"), HasSubstr("low")));
  EXPECT_EQ(TwedWithPath(high, low, MakeTwedParams(0.1, 0.0)).status(), status);
}

TEST(TwedTest, RejectsInvalidSeries) {
  std::mt19937_64 rng(11);
  const Series good = RandomWalkRun(rng, "good", 5, 1, kGaps);
  Series unsorted = good;
  unsorted.id = "unsorted";
  std::swap(unsorted.times[1], unsorted.times[2]);
  const Series empty{.id = "empty", .channels = {"c0"}, .times = {}, .values = {}};
  for (const Series& bad : {unsorted, empty}) {
    for (const absl::Status& status : {Twed(good, bad, {}).status(), Twed(bad, good, {}).status(),
                                       TwedWithPath(good, bad, {}).status()}) {
      EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
      EXPECT_THAT(status.message(), HasSubstr(bad.id));
    }
  }
}

}  // namespace
}  // namespace wasserwarp
