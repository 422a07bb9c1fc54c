// The tile half of SqliteValidationStore: the tiles of its validations, in `validation_tiles`.

#include <sqlite3.h>

#include <array>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "storage/sqlite.h"
#include "validations/sqlite_validation_store.h"
#include "validations/sqlite_validation_store_internal.h"
#include "validations/validation_tiles_internal.h"

namespace wasserwarp::service {
namespace {

using sqlite::Exec;
using sqlite::Statement;
using sqlite::Transaction;
using sqlite_store_internal::Damaged;
using sqlite_store_internal::StepToEnd;
using sqlite_store_internal::ToNanos;
using tiles_internal::MatrixOf;
using tiles_internal::TileLost;
using tiles_internal::TileName;
using tiles_internal::TileStateOf;

// Tiles are transient work items of a queued or running validation, not results: they go when
// it ends. So the table needs no new format version: a file of version 1 gains it at its first
// Open by a server that knows tiles, and an older server ignores it (what it leaves behind,
// tiles of validations it ended or deleted, goes at the next Open here). Times as in
// `validations`; matrix and state are CostMatrixKind's and TileState's numbers. The claim
// index holds the tiles not done yet, the only ones a claim looks for, in claim order.
constexpr char kTilesSchema[] = R"sql(
CREATE TABLE IF NOT EXISTS validation_tiles (
  validation_key INTEGER NOT NULL REFERENCES validations(key) ON DELETE CASCADE,
  matrix INTEGER NOT NULL,
  tile_index INTEGER NOT NULL,
  row_begin INTEGER NOT NULL,
  row_end INTEGER NOT NULL,
  col_begin INTEGER NOT NULL,
  col_end INTEGER NOT NULL,
  cells INTEGER NOT NULL,
  state INTEGER NOT NULL,
  attempts INTEGER NOT NULL DEFAULT 0,
  lease_owner TEXT,
  lease_expire_ns INTEGER,
  cells_done INTEGER NOT NULL DEFAULT 0,
  replica TEXT,
  tile_values BLOB,
  PRIMARY KEY (validation_key, matrix, tile_index));
CREATE INDEX IF NOT EXISTS validation_tiles_claim
  ON validation_tiles(validation_key, matrix, tile_index) WHERE state IN (1, 2);
)sql";

// TileOf's, in its order; then tile_values where asked for.
constexpr char kTileColumns[] =
    "matrix, tile_index, row_begin, row_end, col_begin, col_end, cells, state, attempts, "
    "lease_owner, lease_expire_ns, cells_done, replica";

int64_t Stored(TileState state) { return static_cast<int64_t>(state); }
int64_t Stored(CostMatrixKind matrix) { return static_cast<int64_t>(matrix); }

// What InsertTiles compares: a tile planned again must be the same rectangle.
std::array<int64_t, 5> Bounds(const CostTile& tile) {
  return {static_cast<int64_t>(tile.row_begin), static_cast<int64_t>(tile.row_end),
          static_cast<int64_t>(tile.col_begin), static_cast<int64_t>(tile.col_end),
          static_cast<int64_t>(tile.cells)};
}

// The row `row` stands on, selected with kTileColumns (and tile_values after them when asked).
absl::StatusOr<TileRecord> TileOf(const Statement& row, const std::string& path,
                                  int64_t session_key, std::string_view id, bool with_values) {
  const std::optional<CostMatrixKind> matrix = MatrixOf(row.Int(0));
  if (!matrix.has_value()) {
    return Damaged(
        path, absl::StrCat("a tile of validation ", std::string(id), " has matrix ", row.Int(0)));
  }
  const int index = static_cast<int>(row.Int(1));
  const std::optional<TileState> state = TileStateOf(row.Int(7));
  if (!state.has_value()) {
    return Damaged(path, absl::StrCat(TileName(*matrix, index, id), " has state ", row.Int(7)));
  }
  TileRecord record;
  record.session_key = session_key;
  record.validation_id = std::string(id);
  record.tile = CostTile{.matrix = *matrix,
                         .index = index,
                         .row_begin = static_cast<size_t>(row.Int(2)),
                         .row_end = static_cast<size_t>(row.Int(3)),
                         .col_begin = static_cast<size_t>(row.Int(4)),
                         .col_end = static_cast<size_t>(row.Int(5)),
                         .cells = static_cast<uint64_t>(row.Int(6))};
  record.state = *state;
  record.attempts = static_cast<int>(row.Int(8));
  record.lease_owner = std::string(row.Bytes(9));
  if (!row.IsNull(10)) record.lease_expire = absl::FromUnixNanos(row.Int(10));
  record.cells_done = static_cast<uint64_t>(row.Int(11));
  record.replica = std::string(row.Bytes(12));
  if (with_values) record.values = std::string(row.Bytes(13));
  return record;
}

// The validation RenewTile and FinishTile act for: its key, and whether its worker is to stop.
struct TileOwner {
  int64_t key = 0;
  bool stop = false;
};

absl::StatusOr<std::optional<TileOwner>> OwnerOf(sqlite3* db, const std::string& path,
                                                 int64_t session_key, std::string_view id) {
  Statement query(db, path,
                  "SELECT key, cancel_requested, state FROM validations WHERE session_key = ? AND "
                  "id = ?");
  query.Bind(1, session_key);
  query.BindText(2, id);
  absl::StatusOr<bool> row = query.Step("reading a validation");
  if (!row.ok()) return row.status();
  if (!*row) return std::optional<TileOwner>();
  return TileOwner{
      .key = query.Int(0),
      .stop = query.Int(1) != 0 || query.Int(2) != static_cast<int64_t>(ValidationState::kRunning)};
}

// Why a renewal or finish of the tile changed nothing, as Aborted.
absl::Status Lost(sqlite3* db, const std::string& path, int64_t key, std::string_view id,
                  CostMatrixKind matrix, int index) {
  Statement query(db, path,
                  "SELECT state, lease_owner FROM validation_tiles WHERE validation_key = ? AND "
                  "matrix = ? AND tile_index = ?");
  query.Bind(1, key);
  query.Bind(2, Stored(matrix));
  query.Bind(3, static_cast<int64_t>(index));
  absl::StatusOr<bool> row = query.Step("reading a tile");
  if (!row.ok()) return row.status();
  if (!*row) return TileLost(matrix, index, id, std::nullopt, "");
  return TileLost(matrix, index, id, TileStateOf(query.Int(0)), query.Bytes(1));
}

}  // namespace

