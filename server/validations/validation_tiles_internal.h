// What the tile halves of both validation stores share (sqlite_validation_tiles.cc and
// postgres_validation_tiles.cc): the numbers a tile is stored as, read back only when they are
// ones this server writes, and the words their errors name a tile with.

#ifndef WASSERWARP_SERVER_VALIDATIONS_VALIDATION_TILES_INTERNAL_H_
#define WASSERWARP_SERVER_VALIDATIONS_VALIDATION_TILES_INTERNAL_H_

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "validations/validation_store.h"
#include "wasserwarp/cost_tiles.h"

namespace wasserwarp::service::tiles_internal {

// "tile 3 of the simulation-simulation matrix of validation v1", for errors.
inline std::string TileName(CostMatrixKind matrix, int index, std::string_view id) {
  return absl::StrCat("tile ", index, " of the ", std::string(CostMatrixKindName(matrix)),
                      " matrix of validation ", std::string(id));
}

// A stored matrix number; unset for one no server writes (the database is damaged).
inline std::optional<CostMatrixKind> MatrixOf(int64_t stored) {
  if (stored < 0 || stored >= kCostMatrixKinds) return std::nullopt;
  return static_cast<CostMatrixKind>(stored);
}

inline std::optional<TileState> TileStateOf(int64_t stored) {
  if (stored < static_cast<int64_t>(TileState::kQueued) ||
      stored > static_cast<int64_t>(TileState::kDone)) {
    return std::nullopt;
  }
  return static_cast<TileState>(stored);
}

// InvalidArgument for a tile that could not be read back (a matrix no server knows, bounds
// that run backwards, numbers past int64): refused when it is inserted rather than reported
// as damage when a worker claims it.
inline absl::Status CheckTile(const CostTile& tile, std::string_view id) {
  constexpr uint64_t kMax = std::numeric_limits<int64_t>::max();
  if (!MatrixOf(static_cast<int64_t>(tile.matrix)).has_value()) {
    return absl::InvalidArgumentError(absl::StrCat("a tile of validation ", std::string(id),
                                                   " has matrix ", static_cast<int>(tile.matrix)));
  }
  if (tile.index < 0 || tile.row_begin > tile.row_end || tile.col_begin > tile.col_end ||
      tile.row_end > kMax || tile.col_end > kMax || tile.cells > kMax) {
    return absl::InvalidArgumentError(
        absl::StrCat(TileName(tile.matrix, tile.index, id), " has rows [", tile.row_begin, ", ",
                     tile.row_end, "), columns [", tile.col_begin, ", ", tile.col_end, ") and ",
                     tile.cells, " cells: not a tile"));
  }
  return absl::OkStatus();
}

// InsertTiles' refusal of a tile the validation has already with other bounds.
inline absl::Status BoundsDiffer(const CostTile& tile, std::string_view id) {
  return absl::InvalidArgumentError(absl::StrCat(
      TileName(tile.matrix, tile.index, id), " is stored with other bounds than rows [",
      tile.row_begin, ", ", tile.row_end, ") x columns [", tile.col_begin, ", ", tile.col_end,
      "), ", tile.cells, " cells: the validation was planned differently"));
}

// Why `worker` may not renew or finish a tile: as a status, only once the transaction is over
// (a PostgreSQL body's Aborted would be run again). `state` and `holder` as stored; no state
// when the tile or its validation is gone.
inline absl::Status TileLost(CostMatrixKind matrix, int index, std::string_view id,
                             std::optional<TileState> state, std::string_view holder) {
  std::string why;
  if (!state.has_value()) {
    why = "is gone (its validation ended or was deleted)";
  } else if (*state == TileState::kDone) {
    why = "is done already";
  } else if (*state == TileState::kRunning) {
    why = absl::StrCat("is held by worker ", std::string(holder), ", no longer by this one");
  } else {
    why = "is queued again: its lease is no longer this worker's";
  }
  return absl::AbortedError(absl::StrCat(TileName(matrix, index, id), " ", why));
}

}  // namespace wasserwarp::service::tiles_internal

#endif  // WASSERWARP_SERVER_VALIDATIONS_VALIDATION_TILES_INTERNAL_H_
