#include "twed/twed_bounds.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <iostream>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <tuple>
#include <utility>
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
using ::wasserwarp::test_data::TwedCase;
using ::wasserwarp::testing::ReferenceTwed;

// Where a bound is tight it adds the same terms as the DP, or terms that the
// triangle inequality makes equal to them, in another order, so rounding can
// put it a few ulps above the computed distance. 1e-12 relative is far above
// that (hundreds of terms at 1e-16 each) and far below any real violation.
constexpr double kRelTol = 1e-12;

double Ok(const absl::StatusOr<double>& value) {
  EXPECT_TRUE(value.ok()) << value.status();
  return value.value_or(std::numeric_limits<double>::quiet_NaN());
}

bool AtMost(double bound, double distance) { return bound <= distance + kRelTol * distance; }
bool Tight(double bound, double distance) { return bound >= distance - kRelTol * distance; }

size_t RandomLength(std::mt19937_64& rng) {
  switch (rng() % 8) {
    case 0:
    case 1:
      return 1;
    case 2:
      return 2;
    case 3:
      return 100 + rng() % 101;  // against a short run: very different lengths
    default:
      return 1 + rng() % 50;
  }
}

// `a` with a few samples dropped, a few values moved and the times shifted a
// little: pairs whose distance is small and whose optimal path is mostly matches.
Series EditedCopy(std::mt19937_64& rng, const Series& a) {
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  const size_t d = a.num_channels();
  const double shift = rng() % 2 == 0 ? 0.0 : 0.02 * unit(rng);
  Series b{.id = "b", .channels = a.channels, .times = {}, .values = {}};
  for (size_t i = 0; i < a.samples(); ++i) {
    if (i > 0 && rng() % 10 == 0) continue;  // keeping the first sample keeps b a run
    b.times.push_back(a.times[i] + shift);
    for (size_t k = 0; k < d; ++k) {
      b.values.push_back(a.value(i, k) + (rng() % 8 == 0 ? 4.0 * unit(rng) - 2.0 : 0.0));
    }
  }
  return b;
}

// Irregular sampling in three regimes, start offsets from none to 1e6 s, b
// sometimes at another level, and nu and lambda 0 in a fifth of the pairs each.
TwedCase RandomPair(std::mt19937_64& rng) {
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  const Sampling regimes[] = {{0.05, 1.5, 0.0}, {0.001, 5.0, 0.0}, {1.0, 1.0, 0.0}};
  const double offsets[] = {0.0, 1.0, -1.0, 1e3, -1e3};
  const size_t d = rng() % 2 == 0 ? 1 : 3;
  Sampling sa = regimes[rng() % 3];
  Sampling sb = regimes[rng() % 3];
  const double base = rng() % 4 == 0 ? 1e6 : 0.0;
  sa.start_time = base;
  sb.start_time = base + offsets[rng() % 5] * unit(rng);
  const Series a = RandomWalkRun(rng, "a", RandomLength(rng), d, sa);
  TwedCase c{
      .a = a,
      .b = rng() % 4 == 0 ? EditedCopy(rng, a) : RandomWalkRun(rng, "b", RandomLength(rng), d, sb),
      .params = {}};
  // One draw per statement: the order of a call's arguments is the compiler's choice.
  c.params.nu = rng() % 5 == 0 ? 0.0 : std::pow(10.0, 2.5 * unit(rng) - 2.0);
  c.params.lambda = rng() % 5 == 0 ? 0.0 : 3.0 * unit(rng);
  c.params.p = static_cast<double>(1 + rng() % 3);
  if (rng() % 3 == 0) {
    const double level = 20.0 * unit(rng) - 10.0;
    for (double& x : c.b.values) x += level;
  }
  if (rng() % 3 == 0) c.params.time_window = 0.3 + 10.0 * unit(rng);
  return c;
}

// The bounds of one pair against the full DP and the production TWED.
struct Checked {
  bool feasible = false;
  bool single_path = false;
  bool endpoint_tight = false;
  bool envelope_tight = false;
};