absl::Status SqliteValidationStore::OpenTiles(sqlite3* db, const std::string& path) {
  // Foreign keys are enforced only on a connection that asks, outside a transaction. What ran
  // when the last server stopped has no worker any more, as in Open.
  return Exec(db, path,
              absl::StrCat("PRAGMA foreign_keys = ON; BEGIN IMMEDIATE; ", kTilesSchema,
                           "DELETE FROM validation_tiles WHERE validation_key NOT IN (SELECT key "
                           "FROM validations WHERE state IN (",
                           static_cast<int>(ValidationState::kQueued), ", ",
                           static_cast<int>(ValidationState::kRunning),
                           ")); UPDATE validation_tiles SET state = ", Stored(TileState::kQueued),
                           ", lease_owner = NULL, lease_expire_ns = NULL, cells_done = 0 WHERE "
                           "state = ",
                           Stored(TileState::kRunning), "; COMMIT;"),
              "preparing the validations' tiles");
}

absl::StatusOr<int64_t> SqliteValidationStore::KeyLocked(int64_t session_key, std::string_view id) {
  Statement query(db_, path_, "SELECT key FROM validations WHERE session_key = ? AND id = ?");
  query.Bind(1, session_key);
  query.BindText(2, id);
  absl::StatusOr<bool> row = query.Step("reading a validation");
  if (!row.ok()) return row.status();
  if (!*row) return absl::NotFoundError(absl::StrCat("validation ", std::string(id), " not found"));
  return query.Int(0);
}

absl::Status SqliteValidationStore::DeleteTilesLocked(int64_t session_key, std::string_view id) {
  Statement remove(db_, path_,
                   "DELETE FROM validation_tiles WHERE validation_key IN (SELECT key FROM "
                   "validations WHERE session_key = ? AND id = ?)");
  remove.Bind(1, session_key);
  remove.BindText(2, id);
  return remove.Run("deleting a validation's tiles");
}

