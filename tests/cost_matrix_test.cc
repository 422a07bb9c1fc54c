#include "wasserwarp/cost_matrix.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <thread>
#include <vector>

#include "random_runs.h"
#include "wasserwarp/cancellation.h"
#include "wasserwarp/twed.h"

namespace wasserwarp {
namespace {

using test_data::RandomWalkRuns;
using ::testing::HasSubstr;

TEST(CostMatrixTest, EveryEntryIsTheTwedOfItsPair) {
  const std::vector<Series> sim = RandomWalkRuns("sim", 5, 3, 80, 2, 1);
  const std::vector<Series> ref = RandomWalkRuns("ref", 7, 3, 80, 2, 2);
  TwedParams params;
  params.nu = 0.5;
  params.lambda = 0.1;
  absl::StatusOr<CostMatrix> costs = ComputeCostMatrix(sim, ref, params);
  ASSERT_TRUE(costs.ok()) << costs.status();
  ASSERT_EQ(costs->rows, 5u);
  ASSERT_EQ(costs->cols, 7u);
  for (size_t i = 0; i < sim.size(); ++i) {
    for (size_t j = 0; j < ref.size(); ++j) {
      EXPECT_EQ(costs->at(i, j), *Twed(sim[i], ref[j], params)) << i << "," << j;
    }
  }
}

TEST(CostMatrixTest, ResultDoesNotDependOnThreadCount) {
  // Very unequal lengths make the cell-balanced split cut between pairs unevenly.
  std::vector<Series> sim = RandomWalkRuns("sim", 9, 2, 400, 1, 3);
  const std::vector<Series> ref = RandomWalkRuns("ref", 11, 2, 400, 1, 4);
  const TwedParams params;
  CostMatrixOptions one_thread;
  one_thread.max_threads = 1;
  absl::StatusOr<CostMatrix> serial = ComputeCostMatrix(sim, ref, params, one_thread);
  ASSERT_TRUE(serial.ok()) << serial.status();
  for (int threads : {2, 3, 8}) {
    CostMatrixOptions options;
    options.max_threads = threads;
    absl::StatusOr<CostMatrix> parallel = ComputeCostMatrix(sim, ref, params, options);
    ASSERT_TRUE(parallel.ok()) << parallel.status();
    EXPECT_EQ(parallel->values, serial->values) << threads << " threads";
  }
}

TEST(CostMatrixTest, ProgressEndsAtTheTotals) {
  const std::vector<Series> sim = RandomWalkRuns("sim", 4, 10, 50, 1, 5);
  const std::vector<Series> ref = RandomWalkRuns("ref", 3, 10, 50, 1, 6);
  uint64_t expected_cells = 0;
  for (const Series& a : sim) {
    for (const Series& b : ref) expected_cells += TwedCells(a, b);
  }
  std::vector<CostMatrixProgress> reports;
  CostMatrixOptions options;
  options.progress_interval_ms = 0;
  options.progress = [&](const CostMatrixProgress& progress) { reports.push_back(progress); };
  ASSERT_TRUE(ComputeCostMatrix(sim, ref, TwedParams{}, options).ok());
  ASSERT_FALSE(reports.empty());
  const CostMatrixProgress& last = reports.back();
  EXPECT_EQ(last.pairs_done, 12u);
  EXPECT_EQ(last.pairs_total, 12u);
  EXPECT_EQ(last.cells_done, expected_cells);
  EXPECT_EQ(last.cells_total, expected_cells);
  for (size_t k = 1; k < reports.size(); ++k) {
    EXPECT_GE(reports[k].cells_done, reports[k - 1].cells_done);
  }
}

TEST(CostMatrixTest, CancelledTokenStopsTheComputation) {
  const std::vector<Series> sim = RandomWalkRuns("sim", 6, 200, 300, 1, 7);
  const std::vector<Series> ref = RandomWalkRuns("ref", 6, 200, 300, 1, 8);
  CancellationToken token;
  CostMatrixOptions options;
  options.cancel = &token;
  options.progress_interval_ms = 0;
  uint64_t pairs_seen = 0;
  options.progress = [&](const CostMatrixProgress& progress) {
    pairs_seen = progress.pairs_done;
    token.Cancel();
  };
  absl::StatusOr<CostMatrix> costs = ComputeCostMatrix(sim, ref, TwedParams{}, options);
  EXPECT_EQ(costs.status().code(), absl::StatusCode::kCancelled);
  EXPECT_LT(pairs_seen, 36u);
}

// One unit of long runs, which takes seconds uncancelled: only polling
// inside the kernels, not between pairs, can stop it. One column runs on
// the scalar kernel, two share the lanes of the SIMD one (where the CPU has
// it).
TEST(CostMatrixTest, CancelStopsALongPairMidway) {
  for (const size_t columns : {1, 2}) {
    const std::vector<Series> sim = RandomWalkRuns("sim", 1, 30000, 30000, 1, 9);
    const std::vector<Series> ref = RandomWalkRuns("ref", columns, 30000, 30000, 1, 10);
    CancellationToken token;
    CostMatrixOptions options;
    options.cancel = &token;
    options.progress_interval_ms = 0;
    std::atomic<uint64_t> pairs_seen{0};
    options.progress = [&](const CostMatrixProgress& progress) {
      pairs_seen.store(progress.pairs_done, std::memory_order_relaxed);
    };
    std::thread canceller([&token] {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      token.Cancel();
    });
    const absl::StatusOr<CostMatrix> costs = ComputeCostMatrix(sim, ref, TwedParams{}, options);
    canceller.join();
    EXPECT_EQ(costs.status().code(), absl::StatusCode::kCancelled) << columns << " columns";
    EXPECT_EQ(pairs_seen.load(std::memory_order_relaxed), 0u) << columns << " columns";
  }
}

TEST(CostMatrixTest, InfeasibleWindowNamesTheFirstFailingPair) {
  std::vector<Series> sim = RandomWalkRuns("sim", 3, 20, 20, 1, 9);
  std::vector<Series> ref = RandomWalkRuns("ref", 3, 20, 20, 1, 10);
  // Run ref1 starts 100 s late: every pair with it has no path in a 1 s window.
  for (double& t : ref[1].times) t += 100.0;
  TwedParams params;
  params.time_window = 1.0;
  for (int threads : {1, 2}) {
    CostMatrixOptions options;
    options.max_threads = threads;
    absl::StatusOr<CostMatrix> costs = ComputeCostMatrix(sim, ref, params, options);
    ASSERT_EQ(costs.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(costs.status().message(), HasSubstr("sim0"));
    EXPECT_THAT(costs.status().message(), HasSubstr("ref1"));
  }
}

TEST(CostMatrixTest, RejectsInvalidParameters) {
  const std::vector<Series> sim = RandomWalkRuns("sim", 2, 5, 5, 1, 11);
  TwedParams params;
  params.nu = -1.0;
  EXPECT_EQ(ComputeCostMatrix(sim, sim, params).status().code(),
            absl::StatusCode::kInvalidArgument);
  CostMatrixOptions options;
  options.max_threads = -2;
  EXPECT_EQ(ComputeCostMatrix(sim, sim, TwedParams{}, options).status().code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace wasserwarp
