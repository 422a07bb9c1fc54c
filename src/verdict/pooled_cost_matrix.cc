#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "common/progress_throttle.h"
#include "twed/twed_bounds.h"
#include "wasserwarp/cost_matrix.h"
#include "wasserwarp/verdict.h"

namespace wasserwarp {
namespace {

// Each group of runs is cut into about this many strips of rows; strip a's
// runs against the runs from its own first one to the group's end make one
// ComputeCostMatrix call. Only the pairs j <= i inside a strip's own rows
// are computed in vain: about 1 / kStripsPerGroup + 1 / runs of the pairs
// needed (8 % at 100 runs), while each call stays large enough to keep
// every core busy.
constexpr size_t kStripsPerGroup = 16;

// One ComputeCostMatrix call: runs [row_begin, row_end) of `rows` against
// runs [col_begin, col_end) of `cols`, landing in the pooled matrix at
// (row_offset + i, col_offset + j).
struct Tile {
  const std::vector<Series>* rows = nullptr;
  size_t row_offset = 0;
  size_t row_begin = 0;
  size_t row_end = 0;
  const std::vector<Series>* cols = nullptr;
  size_t col_offset = 0;
  size_t col_begin = 0;
  size_t col_end = 0;

  uint64_t pairs() const { return uint64_t{row_end - row_begin} * (col_end - col_begin); }
};

void AddGroupStrips(const std::vector<Series>& group, size_t offset, std::vector<Tile>& tiles) {
  const size_t runs = group.size();
  const size_t strip = std::max<size_t>(1, (runs + kStripsPerGroup - 1) / kStripsPerGroup);
  for (size_t begin = 0; begin + 1 < runs; begin += strip) {
    tiles.push_back({.rows = &group,
                     .row_offset = offset,
                     .row_begin = begin,
                     .row_end = std::min(runs, begin + strip),
                     .cols = &group,
                     .col_offset = offset,
                     .col_begin = begin,
                     .col_end = runs});
  }
}

uint64_t SampleSum(const std::vector<Series>& runs, size_t begin, size_t end) {
  uint64_t sum = 0;
  for (size_t k = begin; k < end; ++k) sum += runs[k].samples();
  return sum;
}

uint64_t TileCells(const Tile& tile) {
  return SampleSum(*tile.rows, tile.row_begin, tile.row_end) *
         SampleSum(*tile.cols, tile.col_begin, tile.col_end);
}

// One progress stream over the tiles, which run one after another: each
// tile's own reports (serialised by ComputeCostMatrix) are offset by what
// the tiles before it computed and rate-limited here, across tiles.
class PooledProgress {
 public:
  PooledProgress(const CostMatrixOptions& options, uint64_t pairs_total, uint64_t cells_total)
      : callback_(options.progress),
        throttle_(options.progress_interval_ms),
        totals_{.pairs_total = pairs_total, .cells_total = cells_total} {}

  // The callback for the next tile's ComputeCostMatrix; empty when nobody listens.
  CostMatrixProgressCallback ForTile() {
    if (!callback_) return nullptr;
    return [this](const CostMatrixProgress& tile) {
      throttle_.MaybeReport([&] {
        callback_({.pairs_done = totals_.pairs_done + tile.pairs_done,
                   .pairs_total = totals_.pairs_total,
                   .cells_done = totals_.cells_done + tile.cells_done,
                   .cells_total = totals_.cells_total});
      });
    };
  }

  void TileDone(const Tile& tile) {
    totals_.pairs_done += tile.pairs();
    totals_.cells_done += TileCells(tile);
  }

  void Finish() {
    if (callback_) callback_(totals_);
  }

 private:
  const CostMatrixProgressCallback& callback_;
  ProgressThrottle throttle_;
  CostMatrixProgress totals_;
};

std::vector<Series> Slice(const std::vector<Series>& runs, size_t begin, size_t end) {
  return std::vector<Series>(runs.begin() + begin, runs.begin() + end);
}

}  // namespace

absl::StatusOr<CostMatrix> ComputePooledCostMatrix(const std::vector<Series>& simulation,
                                                   const std::vector<Series>& reference,
                                                   const TwedParams& params,
                                                   const CostMatrixOptions& options,
                                                   const CostMatrix* sim_ref) {
  if (absl::Status status = ValidateTwedParams(params); !status.ok()) return status;
  if (options.max_threads < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("max_threads must be >= 0 (0: all cores), got ", options.max_threads));
  }
  const size_t n = simulation.size();
  const size_t m = reference.size();
  if (sim_ref != nullptr &&
      (sim_ref->rows != n || sim_ref->cols != m || sim_ref->values.size() != n * m)) {
    return absl::InvalidArgumentError(
        absl::StrCat("the simulation-reference cost matrix is ", sim_ref->rows, " x ",
                     sim_ref->cols, " with ", sim_ref->values.size(), " values, but there are ", n,
                     " simulated and ", m, " reference runs"));
  }

