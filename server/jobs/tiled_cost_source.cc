#include "jobs/tiled_cost_source.h"

#include <spdlog/spdlog.h>

#include <utility>
#include <vector>

#include "absl/strings/str_format.h"
#include "absl/time/clock.h"

namespace wasserwarp::service {
namespace {

// How often a validation waiting for other replicas' tiles looks at the store (its own
// replica's wake it at once).
constexpr absl::Duration kWaitPoll = absl::Milliseconds(100);

}  // namespace

TiledCostSource::TiledCostSource(ValidationStore& validations, TileJobs& tiles, int64_t session_key,
                                 std::string id, const ValidationOptions& options,
                                 uint64_t tile_cells)
    : validations_(validations),
      tiles_(tiles),
      session_key_(session_key),
      id_(std::move(id)),
      options_(options),
      tile_cells_(tile_cells) {}

absl::Status TiledCostSource::Plan(const ValidationRuns& runs) {
  std::vector<CostTile> all;
  for (CostMatrixKind kind : CostMatricesOf(runs, options_)) {
    absl::StatusOr<MatrixRuns> matrix = RunsOf(runs, kind);
    if (!matrix.ok()) return matrix.status();
    std::vector<CostTile>& tiles = plan_[kind];
    tiles = PlanCostTiles(kind, *matrix->rows, *matrix->cols, tile_cells_);
    all.insert(all.end(), tiles.begin(), tiles.end());
  }
  if (absl::Status status = validations_.InsertTiles(session_key_, id_, all); !status.ok()) {
    return status;
  }
  tiles_.Queued();
  uint64_t cells = 0;
  for (const CostTile& tile : all) cells += tile.cells;
  cells_planned_.store(cells, std::memory_order_relaxed);
  planned_ = true;
  return absl::OkStatus();
}

absl::Status TiledCostSource::ComputeClaimable(const ValidationRuns& runs, const TwedParams& params,
                                               const CostMatrixOptions& options) {
  const TileClaimScope scope{.session_key = session_key_, .validation_id = id_};
  for (;;) {
    if (absl::Status status = CostMatrixCancelled(options); !status.ok()) return status;
    absl::StatusOr<std::optional<TileRecord>> claimed =
        validations_.ClaimTile(tiles_.worker(), absl::Now(), tiles_.lease(), scope);
    if (!claimed.ok()) return claimed.status();
    if (!claimed->has_value()) return absl::OkStatus();
    const TileRecord& tile = **claimed;
    absl::StatusOr<MatrixRuns> matrix = RunsOf(runs, tile.tile.matrix);
    if (!matrix.ok()) return matrix.status();
    // Unavailable: not stored; its lease runs out and it is claimed again.
    if (absl::Status computed =
            tiles_.ComputeHere(tile, *matrix->rows, *matrix->cols, params, options);
        !computed.ok()) {
      return computed;
    }
    cells_here_.fetch_add(tile.tile.cells, std::memory_order_relaxed);
  }
}

absl::Status TiledCostSource::ComputeUntilDone(CostMatrixKind kind, const ValidationRuns& runs,
                                               const TwedParams& params,
                                               const CostMatrixOptions& options) {
  // As many tiles at once as the job has threads (RunLanes).
  // The store may fail for a while (a database restarting); longer than a lease, and the
  // validation is lost to another replica anyway.
  absl::Time failing_since = absl::InfiniteFuture();
  const auto retry = [&](const absl::Status& error) -> absl::Status {
    const absl::Time now = absl::Now();
    if (failing_since == absl::InfiniteFuture()) failing_since = now;
    if (now - failing_since > tiles_.lease()) return error;
    spdlog::warn("tiles of validation {}: {}; trying again", id_, error.ToString());
    absl::SleepFor(kWaitPoll);
    return absl::OkStatus();
  };
  for (;;) {
    std::vector<absl::Status> lane_status =
        RunLanes(options.max_threads, [&] { return ComputeClaimable(runs, params, options); });
    absl::Status computed = absl::OkStatus();
    for (absl::Status& status : lane_status) {
      if (!status.ok() && (computed.ok() || absl::IsUnavailable(computed))) {
        computed = std::move(status);
      }
    }
    if (absl::IsUnavailable(computed)) {
      if (absl::Status status = retry(computed); !status.ok()) return status;
      continue;
    }
    if (!computed.ok()) return computed;
    // A tile stored here meanwhile wakes the wait below at once: with one replica, all are.
    const uint64_t stored = tiles_.stored();
    absl::StatusOr<TileCounts> counts = validations_.CountTiles(session_key_, id_, kind);
    if (!counts.ok()) {
      if (absl::Status status = retry(counts.status()); !status.ok()) return status;
      continue;
    }
    failing_since = absl::InfiniteFuture();
    if (counts->done == counts->tiles) return absl::OkStatus();
    tiles_.AwaitStored(stored, kWaitPoll);
  }
}

absl::StatusOr<CostMatrix> TiledCostSource::Assemble(CostMatrixKind kind, const MatrixRuns& runs,
                                                     const TwedParams& params) {
  absl::StatusOr<std::vector<TileRecord>> stored = validations_.ReadTiles(session_key_, id_, kind);
  if (!stored.ok()) return stored.status();
  const std::vector<CostTile>& planned = plan_[kind];
  if (stored->size() != planned.size()) {
    return absl::InternalError(
        absl::StrFormat("the store holds %d tiles of the %s matrix of validation %s, the plan %d",
                        stored->size(), CostMatrixKindName(kind), id_, planned.size()));
  }
  CostMatrix matrix(runs.rows->size(), runs.cols->size());
  for (size_t k = 0; k < planned.size(); ++k) {
    const TileRecord& tile = (*stored)[k];
    if (!(tile.tile == planned[k]) || tile.state != TileState::kDone) {
      return absl::InternalError(absl::StrFormat(
          "tile %d of the %s matrix of validation %s is not the planned one, or not done",
          planned[k].index, CostMatrixKindName(kind), id_));
    }
    absl::StatusOr<std::vector<double>> values = TileValuesFromBytes(tile);
    if (!values.ok()) return values.status();
    if (absl::Status status = PlaceCostTile(tile.tile, *values, matrix); !status.ok()) {
      return status;
    }
  }
  if (absl::Status status = FirstFailingPair(kind, *runs.rows, *runs.cols, params, matrix);
      !status.ok()) {
    return status;
  }
  return matrix;
}

absl::StatusOr<CostMatrix> TiledCostSource::Compute(CostMatrixKind kind, const ValidationRuns& runs,
                                                    const TwedParams& params,
                                                    const CostMatrixOptions& options) {
  if (!planned_) {
    if (absl::Status status = Plan(runs); !status.ok()) return status;
  }
  absl::StatusOr<MatrixRuns> matrix = RunsOf(runs, kind);
  if (!matrix.ok()) return matrix.status();
  if (absl::Status status = ComputeUntilDone(kind, runs, params, options); !status.ok()) {
    return status;
  }
  return Assemble(kind, *matrix, params);
}

}  // namespace wasserwarp::service
