// A validation's TWED matrices cut into rectangular tiles of about equal DP cells, so that
// workers on other threads, processes or machines compute them apart and the pieces assemble
// into exactly the matrix one ComputeCostMatrix call gives: each value is one pair's TWED,
// whatever pairs it was computed beside (the SIMD lanes equal the scalar kernel bit for bit).

#ifndef WASSERWARP_COST_TILES_H_
#define WASSERWARP_COST_TILES_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "wasserwarp/cost_matrix.h"
#include "wasserwarp/series.h"
#include "wasserwarp/twed.h"

namespace wasserwarp {

// The matrices a validation computes, in the order it needs them. The numbers are stored.
enum class CostMatrixKind {
  kSimulationReference = 0,         // n x m on the prepared runs: W and the plan
  kVerdictSimulationReference = 1,  // n x m on the verdict's grid, where that differs
  kSimulationSimulation = 2,        // the verdict's pairs i < j among the simulated runs
  kReferenceReference = 3,          // the same among the reference runs
};

inline constexpr int kCostMatrixKinds = 4;

// "simulation-reference", ...: for errors and logs.
std::string_view CostMatrixKindName(CostMatrixKind kind);
// The within-group kinds are symmetric: rows and columns are the same runs.
bool IsWithinGroup(CostMatrixKind kind);

// Runs [row_begin, row_end) against runs [col_begin, col_end) of one matrix. A within-group
// tile lies on or above the diagonal, and only its pairs i < j are used.
struct CostTile {
  CostMatrixKind matrix = CostMatrixKind::kSimulationReference;
  int index = 0;  // in its matrix's plan, row-major
  size_t row_begin = 0;
  size_t row_end = 0;
  size_t col_begin = 0;
  size_t col_end = 0;
  uint64_t cells = 0;  // DP cells computing it takes (a diagonal tile computes its whole square)

  size_t rows() const { return row_end - row_begin; }
  size_t cols() const { return col_end - col_begin; }
  friend bool operator==(const CostTile&, const CostTile&) = default;
};

// Tiles of about `target_cells` DP cells (at least one pair each) covering every pair of `rows`
// x `cols`; for a within-group kind `cols` must be `rows`. Rows and columns are cut where their
// sample sums divide evenly, so every tile takes about the same cells however the run lengths
// vary, and tiles are about as many rows as columns, which keeps the SIMD lanes full.
// Deterministic: the same runs and target give the same tiles.
std::vector<CostTile> PlanCostTiles(CostMatrixKind matrix, const std::vector<Series>& rows,
                                    const std::vector<Series>& cols, uint64_t target_cells);

// The tile's TWEDs, tile.rows() x tile.cols(), row-major, as ComputeCostMatrix gives them. A
// pair whose TWED fails (it overflows) is NaN instead, which no TWED of valid runs is, so that
// the tile can be stored like any other and the assembled matrix fail as a whole one would
// (FirstFailingPair). Cancelled when the token is set.
absl::StatusOr<CostMatrix> ComputeCostTile(const CostTile& tile, const std::vector<Series>& rows,
                                           const std::vector<Series>& cols,
                                           const TwedParams& params,
                                           const CostMatrixOptions& options);

// Writes a computed tile (`values`: its row-major block) into `matrix`; for a within-group tile
// the pairs i < j and their mirror images. InvalidArgument when the sizes do not fit.
absl::Status PlaceCostTile(const CostTile& tile, std::span<const double> values,
                           CostMatrix& matrix);

// Runs `lane` once on each of as many threads as `max_threads` allows (0: every core), at
// once, and returns what each returned: the lanes of a worker that computes several tiles side
// by side, since a tile of a few long pairs keeps only one core busy. Each tile's
// ComputeCostTile may still use the threads the other lanes leave idle.
std::vector<absl::Status> RunLanes(int max_threads, const std::function<absl::Status()>& lane);

// Ok when no pair of the assembled `matrix` of `kind` is NaN; otherwise the error of the first
// such pair (row-major; pairs i < j of a within-group kind), computed again: what
// ComputeCostMatrix on the whole matrix reports.
absl::Status FirstFailingPair(CostMatrixKind kind, const std::vector<Series>& rows,
                              const std::vector<Series>& cols, const TwedParams& params,
                              const CostMatrix& matrix);

}  // namespace wasserwarp

#endif  // WASSERWARP_COST_TILES_H_