absl::Status SqliteValidationStore::ReleaseTilesLocked(std::string_view worker) {
  Statement release(db_, path_,
                    "UPDATE validation_tiles SET state = ?, lease_owner = NULL, lease_expire_ns = "
                    "NULL, cells_done = 0 WHERE state = ? AND lease_owner = ?");
  release.Bind(1, Stored(TileState::kQueued));
  release.Bind(2, Stored(TileState::kRunning));
  release.BindText(3, worker);
  return release.Run("handing tiles back to the queue");
}

absl::Status SqliteValidationStore::InsertTiles(int64_t session_key, std::string_view id,
                                                const std::vector<CostTile>& tiles) {
  for (const CostTile& tile : tiles) {
    if (absl::Status status = tiles_internal::CheckTile(tile, id); !status.ok()) return status;
  }
  absl::MutexLock lock(&mu_);
  Transaction transaction(db_, path_);
  if (absl::Status status = transaction.Begin(); !status.ok()) return status;
  absl::StatusOr<int64_t> key = KeyLocked(session_key, id);
  if (!key.ok()) return key.status();
  Statement existing(db_, path_,
                     "SELECT row_begin, row_end, col_begin, col_end, cells FROM validation_tiles "
                     "WHERE validation_key = ? AND matrix = ? AND tile_index = ?");
  Statement insert(db_, path_,
                   "INSERT INTO validation_tiles (validation_key, matrix, tile_index, row_begin, "
                   "row_end, col_begin, col_end, cells, state) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)");
  for (const CostTile& tile : tiles) {
    const std::array<int64_t, 5> bounds = Bounds(tile);
    existing.Reset();
    existing.Bind(1, *key);
    existing.Bind(2, Stored(tile.matrix));
    existing.Bind(3, static_cast<int64_t>(tile.index));
    absl::StatusOr<bool> row = existing.Step("reading a tile");
    if (!row.ok()) return row.status();
    if (*row) {
      for (int i = 0; i < 5; ++i) {
        if (existing.Int(i) != bounds[i]) return tiles_internal::BoundsDiffer(tile, id);
      }
      continue;
    }
    insert.Reset();
    insert.Bind(1, *key);
    insert.Bind(2, Stored(tile.matrix));
    insert.Bind(3, static_cast<int64_t>(tile.index));
    for (int i = 0; i < 5; ++i) insert.Bind(4 + i, bounds[i]);
    insert.Bind(9, Stored(TileState::kQueued));
    if (absl::Status status = insert.Run("storing tiles"); !status.ok()) return status;
  }
  return transaction.Commit();
}

