#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "random_runs.h"
#include "wasserwarp/cancellation.h"
#include "wasserwarp/cost_matrix.h"
#include "wasserwarp/twed.h"
#include "wasserwarp/verdict.h"

namespace wasserwarp {
namespace {

using test_data::MakeTwedParams;
using test_data::RandomWalkRuns;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::vector<Series> Concatenate(const std::vector<Series>& a, const std::vector<Series>& b) {
  std::vector<Series> all = a;
  all.insert(all.end(), b.begin(), b.end());
  return all;
}

// Every pooled entry against Twed() of its pair, the earlier run first.
void ExpectPairwiseTwed(const CostMatrix& pooled, const std::vector<Series>& runs,
                        const TwedParams& params) {
  ASSERT_EQ(pooled.rows, runs.size());
  ASSERT_EQ(pooled.cols, runs.size());
  for (size_t i = 0; i < runs.size(); ++i) {
    EXPECT_EQ(pooled.at(i, i), 0.0) << i;
    for (size_t j = i + 1; j < runs.size(); ++j) {
      EXPECT_EQ(pooled.at(i, j), *Twed(runs[i], runs[j], params)) << i << "," << j;
      EXPECT_EQ(pooled.at(j, i), pooled.at(i, j)) << i << "," << j;
    }
  }
}

TEST(PooledCostMatrixTest, EveryEntryIsTheTwedOfItsPair) {
  // More runs than strips per group, so that groups split into several strips.
  const std::vector<Series> sim = RandomWalkRuns("sim", 37, 3, 60, 2, 1);
  const std::vector<Series> ref = RandomWalkRuns("ref", 21, 3, 60, 2, 2);
  const TwedParams params = MakeTwedParams(0.5, 0.1);
  absl::StatusOr<CostMatrix> pooled = ComputePooledCostMatrix(sim, ref, params, {});
  ASSERT_TRUE(pooled.ok()) << pooled.status();
  ExpectPairwiseTwed(*pooled, Concatenate(sim, ref), params);
}

TEST(PooledCostMatrixTest, ScalarKernelPairsToo) {
  // A time window and p = 1.5 send every pair through the scalar kernel.
  const std::vector<Series> sim = RandomWalkRuns("sim", 5, 20, 40, 1, 3);
  const std::vector<Series> ref = RandomWalkRuns("ref", 6, 20, 40, 1, 4);
  const TwedParams params = MakeTwedParams(0.01, 0.2, 1.5, 0.5);
  absl::StatusOr<CostMatrix> pooled = ComputePooledCostMatrix(sim, ref, params, {});
  ASSERT_TRUE(pooled.ok()) << pooled.status();
  ExpectPairwiseTwed(*pooled, Concatenate(sim, ref), params);
}

TEST(PooledCostMatrixTest, CopiesTheGivenSimRefBlock) {
  const std::vector<Series> sim = RandomWalkRuns("sim", 4, 3, 30, 1, 5);
  const std::vector<Series> ref = RandomWalkRuns("ref", 3, 3, 30, 1, 6);
  const TwedParams params;
  // Values no TWED of these runs gives: they can only have been copied.
  CostMatrix marked(4, 3);
  for (size_t k = 0; k < marked.values.size(); ++k) marked.values[k] = 1000.0 + k;
  absl::StatusOr<CostMatrix> pooled = ComputePooledCostMatrix(sim, ref, params, {}, &marked);
  ASSERT_TRUE(pooled.ok()) << pooled.status();
  for (size_t i = 0; i < 4; ++i) {
    for (size_t j = 0; j < 3; ++j) {
      EXPECT_EQ(pooled->at(i, 4 + j), marked.at(i, j));
      EXPECT_EQ(pooled->at(4 + j, i), marked.at(i, j));
    }
  }

  absl::StatusOr<CostMatrix> sim_ref = ComputeCostMatrix(sim, ref, params);
  ASSERT_TRUE(sim_ref.ok()) << sim_ref.status();
  absl::StatusOr<CostMatrix> reused = ComputePooledCostMatrix(sim, ref, params, {}, &*sim_ref);
  absl::StatusOr<CostMatrix> computed = ComputePooledCostMatrix(sim, ref, params, {});
  ASSERT_TRUE(reused.ok()) << reused.status();
  ASSERT_TRUE(computed.ok()) << computed.status();
  EXPECT_EQ(reused->values, computed->values);
}

TEST(PooledCostMatrixTest, ResultDoesNotDependOnThreadCount) {
  const std::vector<Series> sim = RandomWalkRuns("sim", 23, 2, 300, 1, 7);
  const std::vector<Series> ref = RandomWalkRuns("ref", 19, 2, 300, 1, 8);
  const TwedParams params = MakeTwedParams(0.1, 0.05);
  CostMatrixOptions one_thread;
  one_thread.max_threads = 1;
  absl::StatusOr<CostMatrix> serial = ComputePooledCostMatrix(sim, ref, params, one_thread);
  ASSERT_TRUE(serial.ok()) << serial.status();
  for (int threads : {2, 3, 8}) {
    CostMatrixOptions options;
    options.max_threads = threads;
    absl::StatusOr<CostMatrix> parallel = ComputePooledCostMatrix(sim, ref, params, options);
    ASSERT_TRUE(parallel.ok()) << parallel.status();
    EXPECT_EQ(parallel->values, serial->values) << threads << " threads";
  }
}

struct ProgressLog {
  std::vector<CostMatrixProgress> reports;
  std::atomic<int> in_flight{0};
  bool overlapped = false;
};

CostMatrixOptions LoggingOptions(ProgressLog& log) {
  CostMatrixOptions options;
  options.max_threads = 4;
  options.progress_interval_ms = 0;
  options.progress = [&log](const CostMatrixProgress& progress) {
    if (log.in_flight.fetch_add(1) != 0) log.overlapped = true;
    log.reports.push_back(progress);
    log.in_flight.fetch_sub(1);
  };
  return options;
}

TEST(PooledCostMatrixTest, ProgressIsOneStreamEndingAtWhatWasComputed) {
  const std::vector<Series> sim = RandomWalkRuns("sim", 40, 5, 40, 1, 9);
  const std::vector<Series> ref = RandomWalkRuns("ref", 30, 5, 40, 1, 10);
  const TwedParams params;
  absl::StatusOr<CostMatrix> sim_ref = ComputeCostMatrix(sim, ref, params);
  ASSERT_TRUE(sim_ref.ok()) << sim_ref.status();

  for (const CostMatrix* given : std::vector<const CostMatrix*>{nullptr, &*sim_ref}) {
    ProgressLog log;
    ASSERT_TRUE(ComputePooledCostMatrix(sim, ref, params, LoggingOptions(log), given).ok());
    ASSERT_FALSE(log.reports.empty());
    EXPECT_FALSE(log.overlapped);
    const CostMatrixProgress& last = log.reports.back();
    EXPECT_EQ(last.pairs_done, last.pairs_total);
    EXPECT_EQ(last.cells_done, last.cells_total);
    for (size_t k = 1; k < log.reports.size(); ++k) {
      EXPECT_EQ(log.reports[k].pairs_total, last.pairs_total);
      EXPECT_EQ(log.reports[k].cells_total, last.cells_total);
      EXPECT_GE(log.reports[k].pairs_done, log.reports[k - 1].pairs_done);
      EXPECT_GE(log.reports[k].cells_done, log.reports[k - 1].cells_done);
    }
    // At least the pairs i < j of each group, and the sim-ref block unless given.
    const uint64_t needed = 40 * 39 / 2 + 30 * 29 / 2 + (given == nullptr ? 40 * 30 : 0);
    EXPECT_GE(last.pairs_total, needed);
    EXPECT_LE(last.pairs_total, needed * 115 / 100);
  }
}

TEST(PooledCostMatrixTest, ComputesFewPairsInVainAtAHundredRuns) {
  // Two-sample runs: only the pair counts matter here.
  const std::vector<Series> sim = RandomWalkRuns("sim", 100, 2, 2, 1, 11);
  const std::vector<Series> ref = RandomWalkRuns("ref", 100, 2, 2, 1, 12);
  const CostMatrix sim_ref(100, 100);
  ProgressLog log;
  ASSERT_TRUE(ComputePooledCostMatrix(sim, ref, TwedParams{}, LoggingOptions(log), &sim_ref).ok());
  ASSERT_FALSE(log.reports.empty());
  const uint64_t needed = 2 * (100 * 99 / 2);
  EXPECT_LE(log.reports.back().pairs_total, needed * 115 / 100);
  EXPECT_EQ(log.reports.back().cells_total, 4 * log.reports.back().pairs_total);
}

TEST(PooledCostMatrixTest, CancelledTokenStopsTheComputation) {
  const std::vector<Series> sim = RandomWalkRuns("sim", 6, 50, 50, 1, 13);
  const std::vector<Series> ref = RandomWalkRuns("ref", 6, 50, 50, 1, 14);
  CancellationToken cancel;
  cancel.Cancel();
  CostMatrixOptions options;
  options.cancel = &cancel;
  absl::StatusOr<CostMatrix> pooled = ComputePooledCostMatrix(sim, ref, TwedParams{}, options);
  EXPECT_EQ(pooled.status().code(), absl::StatusCode::kCancelled);
}

TEST(PooledCostMatrixTest, CancellingFromProgressStopsBetweenTiles) {
  const std::vector<Series> sim = RandomWalkRuns("sim", 30, 20, 20, 1, 15);
  const std::vector<Series> ref = RandomWalkRuns("ref", 30, 20, 20, 1, 16);
  CancellationToken cancel;
  CostMatrixOptions options;
  options.max_threads = 1;
  options.cancel = &cancel;
  options.progress_interval_ms = 0;
  options.progress = [&](const CostMatrixProgress&) { cancel.Cancel(); };
  absl::StatusOr<CostMatrix> pooled = ComputePooledCostMatrix(sim, ref, TwedParams{}, options);
  EXPECT_EQ(pooled.status().code(), absl::StatusCode::kCancelled);
}

TEST(PooledCostMatrixTest, ReportsBadInputs) {
  const std::vector<Series> sim = RandomWalkRuns("sim", 3, 5, 10, 1, 17);
  std::vector<Series> ref = RandomWalkRuns("ref", 3, 5, 10, 1, 18);

  const CostMatrix wrong_shape(3, 2);
  absl::StatusOr<CostMatrix> pooled =
      ComputePooledCostMatrix(sim, ref, TwedParams{}, {}, &wrong_shape);
  EXPECT_EQ(pooled.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(pooled.status().message(), HasSubstr("3 x 2"));

  pooled = ComputePooledCostMatrix(sim, ref, MakeTwedParams(-1.0, 0.0), {});
  EXPECT_EQ(pooled.status().code(), absl::StatusCode::kInvalidArgument);

  CostMatrixOptions negative_threads;
  negative_threads.max_threads = -1;
  pooled = ComputePooledCostMatrix(sim, ref, TwedParams{}, negative_threads);
  EXPECT_THAT(pooled.status().message(), HasSubstr("max_threads"));

  // An invalid run shows up in the ref-ref pairs even when sim-ref is given.
  const CostMatrix sim_ref(3, 3);
  ref[2].values[1] = std::numeric_limits<double>::quiet_NaN();
  pooled = ComputePooledCostMatrix(sim, ref, TwedParams{}, {}, &sim_ref);
  EXPECT_EQ(pooled.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(pooled.status().message(), HasSubstr("ref2"));
}

TEST(PooledCostMatrixTest, OneRunPerGroupNeedsNoTwedWhenSimRefIsGiven) {
  const std::vector<Series> sim = RandomWalkRuns("sim", 1, 5, 10, 1, 19);
  const std::vector<Series> ref = RandomWalkRuns("ref", 1, 5, 10, 1, 20);
  CostMatrix sim_ref(1, 1, 2.5);
  ProgressLog log;
  absl::StatusOr<CostMatrix> pooled =
      ComputePooledCostMatrix(sim, ref, TwedParams{}, LoggingOptions(log), &sim_ref);
  ASSERT_TRUE(pooled.ok()) << pooled.status();
  EXPECT_THAT(pooled->values, ElementsAre(0.0, 2.5, 2.5, 0.0));
  ASSERT_EQ(log.reports.size(), 1u);
  EXPECT_EQ(log.reports[0].pairs_total, 0u);
}

TEST(SubtractSamplingFloorTest, SubtractsLambdaTimesTheLengthGapAndClampsAtZero) {
  CostMatrix pooled(3, 3);
  pooled.values = {0.0, 5.0, 1.0,  //
                   5.0, 0.0, 9.0,  //
                   1.0, 9.0, 0.0};
  SubtractSamplingFloor({10, 14, 20}, 0.5, pooled);
  // Gaps 4, 10, 6: floors 2, 5, 3.
  EXPECT_THAT(pooled.values, ElementsAre(0.0, 3.0, 0.0,  //
                                         3.0, 0.0, 6.0,  //
                                         0.0, 6.0, 0.0));
}

TEST(SubtractSamplingFloorTest, TwedIsNeverBelowTheFloor) {
  // The floor is a lower bound: with nothing to clamp, the subtraction
  // leaves every entry non-negative already.
  const std::vector<Series> sim = RandomWalkRuns("sim", 8, 5, 120, 1, 21);
  const std::vector<Series> ref = RandomWalkRuns("ref", 8, 5, 120, 1, 22);
  const double lambda = 0.7;
  absl::StatusOr<CostMatrix> pooled =
      ComputePooledCostMatrix(sim, ref, MakeTwedParams(0.001, lambda), {});
  ASSERT_TRUE(pooled.ok()) << pooled.status();
  const std::vector<Series> runs = Concatenate(sim, ref);
  for (size_t i = 0; i < runs.size(); ++i) {
    for (size_t j = 0; j < runs.size(); ++j) {
      const double gap =
          std::abs(static_cast<double>(runs[i].samples()) - static_cast<double>(runs[j].samples()));
      EXPECT_GE(pooled->at(i, j), lambda * gap) << i << "," << j;
    }
  }
}

}  // namespace
}  // namespace wasserwarp
