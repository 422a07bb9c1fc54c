#include "wasserwarp/cost_tiles.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/absl_view.h"
#include "common/arena_pool.h"
#include "tbb/parallel_for.h"
#include "tbb/partitioner.h"

namespace wasserwarp {
namespace {

std::vector<uint64_t> SamplePrefix(const std::vector<Series>& runs) {
  std::vector<uint64_t> prefix(runs.size() + 1, 0);
  for (size_t i = 0; i < runs.size(); ++i) prefix[i + 1] = prefix[i] + runs[i].samples();
  return prefix;
}

// Column ranges are whole multiples of this many runs (the last one aside): the SIMD kernel
// computes 8 columns at once with AVX-512 and 4 with AVX2, and a tile of 20 columns would leave
// a sixth of its lanes empty. Fixed rather than the CPU's, so that every replica, whatever its
// CPU, plans the same tiles.
constexpr size_t kLaneMultiple = 8;

// `parts` contiguous non-empty ranges of the runs, cut only at multiples of `unit`, whose sample
// sums are as even as the run lengths allow: range t ends at the first cut whose prefix reaches
// (t + 1) / parts of the sum. No product overflows: sums are below the store's 1e10 samples,
// parts below its 1e4 runs.
std::vector<size_t> EvenCuts(const std::vector<uint64_t>& prefix, size_t parts, size_t unit) {
  const size_t count = prefix.size() - 1;
  const size_t blocks = (count + unit - 1) / unit;
  const auto at = [&](size_t block) { return std::min(block * unit, count); };
  parts = std::clamp<size_t>(parts, 1, std::max<size_t>(blocks, 1));
  const uint64_t total = prefix.back();
  std::vector<size_t> cuts{0};
  size_t b = 0;
  for (size_t t = 1; t < parts; ++t) {
    const uint64_t goal = total * t;
    b = std::max(b, cuts.back() / unit + 1);
    while (b < blocks && prefix[at(b)] * parts < goal) ++b;
    // Every range keeps at least one block.
    cuts.push_back(at(std::min(b, blocks - (parts - t))));
  }
  cuts.push_back(count);
  return cuts;
}

uint64_t Sum(const std::vector<uint64_t>& prefix, size_t begin, size_t end) {
  return prefix[end] - prefix[begin];
}

std::vector<CostTile> CrossTiles(CostMatrixKind matrix, const std::vector<Series>& rows,
                                 const std::vector<Series>& cols, uint64_t target_cells) {
  const size_t n = rows.size();
  const size_t m = cols.size();
  const std::vector<uint64_t> row_prefix = SamplePrefix(rows);
  const std::vector<uint64_t> col_prefix = SamplePrefix(cols);
  const long double cells =
      static_cast<long double>(row_prefix.back()) * static_cast<long double>(col_prefix.back());
  const long double wanted = std::clamp<long double>(std::ceil(cells / target_cells), 1.0L,
                                                     static_cast<long double>(n) * m);
  // About as many rows as columns per tile (row_parts / col_parts = n / m), columns in whole
  // lane multiples, and the rows make up for what the columns cannot be cut into.
  const size_t col_blocks = (m + kLaneMultiple - 1) / kLaneMultiple;
  const long double square_rows = std::max(1.0L, std::round(std::sqrt(wanted * n / m)));
  const size_t col_parts =
      std::clamp<size_t>(static_cast<size_t>(std::ceil(wanted / square_rows)), 1, col_blocks);
  const size_t row_parts = std::clamp<size_t>(
      static_cast<size_t>(std::ceil(wanted / static_cast<long double>(col_parts))), 1, n);
  const std::vector<size_t> row_cuts = EvenCuts(row_prefix, row_parts, 1);
  const std::vector<size_t> col_cuts = EvenCuts(col_prefix, col_parts, kLaneMultiple);
  std::vector<CostTile> tiles;
  for (size_t a = 0; a + 1 < row_cuts.size(); ++a) {
    for (size_t b = 0; b + 1 < col_cuts.size(); ++b) {
      tiles.push_back({.matrix = matrix,
                       .index = static_cast<int>(tiles.size()),
                       .row_begin = row_cuts[a],
                       .row_end = row_cuts[a + 1],
                       .col_begin = col_cuts[b],
                       .col_end = col_cuts[b + 1],
                       .cells = Sum(row_prefix, row_cuts[a], row_cuts[a + 1]) *
                                Sum(col_prefix, col_cuts[b], col_cuts[b + 1])});
    }
  }
  return tiles;
}

// Strips a <= b of the runs; the tiles on the diagonal compute their whole square, so every
// tile is a strip's sum times a strip's sum, all about equal.
std::vector<CostTile> WithinGroupTiles(CostMatrixKind matrix, const std::vector<Series>& runs,
                                       uint64_t target_cells) {
  const size_t g = runs.size();
  if (g < 2) return {};
  const std::vector<uint64_t> prefix = SamplePrefix(runs);
  const long double total = static_cast<long double>(prefix.back());
  const long double wanted = std::max(1.0L, std::ceil(total * total / 2 / target_cells));
  // strips (strips + 1) / 2 >= wanted.
  const size_t strips =
      std::clamp<size_t>(static_cast<size_t>(std::ceil((std::sqrt(8 * wanted + 1) - 1) / 2)), 1, g);
  const std::vector<size_t> cuts = EvenCuts(prefix, strips, kLaneMultiple);
  std::vector<CostTile> tiles;
  for (size_t a = 0; a + 1 < cuts.size(); ++a) {
    for (size_t b = a; b + 1 < cuts.size(); ++b) {
      // A diagonal tile of one run holds no pair i < j.
      if (a == b && cuts[a + 1] - cuts[a] < 2) continue;
      tiles.push_back(
          {.matrix = matrix,
           .index = static_cast<int>(tiles.size()),
           .row_begin = cuts[a],
           .row_end = cuts[a + 1],
           .col_begin = cuts[b],
           .col_end = cuts[b + 1],
           .cells = Sum(prefix, cuts[a], cuts[a + 1]) * Sum(prefix, cuts[b], cuts[b + 1])});
    }
  }
  return tiles;
}

std::vector<Series> Slice(const std::vector<Series>& runs, size_t begin, size_t end) {
  return std::vector<Series>(runs.begin() + begin, runs.begin() + end);
}

}  // namespace

std::vector<absl::Status> RunLanes(int max_threads, const std::function<absl::Status()>& lane) {
  BorrowedArena arena(max_threads);
  std::vector<absl::Status> results(
      static_cast<size_t>(std::max(1, arena.arena().max_concurrency())));
  arena.execute([&] {
    tbb::parallel_for(
        size_t{0}, results.size(), [&](size_t k) { results[k] = lane(); },
        tbb::simple_partitioner());
  });
  return results;
}

std::string_view CostMatrixKindName(CostMatrixKind kind) {
  switch (kind) {
    case CostMatrixKind::kSimulationReference:
      return "simulation-reference";
    case CostMatrixKind::kVerdictSimulationReference:
      return "simulation-reference on the verdict's grid";
    case CostMatrixKind::kSimulationSimulation:
      return "simulation-simulation";
    case CostMatrixKind::kReferenceReference:
      return "reference-reference";
  }
  return "unknown";
}

bool IsWithinGroup(CostMatrixKind kind) {
  return kind == CostMatrixKind::kSimulationSimulation ||
         kind == CostMatrixKind::kReferenceReference;
}

std::vector<CostTile> PlanCostTiles(CostMatrixKind matrix, const std::vector<Series>& rows,
                                    const std::vector<Series>& cols, uint64_t target_cells) {
  target_cells = std::max<uint64_t>(target_cells, 1);
  if (IsWithinGroup(matrix)) return WithinGroupTiles(matrix, rows, target_cells);
  if (rows.empty() || cols.empty()) return {};
  return CrossTiles(matrix, rows, cols, target_cells);
}

absl::StatusOr<CostMatrix> ComputeCostTile(const CostTile& tile, const std::vector<Series>& rows,
                                           const std::vector<Series>& cols,
                                           const TwedParams& params,
                                           const CostMatrixOptions& options) {
  if (tile.row_begin >= tile.row_end || tile.row_end > rows.size() ||
      tile.col_begin >= tile.col_end || tile.col_end > cols.size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "tile ", tile.index, " of the ", AbslView(CostMatrixKindName(tile.matrix)),
        " matrix spans rows [", tile.row_begin, ", ", tile.row_end, ") and columns [",
        tile.col_begin, ", ", tile.col_end, ") of a ", rows.size(), " x ", cols.size(), " matrix"));
  }
  const std::vector<Series> tile_rows = Slice(rows, tile.row_begin, tile.row_end);
  const std::vector<Series> tile_cols = Slice(cols, tile.col_begin, tile.col_end);
  absl::StatusOr<CostMatrix> block = ComputeCostMatrix(tile_rows, tile_cols, params, options);
  if (block.ok() || absl::IsCancelled(block.status()) || absl::IsInvalidArgument(block.status())) {
    return block;
  }
  // Rare (only overflowing pairs fail): pair by pair, to know which.
  CostMatrix marked(tile.rows(), tile.cols());
  for (size_t r = 0; r < tile.rows(); ++r) {
    for (size_t c = 0; c < tile.cols(); ++c) {
      absl::StatusOr<double> distance = Twed(tile_rows[r], tile_cols[c], params, options.cancel);
      if (absl::IsCancelled(distance.status())) return distance.status();
      marked.at(r, c) = distance.ok() ? *distance : std::numeric_limits<double>::quiet_NaN();
    }
  }
  return marked;
}