Checked CheckPair(const TwedCase& c) {
  SCOPED_TRACE(Describe(c));
  const double reference = ReferenceTwed(c.a, c.b, c.params);
  const double endpoint = Ok(TwedEndpointBound(c.a, c.b, c.params));
  const double envelope = Ok(TwedEnvelopeBound(c.a, c.b, c.params));
  EXPECT_EQ(Ok(TwedPairBound(c.a, c.b, c.params)), std::max(endpoint, envelope));
  const double floor = TwedDeletionFloor(c.a.samples(), c.b.samples(), c.params.lambda);
  // The two per-pair bounds dominate the floor (docs/twed_bounds.md).
  EXPECT_TRUE(AtMost(floor, endpoint)) << floor << " " << endpoint;
  EXPECT_TRUE(AtMost(floor, envelope)) << floor << " " << envelope;
  if (std::isinf(reference)) return {};  // a window that leaves no path: nothing to bound
  const double distance = Ok(Twed(c.a, c.b, c.params));
  for (const double value : {reference, distance}) {
    EXPECT_TRUE(AtMost(floor, value)) << floor << " > " << value;
    EXPECT_TRUE(AtMost(endpoint, value)) << endpoint << " > " << value;
    EXPECT_TRUE(AtMost(envelope, value)) << envelope << " > " << value;
  }
  // One-sample runs leave a single path, which both bounds find: not counted as tight.
  const bool one_path = c.a.samples() == 1 || c.b.samples() == 1;
  return {.feasible = true,
          .single_path = one_path,
          .endpoint_tight = !one_path && Tight(endpoint, distance),
          .envelope_tight = !one_path && Tight(envelope, distance)};
}

TEST(TwedBoundsTest, BelowTheFullDpOnRandomPairs) {
  std::mt19937_64 rng(19);
  int feasible = 0;
  int single_path = 0;
  int endpoint_tight = 0;
  int envelope_tight = 0;
  constexpr int kPairs = 8000;
  for (int trial = 0; trial < kPairs; ++trial) {
    const Checked checked = CheckPair(RandomPair(rng));
    feasible += checked.feasible;
    single_path += checked.feasible && checked.single_path;
    endpoint_tight += checked.endpoint_tight;
    envelope_tight += checked.envelope_tight;
  }
  std::cout << kPairs << " pairs, " << feasible << " with a path, " << single_path
            << " of them with a one-sample run; of the others the endpoint bound is tight on "
            << endpoint_tight << ", the envelope bound on " << envelope_tight << "\n";
  EXPECT_GT(feasible, 5000);
}

// Short runs of small integers on integer times: ties everywhere, many
// bounds tight, and every corner of the recurrence within a few cells.
TEST(TwedBoundsTest, BelowTheFullDpOnSmallIntegerPairs) {
  std::mt19937_64 rng(28);
  const double nus[] = {0.0, 0.5, 1.0};
  const auto small_run = [&](std::string id, size_t d) {
    Series run{.id = std::move(id), .channels = {}, .times = {}, .values = {}};
    for (size_t k = 0; k < d; ++k) run.channels.push_back(absl::StrCat("c", k));
    double t = static_cast<double>(rng() % 4);
    for (size_t i = 0, n = 1 + rng() % 6; i < n; ++i) {
      run.times.push_back(t);
      t += static_cast<double>(1 + rng() % 3);
      for (size_t k = 0; k < d; ++k) run.values.push_back(static_cast<double>(rng() % 5) - 2.0);
    }
    return run;
  };
  int feasible = 0;
  for (int trial = 0; trial < 20000; ++trial) {
    const size_t d = rng() % 2 == 0 ? 1 : 3;
    TwedCase c{.a = small_run("a", d), .b = small_run("b", d), .params = {}};
    c.params.nu = nus[rng() % 3];
    c.params.lambda = static_cast<double>(rng() % 2);
    c.params.p = static_cast<double>(1 + rng() % 3);
    if (rng() % 3 == 0) c.params.time_window = static_cast<double>(1 + rng() % 4);
    feasible += CheckPair(c).feasible;
  }
  std::cout << "20000 small pairs, " << feasible << " with a path\n";
  EXPECT_GT(feasible, 15000);
}

TEST(TwedBoundsTest, WindowOnlyRaisesTheEnvelopeBound) {
  std::mt19937_64 rng(20);
  for (int trial = 0; trial < 1000; ++trial) {
    TwedCase c = RandomPair(rng);
    c.params.time_window = 0.3 + 10.0 * std::uniform_real_distribution<double>(0.0, 1.0)(rng);
    SCOPED_TRACE(Describe(c));
    const double windowed = Ok(TwedEnvelopeBound(c.a, c.b, c.params));
    c.params.time_window.reset();
    EXPECT_TRUE(AtMost(Ok(TwedEnvelopeBound(c.a, c.b, c.params)), windowed));
  }
}