absl::StatusOr<std::optional<TileRecord>> SqliteValidationStore::ClaimTile(
    std::string_view worker, absl::Time now, absl::Duration lease, const TileClaimScope& scope) {
  absl::MutexLock lock(&mu_);
  Transaction transaction(db_, path_);
  if (absl::Status status = transaction.Begin(); !status.ok()) return status;
  // `t.state IN (1, 2)` is validation_tiles_claim's condition, word for word, so that the
  // index may serve.
  Statement next(db_, path_,
                 "SELECT t.validation_key, t.matrix, t.tile_index, v.session_key, v.id FROM "
                 "validation_tiles t JOIN validations v ON v.key = t.validation_key WHERE "
                 "t.state IN (1, 2) AND (t.state = ? OR t.lease_expire_ns <= ?) AND v.state = ? "
                 "AND v.cancel_requested = 0 AND (? = 0 OR (v.session_key = ? AND v.id = ?)) "
                 "AND (? = 0 OR v.lease_owner IS NOT ?) "
                 "ORDER BY t.validation_key, t.matrix, t.tile_index LIMIT 1");
  next.Bind(1, Stored(TileState::kQueued));
  next.Bind(2, ToNanos(now));
  next.Bind(3, static_cast<int64_t>(ValidationState::kRunning));
  next.Bind(4, int64_t{scope.session_key.has_value()});
  next.Bind(5, scope.session_key.value_or(0));
  next.BindText(6, scope.validation_id);
  next.Bind(7, int64_t{scope.others_only});
  next.BindText(8, worker);
  absl::StatusOr<bool> row = next.Step("finding a queued tile");
  if (!row.ok()) return row.status();
  if (!*row) return std::optional<TileRecord>();
  const int64_t session_key = next.Int(3);
  const std::string id(next.Bytes(4));
  Statement claim(db_, path_,
                  absl::StrCat("UPDATE validation_tiles SET state = ?, lease_owner = ?, "
                               "lease_expire_ns = ?, attempts = attempts + 1, cells_done = 0 "
                               "WHERE validation_key = ? AND matrix = ? AND tile_index = ? "
                               "RETURNING ",
                               kTileColumns));
  claim.Bind(1, Stored(TileState::kRunning));
  claim.BindText(2, worker);
  claim.Bind(3, ToNanos(now + lease));
  claim.Bind(4, next.Int(0));
  claim.Bind(5, next.Int(1));
  claim.Bind(6, next.Int(2));
  absl::StatusOr<bool> claimed = claim.Step("claiming a tile");
  if (!claimed.ok()) return claimed.status();
  if (!*claimed) return absl::InternalError("the claimed tile went away");
  absl::StatusOr<TileRecord> record = TileOf(claim, path_, session_key, id, /*with_values=*/false);
  if (!record.ok()) return record.status();
  if (absl::Status status = StepToEnd(claim, "claiming a tile"); !status.ok()) return status;
  if (absl::Status status = transaction.Commit(); !status.ok()) return status;
  return std::optional<TileRecord>(*std::move(record));
}

absl::StatusOr<LeaseRenewal> SqliteValidationStore::RenewTile(
    int64_t session_key, std::string_view id, CostMatrixKind matrix, int index,
    std::string_view worker, absl::Time now, absl::Duration lease, uint64_t cells_done) {
  absl::MutexLock lock(&mu_);
  absl::StatusOr<std::optional<TileOwner>> owner = OwnerOf(db_, path_, session_key, id);
  if (!owner.ok()) return owner.status();
  if (!owner->has_value()) return TileLost(matrix, index, id, std::nullopt, "");
  Statement renew(db_, path_,
                  "UPDATE validation_tiles SET lease_expire_ns = ?, cells_done = ? WHERE "
                  "validation_key = ? AND matrix = ? AND tile_index = ? AND state = ? AND "
                  "lease_owner = ?");
  renew.Bind(1, ToNanos(now + lease));
  renew.Bind(2, static_cast<int64_t>(cells_done));
  renew.Bind(3, (*owner)->key);
  renew.Bind(4, Stored(matrix));
  renew.Bind(5, static_cast<int64_t>(index));
  renew.Bind(6, Stored(TileState::kRunning));
  renew.BindText(7, worker);
  if (absl::Status status = renew.Run("renewing a tile's lease"); !status.ok()) return status;
  if (sqlite3_changes(db_) == 0) return Lost(db_, path_, (*owner)->key, id, matrix, index);
  return LeaseRenewal{.cancel_requested = (*owner)->stop};
}

absl::Status SqliteValidationStore::FinishTile(int64_t session_key, std::string_view id,
                                               CostMatrixKind matrix, int index,
                                               std::string_view worker, std::string_view replica,
                                               std::string_view values) {
  absl::MutexLock lock(&mu_);
  absl::StatusOr<std::optional<TileOwner>> owner = OwnerOf(db_, path_, session_key, id);
  if (!owner.ok()) return owner.status();
  if (!owner->has_value()) return TileLost(matrix, index, id, std::nullopt, "");
  Statement finish(db_, path_,
                   "UPDATE validation_tiles SET state = ?, replica = ?, tile_values = ?, "
                   "cells_done = cells, lease_owner = NULL, lease_expire_ns = NULL WHERE "
                   "validation_key = ? AND matrix = ? AND tile_index = ? AND state = ? AND "
                   "lease_owner = ?");
  finish.Bind(1, Stored(TileState::kDone));
  finish.BindText(2, replica);
  finish.BindBlob(3, values);
  finish.Bind(4, (*owner)->key);
  finish.Bind(5, Stored(matrix));
  finish.Bind(6, static_cast<int64_t>(index));
  finish.Bind(7, Stored(TileState::kRunning));
  finish.BindText(8, worker);
  if (absl::Status status = finish.Run("storing a tile"); !status.ok()) return status;
  if (sqlite3_changes(db_) == 0) return Lost(db_, path_, (*owner)->key, id, matrix, index);
  return absl::OkStatus();
}