  std::vector<Tile> tiles;
  if (sim_ref == nullptr && n > 0 && m > 0) {
    tiles.push_back({.rows = &simulation,
                     .row_offset = 0,
                     .row_begin = 0,
                     .row_end = n,
                     .cols = &reference,
                     .col_offset = n,
                     .col_begin = 0,
                     .col_end = m});
  }
  AddGroupStrips(simulation, 0, tiles);
  AddGroupStrips(reference, n, tiles);
  uint64_t pairs_total = 0;
  uint64_t cells_total = 0;
  for (const Tile& tile : tiles) {
    pairs_total += tile.pairs();
    cells_total += TileCells(tile);
  }

  const size_t runs = n + m;
  CostMatrix pooled(runs, runs);
  if (sim_ref != nullptr) {
    for (size_t i = 0; i < n; ++i) {
      std::copy_n(sim_ref->values.begin() + i * m, m, pooled.values.begin() + i * runs + n);
    }
  }

  PooledProgress progress(options, pairs_total, cells_total);
  for (const Tile& tile : tiles) {
    if (options.cancel != nullptr && options.cancel->cancelled()) {
      return absl::CancelledError("pooled cost matrix computation cancelled");
    }
    CostMatrixOptions tile_options = options;
    // Rate-limited by `progress`, which sees every report of every tile.
    tile_options.progress_interval_ms = 0;
    tile_options.progress = progress.ForTile();
    absl::StatusOr<CostMatrix> block =
        ComputeCostMatrix(Slice(*tile.rows, tile.row_begin, tile.row_end),
                          Slice(*tile.cols, tile.col_begin, tile.col_end), params, tile_options);
    if (!block.ok()) return block.status();
    for (size_t r = 0; r < block->rows; ++r) {
      const size_t i = tile.row_offset + tile.row_begin + r;
      for (size_t c = 0; c < block->cols; ++c) {
        const size_t j = tile.col_offset + tile.col_begin + c;
        if (i < j) pooled.at(i, j) = block->at(r, c);
      }
    }
    progress.TileDone(tile);
  }

  for (size_t i = 0; i < runs; ++i) {
    for (size_t j = i + 1; j < runs; ++j) pooled.at(j, i) = pooled.at(i, j);
  }
  progress.Finish();
  return pooled;
}

absl::StatusOr<CostMatrix> AssemblePooledCostMatrix(const CostMatrix& sim_ref,
                                                    const CostMatrix& sim_sim,
                                                    const CostMatrix& ref_ref) {
  const size_t n = sim_ref.rows;
  const size_t m = sim_ref.cols;
  if (sim_sim.rows != n || sim_sim.cols != n || ref_ref.rows != m || ref_ref.cols != m) {
    return absl::InvalidArgumentError(
        absl::StrCat("the blocks of a pooled matrix do not fit: simulation-reference ", n, " x ", m,
                     ", simulation-simulation ", sim_sim.rows, " x ", sim_sim.cols,
                     ", reference-reference ", ref_ref.rows, " x ", ref_ref.cols));
  }
  const size_t runs = n + m;
  CostMatrix pooled(runs, runs);
  for (size_t i = 0; i < runs; ++i) {
    for (size_t j = i + 1; j < runs; ++j) {
      const double value = j < n   ? sim_sim.at(i, j)
                           : i < n ? sim_ref.at(i, j - n)
                                   : ref_ref.at(i - n, j - n);
      pooled.at(i, j) = value;
      pooled.at(j, i) = value;
    }
  }
  return pooled;
}

void SubtractSamplingFloor(const std::vector<uint64_t>& samples, double lambda,
                           CostMatrix& pooled) {
  for (size_t i = 0; i < pooled.rows; ++i) {
    for (size_t j = 0; j < pooled.cols; ++j) {
      pooled.at(i, j) =
          std::max(0.0, pooled.at(i, j) - TwedDeletionFloor(samples[i], samples[j], lambda));
    }
  }
}

}  // namespace wasserwarp
