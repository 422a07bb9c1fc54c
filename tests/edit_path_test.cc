#include "wasserwarp/edit_path.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <random>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "random_runs.h"
#include "reference_twed.h"
#include "wasserwarp/series.h"
#include "wasserwarp/twed.h"

namespace wasserwarp {
namespace {

using ::testing::HasSubstr;
using ::wasserwarp::test_data::MakeTwedParams;
using ::wasserwarp::test_data::RandomWalkRun;
using ::wasserwarp::test_data::Sampling;
using ::wasserwarp::testing::ReferenceTwedWithPath;
using ::wasserwarp::testing::UnitSpacedSeries;

// Matches strictly increase in both runs and stay inside them.
void ExpectMonotone(const EditPath& path, const Series& a, const Series& b) {
  ASSERT_FALSE(path.matches.empty());
  EXPECT_EQ(path.matches.front().a, 0u);
  EXPECT_EQ(path.matches.front().b, 0u);
  for (size_t k = 1; k < path.matches.size(); ++k) {
    EXPECT_GT(path.matches[k].a, path.matches[k - 1].a) << k;
    EXPECT_GT(path.matches[k].b, path.matches[k - 1].b) << k;
  }
  EXPECT_LT(path.matches.back().a, a.samples());
  EXPECT_LT(path.matches.back().b, b.samples());
}

TEST(EditPathTest, PublishedValues) {
  const Series a = UnitSpacedSeries("a", {0, 0, 1, 1, 2, 3, 5, 2, 0, 1, -0.1});
  const Series b =
      UnitSpacedSeries("b", {0, 1, 2, 2.5, 3, 3.5, 4, 4.5, 5.5, 2, 0, 0, 0.25, 0.05, 0});
  const Series c = UnitSpacedSeries("c", {4, 4, 3, 3, 3, 3, 2, 5, 2, 0.5, 0.5, 0.5});
  const TwedParams params = MakeTwedParams(0.1, 0.2, 1.0);
  EXPECT_NEAR(TwedEditPath(a, b, params)->distance, 11.9, 1e-9);
  EXPECT_NEAR(TwedEditPath(a, c, params)->distance, 16.3, 1e-9);
  EXPECT_NEAR(TwedEditPath(b, c, params)->distance, 19.9, 1e-9);
}

// The distance is Twed's to 1e-9 relative, and the path is the one the
// textbook DP and TwedWithPath pick under the same tie-breaking.
TEST(EditPathTest, AgreesWithTwedAndTheTextbookPath) {
  std::mt19937_64 rng(17);
  const Sampling sim{0.005, 0.015, 0.0};
  const Sampling ref{0.002, 0.006, 0.1};
  for (int trial = 0; trial < 40; ++trial) {
    const size_t channels = 1 + trial % 3;
    // Both runs last about as long, so that a time window leaves a path.
    const size_t samples = 20 + trial * 7;
    const Series a = RandomWalkRun(rng, "a", samples, channels, sim);
    const Series b = RandomWalkRun(rng, "b", samples * 5 / 2, channels, ref);
    const double p = trial % 4 == 3 ? 1.5 : 1.0 + trial % 2;
    // nu > 0 and lambda > 0: with both 0, many paths tie exactly, and which one
    // wins depends on the order of the additions.
    const TwedParams params =
        MakeTwedParams(0.5 * (trial + 1), 0.1 * (trial % 4 + 1), p,
                       trial % 3 == 2 ? std::optional<double>(0.3) : std::nullopt);
    SCOPED_TRACE(absl::StrCat("trial ", trial));
    const absl::StatusOr<EditPath> path = TwedEditPath(a, b, params);
    ASSERT_TRUE(path.ok()) << path.status();
    const absl::StatusOr<double> twed = Twed(a, b, params);
    ASSERT_TRUE(twed.ok()) << twed.status();
    EXPECT_NEAR(path->distance, *twed, 1e-9 * *twed);

    const absl::StatusOr<EditPathSummary> summary = TwedWithPath(a, b, params);
    ASSERT_TRUE(summary.ok()) << summary.status();
    EXPECT_EQ(path->matches.size(), summary->matches);
    const testing::ReferenceResult reference = ReferenceTwedWithPath(a, b, params);
    EXPECT_EQ(path->matches.size(), reference.matches);
    double shift_sum = 0.0;
    for (const EditPathMatch& match : path->matches) {
      shift_sum += b.times[match.b] - a.times[match.a];
      if (params.time_window) {
        EXPECT_LE(std::abs(b.times[match.b] - a.times[match.a]), *params.time_window);
      }
    }
    EXPECT_NEAR(shift_sum, reference.shift_sum, 1e-9 * (1.0 + std::abs(reference.shift_sum)));
    ExpectMonotone(*path, a, b);
  }
}

// The path's cost summed move by move is its distance: the matches alone
// determine which samples were deleted.
TEST(EditPathTest, PathCostAddsUpToTheDistance) {
  std::mt19937_64 rng(3);
  const Series a = RandomWalkRun(rng, "a", 60, 2);
  const Series b = RandomWalkRun(rng, "b", 80, 2);
  const TwedParams params = MakeTwedParams(2.0, 0.4, 2.0);
  const absl::StatusOr<EditPath> path = TwedEditPath(a, b, params);
  ASSERT_TRUE(path.ok()) << path.status();
  const auto local = [&](size_t i, size_t j) {
    return testing::ReferenceLpCost(a, i, b, j, 2.0) +
           params.nu * std::abs(a.times[i] - b.times[j]);
  };
  const auto deletion = [&](const Series& s, size_t i) {
    return testing::ReferenceLpCost(s, i - 1, s, i, 2.0) +
           params.nu * (s.times[i] - s.times[i - 1]) + params.lambda;
  };
  double cost = local(0, 0);
  for (size_t k = 1; k < path->matches.size(); ++k) {
    const EditPathMatch from = path->matches[k - 1];
    const EditPathMatch to = path->matches[k];
    for (size_t i = from.a + 1; i < to.a; ++i) cost += deletion(a, i);
    for (size_t j = from.b + 1; j < to.b; ++j) cost += deletion(b, j);
    // A match pays the local costs of its own cell and of the cell diagonally
    // before it, whether or not that cell was itself a match.
    cost += local(to.a, to.b) + local(to.a - 1, to.b - 1);
  }
  const EditPathMatch last = path->matches.back();
  for (size_t i = last.a + 1; i < a.samples(); ++i) cost += deletion(a, i);
  for (size_t j = last.b + 1; j < b.samples(); ++j) cost += deletion(b, j);
  EXPECT_NEAR(cost, path->distance, 1e-9 * path->distance);
}

// With nu = lambda = 0 paths tie everywhere; the distance is still Twed's.
TEST(EditPathTest, DistanceWithoutStiffnessOrDeletionCost) {
  std::mt19937_64 rng(29);
  for (int trial = 0; trial < 10; ++trial) {
    const Series a = RandomWalkRun(rng, "a", 30 + trial, 2);
    const Series b = RandomWalkRun(rng, "b", 45 + trial, 2);
    const TwedParams params = MakeTwedParams(0.0, 0.0);
    const absl::StatusOr<EditPath> path = TwedEditPath(a, b, params);
    ASSERT_TRUE(path.ok()) << path.status();
    EXPECT_NEAR(path->distance, *Twed(a, b, params), 1e-9 * path->distance);
    ExpectMonotone(*path, a, b);
  }
}

TEST(EditPathTest, IdenticalRunsMatchSampleForSample) {
  std::mt19937_64 rng(5);
  const Series a = RandomWalkRun(rng, "a", 50, 3);
  const absl::StatusOr<EditPath> path = TwedEditPath(a, a, MakeTwedParams(1.0, 0.5));
  ASSERT_TRUE(path.ok()) << path.status();
  EXPECT_EQ(path->distance, 0.0);
  ASSERT_EQ(path->matches.size(), 50u);
  for (size_t k = 0; k < 50; ++k) {
    EXPECT_EQ(path->matches[k].a, k);
    EXPECT_EQ(path->matches[k].b, k);
  }
}

TEST(EditPathTest, RefusesMatricesOverTheCellCap) {
  std::mt19937_64 rng(7);
  const Series a = RandomWalkRun(rng, "long_a", 100, 1);
  const Series b = RandomWalkRun(rng, "long_b", 100, 1);
  EXPECT_TRUE(TwedEditPath(a, b, MakeTwedParams(1.0, 0.0), 10'000).ok());
  const absl::StatusOr<EditPath> path = TwedEditPath(a, b, MakeTwedParams(1.0, 0.0), 9'999);
  EXPECT_EQ(path.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(path.status().message(), HasSubstr("'long_a'"));
  EXPECT_THAT(path.status().message(), HasSubstr("9999"));
}

TEST(EditPathTest, ErrorsNameTheRuns) {
  const Series a = UnitSpacedSeries("a", {0, 1, 2});
  Series far = UnitSpacedSeries("far", {0, 1, 2});
  for (double& t : far.times) t += 10.0;
  const absl::StatusOr<EditPath> windowed =
      TwedEditPath(a, far, MakeTwedParams(1.0, 0.0, 2.0, 1.0));
  EXPECT_EQ(windowed.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(windowed.status().message(), HasSubstr("'far'"));

  Series two = UnitSpacedSeries("two", {0, 1, 2});
  two.channels.push_back("y");
  two.values = {0, 0, 1, 1, 2, 2};
  EXPECT_EQ(TwedEditPath(a, two, MakeTwedParams(1.0, 0.0)).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(TwedEditPath(a, a, MakeTwedParams(-1.0, 0.0)).status().code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace wasserwarp