absl::Status FirstFailingPair(CostMatrixKind kind, const std::vector<Series>& rows,
                              const std::vector<Series>& cols, const TwedParams& params,
                              const CostMatrix& matrix) {
  const bool within = IsWithinGroup(kind);
  for (size_t i = 0; i < matrix.rows; ++i) {
    for (size_t j = within ? i + 1 : 0; j < matrix.cols; ++j) {
      if (!std::isnan(matrix.at(i, j))) continue;
      absl::StatusOr<double> distance = Twed(rows[i], cols[j], params);
      if (!distance.ok()) return distance.status();
      return absl::InternalError(absl::StrCat("pair (", i, ", ", j, ") of the ",
                                              AbslView(CostMatrixKindName(kind)),
                                              " matrix failed in its tile but not again"));
    }
  }
  return absl::OkStatus();
}

absl::Status PlaceCostTile(const CostTile& tile, std::span<const double> values,
                           CostMatrix& matrix) {
  if (tile.row_begin >= tile.row_end || tile.row_end > matrix.rows ||
      tile.col_begin >= tile.col_end || tile.col_end > matrix.cols ||
      values.size() != tile.rows() * tile.cols()) {
    return absl::InvalidArgumentError(
        absl::StrCat("tile ", tile.index, " of the ", AbslView(CostMatrixKindName(tile.matrix)),
                     " matrix (rows [", tile.row_begin, ", ", tile.row_end, "), columns [",
                     tile.col_begin, ", ", tile.col_end, ")) with ", values.size(),
                     " values does not fit a ", matrix.rows, " x ", matrix.cols, " matrix"));
  }
  const bool within = IsWithinGroup(tile.matrix);
  for (size_t r = 0; r < tile.rows(); ++r) {
    const size_t i = tile.row_begin + r;
    for (size_t c = 0; c < tile.cols(); ++c) {
      const size_t j = tile.col_begin + c;
      const double value = values[r * tile.cols() + c];
      if (!within) {
        matrix.at(i, j) = value;
      } else if (i < j) {
        matrix.at(i, j) = value;
        matrix.at(j, i) = value;
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace wasserwarp