TEST(TwedBoundsTest, IdenticalRunsBoundZero) {
  std::mt19937_64 rng(21);
  for (const size_t d : {1, 3}) {
    for (const size_t n : {1, 2, 40}) {
      const Series a = RandomWalkRun(rng, "a", n, d, {0.05, 1.5, 7.0});
      for (const std::optional<double> window : {std::optional<double>(), std::optional(0.5)}) {
        const TwedParams params = MakeTwedParams(0.3, 1.0, 2.0, window);
        EXPECT_EQ(Ok(Twed(a, a, params)), 0.0);
        EXPECT_EQ(Ok(TwedEndpointBound(a, a, params)), 0.0);
        EXPECT_EQ(Ok(TwedEnvelopeBound(a, a, params)), 0.0);
      }
    }
  }
}

// A run of one sample leaves a single path: both bounds are its cost, the
// endpoint bound to the bit because it adds in the DP's order.
TEST(TwedBoundsTest, OneSampleRunsAreExact) {
  std::mt19937_64 rng(22);
  for (const size_t d : {1, 3}) {
    const Series one = RandomWalkRun(rng, "one", 1, d, {0.5, 0.5, 3.0});
    for (const size_t m : {1, 2, 30, 500}) {
      const Series other = RandomWalkRun(rng, "other", m, d, {0.05, 1.5, 0.0});
      for (const std::optional<double> window : {std::optional<double>(), std::optional(1e9)}) {
        const TwedParams params = MakeTwedParams(0.2, 0.7, 2.0, window);
        for (const auto& [a, b] : {std::pair(&one, &other), std::pair(&other, &one)}) {
          SCOPED_TRACE(absl::StrCat("n=", a->samples(), " m=", b->samples(), " d=", d));
          const double distance = Ok(Twed(*a, *b, params));
          EXPECT_EQ(Ok(TwedEndpointBound(*a, *b, params)), distance);
          const double envelope = Ok(TwedEnvelopeBound(*a, *b, params));
          EXPECT_TRUE(AtMost(envelope, distance) && Tight(envelope, distance))
              << envelope << " vs " << distance;
        }
      }
    }
  }
}

// With deletions dearer than any mismatch the optimal path matches every
// sample, and a single differing sample at either end is all it pays for:
// once (L(n,n)) at the end, twice (start and first match) at the start.
TEST(TwedBoundsTest, EndpointBoundIsTightWhenOnlyAnEndDiffers) {
  std::mt19937_64 rng(23);
  for (const size_t d : {1, 3}) {
    const Series a = RandomWalkRun(rng, "a", 30, d, {0.05, 1.5, 100.0});
    const TwedParams params = MakeTwedParams(0.1, 100.0);
    Series last = a;
    last.id = "last";
    for (size_t k = 0; k < d; ++k) last.values[(a.samples() - 1) * d + k] += 5.0;
    last.times.back() += 0.3;
    Series first = a;
    first.id = "first";
    for (size_t k = 0; k < d; ++k) first.values[k] -= 2.0;
    first.times.front() -= 0.4;
    for (const Series* b : {&last, &first}) {
      SCOPED_TRACE(absl::StrCat(b->id, " d=", d));
      const double distance = Ok(Twed(a, *b, params));
      EXPECT_GT(distance, 0.0);
      EXPECT_EQ(Ok(TwedEndpointBound(a, *b, params)), distance);
      EXPECT_EQ(Ok(TwedEndpointBound(*b, a, params)), distance);
    }
  }
}