absl::StatusOr<TileCounts> SqliteValidationStore::CountTiles(int64_t session_key,
                                                             std::string_view id,
                                                             std::optional<CostMatrixKind> matrix) {
  absl::MutexLock lock(&mu_);
  absl::StatusOr<int64_t> key = KeyLocked(session_key, id);
  if (!key.ok()) return key.status();
  // A done tile's cells_done is its cells; a queued one's counts nothing, whatever it holds.
  Statement count(db_, path_,
                  "SELECT count(*), coalesce(sum(state = ?), 0), coalesce(sum(cells), 0), "
                  "coalesce(sum(CASE state WHEN ? THEN cells WHEN ? THEN cells_done ELSE 0 END), "
                  "0) FROM validation_tiles WHERE validation_key = ? AND (? = 0 OR matrix = ?)");
  count.Bind(1, Stored(TileState::kDone));
  count.Bind(2, Stored(TileState::kDone));
  count.Bind(3, Stored(TileState::kRunning));
  count.Bind(4, *key);
  count.Bind(5, int64_t{matrix.has_value()});
  count.Bind(6, matrix.has_value() ? Stored(*matrix) : 0);
  absl::StatusOr<bool> row = count.Step("counting tiles");
  if (!row.ok()) return row.status();
  return TileCounts{.tiles = count.Int(0),
                    .done = count.Int(1),
                    .cells = static_cast<uint64_t>(count.Int(2)),
                    .cells_done = static_cast<uint64_t>(count.Int(3))};
}

absl::StatusOr<std::vector<TileRecord>> SqliteValidationStore::ReadTiles(int64_t session_key,
                                                                         std::string_view id,
                                                                         CostMatrixKind matrix) {
  absl::MutexLock lock(&mu_);
  absl::StatusOr<int64_t> key = KeyLocked(session_key, id);
  if (!key.ok()) return key.status();
  Statement query(db_, path_,
                  absl::StrCat("SELECT ", kTileColumns,
                               ", tile_values FROM validation_tiles WHERE validation_key = ? AND "
                               "matrix = ? ORDER BY tile_index"));
  query.Bind(1, *key);
  query.Bind(2, Stored(matrix));
  std::vector<TileRecord> tiles;
  for (;;) {
    absl::StatusOr<bool> row = query.Step("reading tiles");
    if (!row.ok()) return row.status();
    if (!*row) break;
    absl::StatusOr<TileRecord> tile = TileOf(query, path_, session_key, id, /*with_values=*/true);
    if (!tile.ok()) return tile.status();
    tiles.push_back(*std::move(tile));
  }
  return tiles;
}

absl::StatusOr<std::vector<TileShare>> SqliteValidationStore::TileShares(int64_t session_key,
                                                                         std::string_view id) {
  absl::MutexLock lock(&mu_);
  absl::StatusOr<int64_t> key = KeyLocked(session_key, id);
  if (!key.ok()) return key.status();
  Statement query(db_, path_,
                  "SELECT replica, count(*), sum(cells) FROM validation_tiles WHERE "
                  "validation_key = ? AND state = ? GROUP BY replica ORDER BY replica");
  query.Bind(1, *key);
  query.Bind(2, Stored(TileState::kDone));
  std::vector<TileShare> shares;
  for (;;) {
    absl::StatusOr<bool> row = query.Step("reading tile shares");
    if (!row.ok()) return row.status();
    if (!*row) break;
    shares.push_back(TileShare{.replica = std::string(query.Bytes(0)),
                               .tiles = static_cast<uint64_t>(query.Int(1)),
                               .dp_cells = static_cast<uint64_t>(query.Int(2))});
  }
  return shares;
}

}  // namespace wasserwarp::service
