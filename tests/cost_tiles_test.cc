// Cost-matrix tiles against the whole matrices they stand for: every pair in exactly one tile,
// tiles of about equal DP cells, and tiles computed apart (in any order, on any thread count)
// assembling into ComputeCostMatrix's and ComputePooledCostMatrix's matrices bit for bit, so
// that a validation computed in tiles gives the report of one computed whole.

#include "wasserwarp/cost_tiles.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "random_runs.h"
#include "wasserwarp/report_json.h"
#include "wasserwarp/validation.h"
#include "wasserwarp/verdict.h"

namespace wasserwarp {
namespace {

using test_data::MakeTwedParams;
using test_data::RandomWalkRuns;

uint64_t Cells(const std::vector<Series>& a, const std::vector<Series>& b) {
  uint64_t sa = 0;
  uint64_t sb = 0;
  for (const Series& x : a) sa += x.samples();
  for (const Series& y : b) sb += y.samples();
  return sa * sb;
}

// How many tiles hold each pair (i, j); within a group only pairs i < j count.
std::map<std::pair<size_t, size_t>, int> Coverage(const std::vector<CostTile>& tiles, bool within) {
  std::map<std::pair<size_t, size_t>, int> count;
  for (const CostTile& tile : tiles) {
    for (size_t i = tile.row_begin; i < tile.row_end; ++i) {
      for (size_t j = tile.col_begin; j < tile.col_end; ++j) {
        if (!within || i < j) ++count[{i, j}];
      }
    }
  }
  return count;
}

TEST(CostTilesTest, EveryPairIsInExactlyOneTile) {
  const std::vector<Series> rows = RandomWalkRuns("r", 37, 10, 400, 1, 1);
  const std::vector<Series> cols = RandomWalkRuns("c", 11, 10, 400, 1, 2);
  for (uint64_t target : {uint64_t{1}, uint64_t{5000}, uint64_t{200000}, uint64_t{1} << 40}) {
    const std::vector<CostTile> cross =
        PlanCostTiles(CostMatrixKind::kSimulationReference, rows, cols, target);
    const auto covered = Coverage(cross, false);
    EXPECT_EQ(covered.size(), rows.size() * cols.size()) << target;
    for (const auto& [pair, times] : covered) ASSERT_EQ(times, 1) << target;

    const std::vector<CostTile> within =
        PlanCostTiles(CostMatrixKind::kSimulationSimulation, rows, rows, target);
    const auto pairs = Coverage(within, true);
    EXPECT_EQ(pairs.size(), rows.size() * (rows.size() - 1) / 2) << target;
    for (const auto& [pair, times] : pairs) ASSERT_EQ(times, 1) << target;
    for (const CostTile& tile : within) EXPECT_LE(tile.row_begin, tile.col_begin);
    for (size_t k = 0; k < within.size(); ++k) EXPECT_EQ(within[k].index, static_cast<int>(k));
  }
}

TEST(CostTilesTest, TilesBalanceCellsNotPairsAndMeetTheTarget) {
  // Runs from 20 to 2000 samples: equal pair counts would differ 100-fold in work.
  const std::vector<Series> rows = RandomWalkRuns("r", 60, 20, 2000, 1, 3);
  const std::vector<Series> cols = RandomWalkRuns("c", 40, 20, 2000, 1, 4);
  const uint64_t total = Cells(rows, cols);
  const uint64_t target = total / 40;
  const std::vector<CostTile> tiles =
      PlanCostTiles(CostMatrixKind::kSimulationReference, rows, cols, target);
  EXPECT_GE(tiles.size(), 36u);
  EXPECT_LE(tiles.size(), 60u);
  uint64_t sum = 0;
  uint64_t largest = 0;
  for (const CostTile& tile : tiles) {
    sum += tile.cells;
    largest = std::max(largest, tile.cells);
    uint64_t exact = 0;
    for (size_t i = tile.row_begin; i < tile.row_end; ++i) {
      for (size_t j = tile.col_begin; j < tile.col_end; ++j) exact += TwedCells(rows[i], cols[j]);
    }
    EXPECT_EQ(tile.cells, exact);
  }
  EXPECT_EQ(sum, total);
  // The largest tile within twice the mean: cut by samples, not by runs.
  EXPECT_LT(largest, 2 * total / tiles.size());
}

TEST(CostTilesTest, PlansAreDeterministicAndOneTileWhenTheTargetIsLarge) {
  const std::vector<Series> rows = RandomWalkRuns("r", 9, 10, 90, 1, 5);
  EXPECT_EQ(PlanCostTiles(CostMatrixKind::kReferenceReference, rows, rows, 3000),
            PlanCostTiles(CostMatrixKind::kReferenceReference, rows, rows, 3000));
  EXPECT_EQ(PlanCostTiles(CostMatrixKind::kSimulationReference, rows, rows, 1ull << 50).size(), 1u);
  EXPECT_EQ(PlanCostTiles(CostMatrixKind::kReferenceReference, rows, rows, 1ull << 50).size(), 1u);
  const std::vector<Series> one(rows.begin(), rows.begin() + 1);
  EXPECT_TRUE(PlanCostTiles(CostMatrixKind::kSimulationSimulation, one, one, 1).empty());
}

void ExpectBitEqual(const CostMatrix& a, const CostMatrix& b) {
  ASSERT_EQ(a.rows, b.rows);
  ASSERT_EQ(a.cols, b.cols);
  for (size_t k = 0; k < a.values.size(); ++k) {
    ASSERT_EQ(std::bit_cast<uint64_t>(a.values[k]), std::bit_cast<uint64_t>(b.values[k]))
        << "entry " << k;
  }
}

// The tiles of `kind`, computed one by one in a shuffled order, placed in one matrix.
CostMatrix FromTiles(CostMatrixKind kind, const std::vector<Series>& rows,
                     const std::vector<Series>& cols, const TwedParams& params, uint64_t target,
                     int threads) {
  std::vector<CostTile> tiles = PlanCostTiles(kind, rows, cols, target);
  std::shuffle(tiles.begin(), tiles.end(), std::mt19937_64(target));
  CostMatrix matrix(rows.size(), cols.size());
  CostMatrixOptions options;
  options.max_threads = threads;
  for (const CostTile& tile : tiles) {
    absl::StatusOr<CostMatrix> block = ComputeCostTile(tile, rows, cols, params, options);
    EXPECT_TRUE(block.ok()) << block.status();
    EXPECT_TRUE(PlaceCostTile(tile, block->values, matrix).ok());
  }
  return matrix;
}

TEST(CostTilesTest, TilesAssembleIntoTheWholeMatricesBitForBit) {
  const std::vector<Series> sim = RandomWalkRuns("s", 13, 30, 300, 2, 6);
  const std::vector<Series> ref = RandomWalkRuns("r", 17, 30, 300, 2, 7);
  for (const TwedParams& params : {MakeTwedParams(0.5, 1.0), MakeTwedParams(0.1, 0.3, 2.0)}) {
    const CostMatrix whole = *ComputeCostMatrix(sim, ref, params);
    const CostMatrix pooled = *ComputePooledCostMatrix(sim, ref, params, {});
    for (uint64_t target : {uint64_t{20000}, uint64_t{300000}}) {
      for (int threads : {1, 2}) {
        const CostMatrix cross =
            FromTiles(CostMatrixKind::kSimulationReference, sim, ref, params, target, threads);
        ExpectBitEqual(cross, whole);
        const CostMatrix sim_sim =
            FromTiles(CostMatrixKind::kSimulationSimulation, sim, sim, params, target, threads);
        const CostMatrix ref_ref =
            FromTiles(CostMatrixKind::kReferenceReference, ref, ref, params, target, threads);
        absl::StatusOr<CostMatrix> assembled = AssemblePooledCostMatrix(cross, sim_sim, ref_ref);
        ASSERT_TRUE(assembled.ok()) << assembled.status();
        ExpectBitEqual(*assembled, pooled);
      }
    }
  }
}

TEST(CostTilesTest, AnOverflowingPairFailsTheAssembledMatrixAsTheWholeOneFails) {
  std::vector<Series> rows = RandomWalkRuns("r", 6, 20, 20, 1, 13);
  std::vector<Series> cols = RandomWalkRuns("c", 10, 20, 30, 1, 14);
  // 9e307 - -9e307 overflows.
  for (double& v : rows[4].values) v = 9e307;
  for (double& v : cols[2].values) v = -9e307;
  for (double& v : cols[7].values) v = -9e307;
  const TwedParams params = MakeTwedParams(0.1, 0.1, 2.0);
  const absl::Status expected = ComputeCostMatrix(rows, cols, params).status();
  ASSERT_FALSE(expected.ok());
  CostMatrix matrix(rows.size(), cols.size());
  for (const CostTile& tile :
       PlanCostTiles(CostMatrixKind::kSimulationReference, rows, cols, 2000)) {
    absl::StatusOr<CostMatrix> block = ComputeCostTile(tile, rows, cols, params, {});
    ASSERT_TRUE(block.ok()) << block.status();
    ASSERT_TRUE(PlaceCostTile(tile, block->values, matrix).ok());
  }
  EXPECT_EQ(FirstFailingPair(CostMatrixKind::kSimulationReference, rows, cols, params, matrix),
            expected);
  EXPECT_TRUE(FirstFailingPair(CostMatrixKind::kSimulationReference, rows, cols, params,
                               *ComputeCostMatrix(rows, rows, params))
                  .ok());
}

TEST(CostTilesTest, MisfitsAreRefusedWithTheirBounds) {
  const std::vector<Series> runs = RandomWalkRuns("r", 3, 10, 10, 1, 8);
  const CostTile tile{.row_begin = 1, .row_end = 5, .col_begin = 0, .col_end = 2};
  EXPECT_THAT(ComputeCostTile(tile, runs, runs, MakeTwedParams(1, 1), {}).status().message(),
              ::testing::HasSubstr("rows [1, 5)"));
  CostMatrix matrix(3, 3);
  EXPECT_EQ(PlaceCostTile(tile, std::vector<double>(8), matrix).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(AssemblePooledCostMatrix(CostMatrix(2, 3), CostMatrix(2, 2), CostMatrix(2, 2))
                .status()
                .code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(CostTilesTest, LanesRunOncePerThreadAndSayHowTheyEnded) {
  std::atomic<int> calls{0};
  const std::vector<absl::Status> ended = RunLanes(
      3, [&] { return ++calls == 2 ? absl::UnavailableError("lane 2") : absl::OkStatus(); });
  EXPECT_EQ(calls.load(), 3);
  ASSERT_EQ(ended.size(), 3u);
  EXPECT_EQ(std::count_if(ended.begin(), ended.end(), [](const absl::Status& s) { return s.ok(); }),
            2);
  EXPECT_EQ(RunLanes(1, [] { return absl::OkStatus(); }).size(), 1u);
}

// A source that computes every matrix in tiles, shuffled, on one thread.
class ShuffledTiles : public CostMatrixSource {
 public:
  absl::StatusOr<CostMatrix> Compute(CostMatrixKind kind, const ValidationRuns& runs,
                                     const TwedParams& params, const CostMatrixOptions&) override {
    kinds.push_back(kind);
    absl::StatusOr<MatrixRuns> matrix = RunsOf(runs, kind);
    if (!matrix.ok()) return matrix.status();
    return FromTiles(kind, *matrix->rows, *matrix->cols, params, 5000, 1);
  }
  std::vector<CostMatrixKind> kinds;
};

TEST(CostTilesTest, AValidationFromTilesReportsWhatOneFromWholeMatricesReports) {
  const std::vector<Series> sim = RandomWalkRuns("sim", 7, 40, 120, 2, 45);
  for (bool on_grid : {false, true}) {
    // At other rates than the simulated runs', the verdict gets its own grid and matrix.
    const test_data::Sampling faster{.min_gap = 0.002, .max_gap = 0.004};
    std::mt19937_64 rng(46);
    std::vector<Series> ref;
    for (int k = 0; k < 9; ++k) {
      ref.push_back(test_data::RandomWalkRun(rng, "ref" + std::to_string(k), on_grid ? 200 : 80, 2,
                                             on_grid ? faster : test_data::Sampling{}));
    }
    ValidationOptions options;
    options.verdict = VerdictOptions{};
    options.verdict->permutations = 49;
    options.twed.lambda = 0.2;
    options.keep_cost_matrix = true;
    options.keep_pooled_cost_matrix = true;
    absl::StatusOr<ValidationReport> whole = Validate(sim, ref, options);
    ASSERT_TRUE(whole.ok()) << whole.status();
    ShuffledTiles source;
    options.cost_source = &source;
    absl::StatusOr<ValidationReport> tiled = Validate(sim, ref, options);
    ASSERT_TRUE(tiled.ok()) << tiled.status();
    EXPECT_EQ(source.kinds, CostMatricesOf(*PrepareValidationRuns(sim, ref, options), options));
    EXPECT_EQ(source.kinds.size(), on_grid ? 4u : 3u);
    whole->seconds = tiled->seconds = 0;
    EXPECT_EQ(ReportToJson(*tiled), ReportToJson(*whole));
  }
}

}  // namespace
}  // namespace wasserwarp