// Two constant runs at different levels on one time grid: every match costs
// the level gap in each of its two cells, which is what the envelope charges
// every row; the extra samples of the longer run are deleted at their cost.
TEST(TwedBoundsTest, EnvelopeBoundIsTightForConstantRuns) {
  for (const size_t d : {1, 3}) {
    for (const auto& [n, m] : {std::pair<size_t, size_t>(10, 10), {10, 25}, {25, 10}}) {
      Series a{.id = "low", .channels = {}, .times = {}, .values = {}};
      Series b{.id = "high", .channels = {}, .times = {}, .values = {}};
      for (size_t k = 0; k < d; ++k) {
        a.channels.push_back(absl::StrCat("c", k));
        b.channels.push_back(absl::StrCat("c", k));
      }
      for (size_t i = 0; i < n; ++i) a.times.push_back(static_cast<double>(i));
      for (size_t j = 0; j < m; ++j) b.times.push_back(static_cast<double>(j));
      a.values.assign(n * d, 0.0);
      b.values.assign(m * d, 2.0);
      const TwedParams params = MakeTwedParams(0.1, 10.0);
      SCOPED_TRACE(absl::StrCat("n=", n, " m=", m, " d=", d));
      const double distance = Ok(Twed(a, b, params));
      const double envelope = Ok(TwedEnvelopeBound(a, b, params));
      EXPECT_TRUE(AtMost(envelope, distance) && Tight(envelope, distance))
          << envelope << " vs " << distance;
    }
  }
}

// A shifted copy and runs of very different lengths: far from tight, but still below.
TEST(TwedBoundsTest, BelowOnShiftedCopiesAndLengthMismatches) {
  std::mt19937_64 rng(24);
  const Series a = RandomWalkRun(rng, "a", 60, 2, {0.05, 1.5, 0.0});
  Series shifted = a;
  shifted.id = "shifted";
  for (double& t : shifted.times) t += 0.25;
  std::vector<TwedCase> pairs = {{a, shifted, MakeTwedParams(0.1, 1.0)}};
  for (const auto& [n, m] : {std::pair<size_t, size_t>(2, 300), {1, 400}, {5, 400}, {300, 3}}) {
    pairs.push_back({RandomWalkRun(rng, "a", n, 2, {0.05, 1.5, 0.0}),
                     RandomWalkRun(rng, "b", m, 2, {0.001, 0.1, 0.5}), MakeTwedParams(0.5, 0.2)});
  }
  for (const TwedCase& c : pairs) CheckPair(c);
}

TEST(TwedBoundsTest, BoundsRejectWhatTwedRejects) {
  std::mt19937_64 rng(25);
  const Series a = RandomWalkRun(rng, "left", 5, 2, {0.05, 1.5, 0.0});
  const Series b = RandomWalkRun(rng, "right", 5, 3, {0.05, 1.5, 0.0});
  const Series empty{.id = "empty", .channels = {"c0", "c1"}, .times = {}, .values = {}};
  const TwedParams bad_nu = MakeTwedParams(-1.0, 0.0);
  for (const auto& [x, y, params] :
       {std::tuple(&a, &b, TwedParams{}), std::tuple(&a, &empty, TwedParams{}),
        std::tuple(&a, &a, bad_nu)}) {
    const absl::Status expected = Twed(*x, *y, params).status();
    ASSERT_FALSE(expected.ok());
    EXPECT_EQ(TwedEndpointBound(*x, *y, params).status(), expected);
    EXPECT_EQ(TwedEnvelopeBound(*x, *y, params).status(), expected);
    EXPECT_EQ(TwedPairBound(*x, *y, params).status(), expected);
  }
}

TEST(TwedBoundsTest, DeletionFloor) {
  EXPECT_EQ(TwedDeletionFloor(10, 14, 0.5), 2.0);
  EXPECT_EQ(TwedDeletionFloor(14, 10, 0.5), 2.0);
  EXPECT_EQ(TwedDeletionFloor(7, 7, 3.0), 0.0);
  EXPECT_EQ(TwedDeletionFloor(1, uint64_t{1} << 40, 0.0), 0.0);
  EXPECT_EQ(TwedDeletionFloor(uint64_t{1} << 40, 1, 1.0),
            static_cast<double>((uint64_t{1} << 40) - 1));
}

// Distances of a run to pivot runs, as a caller would have them.
std::vector<double> ToPivots(const Series& run, const std::vector<Series>& pivots,
                             const TwedParams& params) {
  std::vector<double> distances;
  for (const Series& pivot : pivots) distances.push_back(Ok(Twed(run, pivot, params)));
  return distances;
}

