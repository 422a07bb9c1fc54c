// The lazy transport's pair requests and its single-precision and 16-bit bounds against the
// one-pair kernels, on request sets that share lanes by row, by column (what rows leave over) and
// not at all.

#include "twed/pair_requests.h"

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "batch_targets.h"
#include "random_runs.h"
#include "twed/twed_batch.h"
#include "twed/twed_pruned.h"
#include "twed/twed_quantized.h"
#include "twed/twed_single.h"
#include "wasserwarp/cost_matrix.h"
#include "wasserwarp/series.h"
#include "wasserwarp/twed.h"

namespace wasserwarp {
namespace {

using ::wasserwarp::test_data::MakeTwedParams;
using ::wasserwarp::test_data::RandomWalkRuns;

constexpr double kInf = std::numeric_limits<double>::infinity();

// Which pairs of an n x m matrix a test asks for.
enum class Shape {
  kEvery,      // rows leave the same last columns over: they share lanes by column
  kRandom,     // about half the pairs
  kTwoPerRow,  // a plan's shape: few per row and per column
  kOnePerRow   // an assignment's, every pair in full: lanes of pairs that share no run
};

std::vector<size_t> PairsOf(Shape shape, size_t n, size_t m, std::mt19937_64& rng) {
  std::vector<size_t> pairs;
  for (size_t k = 0; k < n * m; ++k) {
    const size_t i = k / m;
    const size_t j = k % m;
    const bool asked = shape == Shape::kEvery       ? true
                       : shape == Shape::kRandom    ? rng() % 2 == 0
                       : shape == Shape::kOnePerRow ? j == (7 * i + 3) % m
                                                    : j == i % m || j == (i + 1) % m;
    if (asked) pairs.push_back(k);
  }
  return pairs;
}

CostMatrixOptions Threads(int threads) {
  CostMatrixOptions options;
  options.max_threads = threads;
  return options;
}

class PairRequestsTest : public testing::OnEveryBatchTarget {};

TEST_P(PairRequestsTest, EveryRequestAsTwedWithinAndEveryBoundBelowTwed) {
  std::mt19937_64 rng(23);
  int checked = 0;
  int bounded = 0;
  for (int trial = 0; trial < 48; ++trial) {
    const Shape shape = static_cast<Shape>(trial % 4);
    const size_t channels = trial % 4 == 3 ? 3 : 1;
    const size_t n = 3 + rng() % 18;
    const size_t m = 3 + rng() % 18;
    const std::vector<Series> rows =
        RandomWalkRuns("r", n, 5 + trial % 20, 40, channels, 100 + trial);
    const std::vector<Series> cols =
        RandomWalkRuns("c", m, 5 + trial % 20, 40, channels, 200 + trial);
    const TwedParams params = MakeTwedParams(0.5, 1.0, 1.0 + trial % 3);
    const std::vector<size_t> pairs = PairsOf(shape, n, m, rng);
    std::vector<double> twed;
    std::vector<PairRequest> requests;
    for (size_t k = 0; k < pairs.size(); ++k) {
      twed.push_back(*Twed(rows[pairs[k] / m], cols[pairs[k] % m], params));
      const double factors[] = {kInf, 1.0, 1.1, 0.8, 0.0};
      const double factor = shape == Shape::kOnePerRow ? kInf : factors[(k + trial) % 5];
      requests.push_back({pairs[k], factor == kInf ? kInf : factor * twed.back()});
    }
    SCOPED_TRACE(absl::StrCat("trial ", trial, ": ", n, " x ", m, ", ", pairs.size(), " pairs"));
    std::vector<std::vector<BoundedTwed>> by_threads;
    for (const int threads : {1, 2}) {
      uint64_t reported = 0;
      absl::StatusOr<std::vector<BoundedTwed>> results =
          ComputePairRequests(rows, cols, params, requests, Threads(threads),
                              [&](size_t, const BoundedTwed&) { ++reported; });
      ASSERT_TRUE(results.ok()) << results.status();
      EXPECT_EQ(reported, requests.size());
      by_threads.push_back(*results);
    }
    for (size_t k = 0; k < requests.size(); ++k) {
      SCOPED_TRACE(absl::StrCat("pair ", requests[k].pair, ", threshold ", requests[k].threshold));
      const BoundedTwed& result = by_threads[0][k];
      EXPECT_EQ(result.within, twed[k] <= requests[k].threshold);
      if (result.within) {
        EXPECT_EQ(result.value, twed[k]);
      } else {
        EXPECT_GE(result.value, requests[k].threshold);
        EXPECT_LE(result.value, twed[k]);
      }
      EXPECT_EQ(by_threads[1][k].within, result.within);
      EXPECT_EQ(by_threads[1][k].value, result.value);
      ++checked;
    }
    if (!twed_internal::SingleSupports(channels, params)) continue;
    const absl::StatusOr<std::vector<double>> bounds =
        ComputePairBounds(rows, cols, params, pairs, Threads(2), nullptr);
    ASSERT_TRUE(bounds.ok()) << bounds.status();
    const absl::StatusOr<std::vector<double>> one_thread =
        ComputePairBounds(rows, cols, params, pairs, Threads(1), nullptr);
    for (size_t k = 0; k < pairs.size(); ++k) {
      EXPECT_LE((*bounds)[k], twed[k]) << "pair " << pairs[k];
      EXPECT_GT((*bounds)[k], 0.9 * twed[k]) << "pair " << pairs[k];
      EXPECT_EQ((*one_thread)[k], (*bounds)[k]) << "pair " << pairs[k];
      ++bounded;
    }
  }
  EXPECT_GT(checked, 2000);
  if (twed_internal::SingleLanes() > 0) {
    EXPECT_GT(bounded, 1000);
  }
}

// The 16-bit bounds of any request set, lanes shared by pairs of one length (lambda > 0) or of
// nearly one length (lambda = 0): each pair's as the kernel gives it alone, whatever the thread
// count, never above its TWED, and the same for a pair asked for among others or alone.
TEST_P(PairRequestsTest, QuantizedBoundsAsEachPairAlone) {
  if (twed_internal::QuantizedLanes() == 0) GTEST_SKIP() << "no 16-bit lanes here";
  std::mt19937_64 rng(29);
  int bounded = 0;
  for (int trial = 0; trial < 24; ++trial) {
    const size_t n = 3 + rng() % 18;
    const size_t m = 3 + rng() % 18;
    const std::vector<Series> rows = RandomWalkRuns("r", n, 5 + trial % 20, 40, 1, 300 + trial);
    const std::vector<Series> cols = RandomWalkRuns("c", m, 5 + trial % 20, 40, 1, 400 + trial);
    const TwedParams params = MakeTwedParams(0.5, trial % 2 == 0 ? 0.0 : 1.0, 2.0);
    const std::vector<size_t> pairs = PairsOf(static_cast<Shape>(trial % 4), n, m, rng);
    SCOPED_TRACE(absl::StrCat("trial ", trial, ": ", n, " x ", m, ", ", pairs.size(), " pairs"));
    std::vector<std::vector<PairQuantizedBound>> by_threads;
    for (const int threads : {1, 2}) {
      uint64_t reported = 0;
      absl::StatusOr<std::vector<PairQuantizedBound>> bounds = ComputePairQuantizedBounds(
          rows, cols, params, pairs, Threads(threads),
          [&](uint64_t pairs_done, uint64_t) { reported += pairs_done; });
      ASSERT_TRUE(bounds.ok()) << bounds.status();
      EXPECT_EQ(reported, pairs.size());
      by_threads.push_back(*std::move(bounds));
    }
    for (size_t k = 0; k < pairs.size(); ++k) {
      const Series& a = rows[pairs[k] / m];
      const Series& b = cols[pairs[k] % m];
      const absl::StatusOr<twed_internal::QuantizedBound> alone =
          twed_internal::QuantizedTwedBoundOfPair(a, b, params);
      ASSERT_TRUE(alone.ok()) << alone.status();
      EXPECT_EQ(by_threads[0][k].bound, alone->bound) << "pair " << pairs[k];
      EXPECT_EQ(by_threads[0][k].estimate, alone->estimate) << "pair " << pairs[k];
      EXPECT_EQ(by_threads[1][k].bound, by_threads[0][k].bound) << "pair " << pairs[k];
      EXPECT_LE(by_threads[0][k].bound, *Twed(a, b, params)) << "pair " << pairs[k];
      ++bounded;
    }
  }
  EXPECT_GT(bounded, 1000);
}

// The plan's edit paths, on lanes of pairs that share no run where the kernels allow (up to 4
// channels) and alone otherwise: each TwedWithPath's, whatever the thread count.
TEST_P(PairRequestsTest, PathsAsTwedWithPath) {
  std::mt19937_64 rng(41);
  int compared = 0;
  for (int trial = 0; trial < 16; ++trial) {
    const size_t channels = trial % 4 == 3 ? 5 : 1 + trial % 3;
    const size_t n = 3 + rng() % 18;
    const size_t m = 3 + rng() % 18;
    const std::vector<Series> rows =
        RandomWalkRuns("r", n, 5 + trial % 20, 40, channels, 500 + trial);
    const std::vector<Series> cols =
        RandomWalkRuns("c", m, 5 + trial % 20, 40, channels, 600 + trial);
    const TwedParams params = MakeTwedParams(0.5, trial % 2 == 0 ? 0.0 : 1.0, 1.0 + trial % 2);
    const std::vector<size_t> pairs = PairsOf(static_cast<Shape>(trial % 4), n, m, rng);
    SCOPED_TRACE(absl::StrCat("trial ", trial, ": ", n, " x ", m, ", ", channels, " channels"));
    std::vector<std::vector<EditPathSummary>> by_threads;
    for (const int threads : {1, 2}) {
      absl::StatusOr<std::vector<EditPathSummary>> paths =
          ComputePairPaths(rows, cols, params, pairs, Threads(threads));
      ASSERT_TRUE(paths.ok()) << paths.status();
      by_threads.push_back(*std::move(paths));
    }
    for (size_t k = 0; k < pairs.size(); ++k) {
      const absl::StatusOr<EditPathSummary> alone =
          TwedWithPath(rows[pairs[k] / m], cols[pairs[k] % m], params);
      ASSERT_TRUE(alone.ok()) << alone.status();
      for (const std::vector<EditPathSummary>& paths : by_threads) {
        EXPECT_EQ(paths[k].distance, alone->distance) << "pair " << pairs[k];
        EXPECT_EQ(paths[k].matches, alone->matches) << "pair " << pairs[k];
        EXPECT_EQ(paths[k].mean_time_shift, alone->mean_time_shift) << "pair " << pairs[k];
      }
      ++compared;
    }
  }
  EXPECT_GT(compared, 300);
}

INSTANTIATE_TEST_SUITE_P(Targets, PairRequestsTest, testing::EveryBatchTarget(),
                         testing::TargetName);

}  // namespace
}  // namespace wasserwarp