TEST(TwedBoundsTest, PivotBoundBelowTheFullDp) {
  std::mt19937_64 rng(26);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  int checked = 0;
  for (int trial = 0; trial < 400; ++trial) {
    TwedCase c = RandomPair(rng);
    c.params.time_window.reset();
    SCOPED_TRACE(Describe(c));
    const size_t d = c.a.num_channels();
    std::vector<Series> pivots;
    for (int k = 0; k < 6; ++k) {
      const size_t length = RandomLength(rng);
      const double start = 4.0 * unit(rng) - 2.0;
      pivots.push_back(RandomWalkRun(rng, absl::StrCat("p", k), length, d, {0.05, 1.5, start}));
    }
    const std::vector<double> from_a = ToPivots(c.a, pivots, c.params);
    const std::vector<double> from_b = ToPivots(c.b, pivots, c.params);
    const double reference = ReferenceTwed(c.a, c.b, c.params);
    const double distance = Ok(Twed(c.a, c.b, c.params));
    const double best = Ok(TwedPivotsBound(from_a, from_b, c.params));
    // The difference cancels the distances to the pivot but not their
    // rounding: a pivot far from both runs (1e6 s away, here) leaves an
    // error of ulps of TWED(a, p), not of TWED(a, b).
    double scale = distance;
    for (size_t k = 0; k < pivots.size(); ++k) {
      const double single = Ok(TwedPivotBound(from_a[k], from_b[k], c.params));
      EXPECT_LE(single, best);
      EXPECT_LE(single, distance + kRelTol * (distance + from_a[k] + from_b[k]));
      scale = std::max(scale, distance + from_a[k] + from_b[k]);
    }
    EXPECT_LE(best, reference + kRelTol * scale);
    EXPECT_LE(best, distance + kRelTol * scale);
    ++checked;
  }
  EXPECT_EQ(checked, 400);
}

// A pivot that is one of the two runs bounds their distance by itself.
TEST(TwedBoundsTest, PivotBoundIsTightAtAnEndpoint) {
  std::mt19937_64 rng(27);
  for (int trial = 0; trial < 50; ++trial) {
    TwedCase c = RandomPair(rng);
    c.params.time_window.reset();
    const double distance = Ok(Twed(c.a, c.b, c.params));
    const double bound = Ok(TwedPivotBound(0.0, Ok(Twed(c.b, c.a, c.params)), c.params));
    EXPECT_TRUE(AtMost(bound, distance) && Tight(bound, distance)) << Describe(c);
  }
}

// Why the pivot bounds refuse a window: a and c each align with b within it,
// but not with each other, so TWED(a, c) <= TWED(a, b) + TWED(b, c) fails.
TEST(TwedBoundsTest, WindowBreaksTheTriangleInequality) {
  const Series a{.id = "a", .channels = {"x"}, .times = {0.0}, .values = {1.0}};
  const Series b{.id = "b", .channels = {"x"}, .times = {5.0}, .values = {1.0}};
  const Series c{.id = "c", .channels = {"x"}, .times = {10.0}, .values = {1.0}};
  const TwedParams params = MakeTwedParams(0.1, 1.0, 2.0, 6.0);
  EXPECT_TRUE(Twed(a, b, params).ok());
  EXPECT_TRUE(Twed(b, c, params).ok());
  EXPECT_EQ(Twed(a, c, params).status().code(), absl::StatusCode::kInvalidArgument);

  const absl::StatusOr<double> bound = TwedPivotBound(0.5, 0.5, params);
  EXPECT_EQ(bound.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(bound.status().message(), HasSubstr("time_window"));
}

TEST(TwedBoundsTest, PivotBoundsRejectBadDistances) {
  const TwedParams params = MakeTwedParams(0.1, 1.0);
  const std::vector<double> two = {1.0, 2.0};
  const std::vector<double> three = {1.0, 2.0, 3.0};
  EXPECT_EQ(TwedPivotsBound(two, three, params).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(Ok(TwedPivotsBound({}, {}, params)), 0.0);
  for (const double bad :
       {-1.0, std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity()}) {
    EXPECT_EQ(TwedPivotBound(bad, 1.0, params).status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_EQ(TwedPivotBound(1.0, bad, params).status().code(), absl::StatusCode::kInvalidArgument);
  }
  EXPECT_EQ(TwedPivotBound(1.0, 2.0, MakeTwedParams(-0.1, 1.0)).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(Ok(TwedPivotsBound(two, std::vector<double>{4.0, 2.5}, params)), 3.0);
}

}  // namespace
}  // namespace wasserwarp
