// The tile half of PostgresValidationStore: the tiles of its validations, in `validation_tiles`.

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "storage/postgres.h"
#include "storage/postgres_pool.h"
#include "validations/postgres_validation_store.h"
#include "validations/postgres_validation_store_internal.h"
#include "validations/validation_tiles_internal.h"

namespace wasserwarp::service {
namespace {

using postgres::Connection;
using postgres::Param;
using postgres::Result;
using postgres_store_internal::Cells;
using postgres_store_internal::NotFound;
using postgres_store_internal::State;
using postgres_store_internal::ToNanos;
using tiles_internal::MatrixOf;
using tiles_internal::TileLost;
using tiles_internal::TileName;
using tiles_internal::TileStateOf;

Param Stored(TileState state) { return Param::Int64(static_cast<int64_t>(state)); }
Param Stored(CostMatrixKind matrix) { return Param::Int64(static_cast<int64_t>(matrix)); }

// TileOf's, in its order; then t.tile_values where asked for.
constexpr char kTileColumns[] =
    "t.matrix, t.tile_index, t.row_begin, t.row_end, t.col_begin, t.col_end, t.cells, t.state,"
    " t.attempts, t.lease_owner, t.lease_expire_ns, t.cells_done, t.replica";

// The tiles InsertTiles is given, as the columns of unnest($2::bigint[], ... $8::bigint[]) AS
// u(matrix, tile_index, row_begin, row_end, col_begin, col_end, cells) WITH ORDINALITY: one
// array literal each, in that order.
std::vector<std::string> TileArrays(const std::vector<CostTile>& tiles) {
  std::vector<std::vector<int64_t>> columns(7);
  for (const CostTile& tile : tiles) {
    columns[0].push_back(static_cast<int64_t>(tile.matrix));
    columns[1].push_back(tile.index);
    columns[2].push_back(static_cast<int64_t>(tile.row_begin));
    columns[3].push_back(static_cast<int64_t>(tile.row_end));
    columns[4].push_back(static_cast<int64_t>(tile.col_begin));
    columns[5].push_back(static_cast<int64_t>(tile.col_end));
    columns[6].push_back(static_cast<int64_t>(tile.cells));
  }
  std::vector<std::string> arrays;
  for (const std::vector<int64_t>& column : columns) {
    arrays.push_back(absl::StrCat("{", absl::StrJoin(column, ","), "}"));
  }
  return arrays;
}

constexpr char kUnnestTiles[] =
    "unnest($2::bigint[], $3::bigint[], $4::bigint[], $5::bigint[], $6::bigint[], $7::bigint[],"
    " $8::bigint[]) WITH ORDINALITY AS u(matrix, tile_index, row_begin, row_end, col_begin,"
    " col_end, cells, n)";

// Row `row` of `result`, selected with kTileColumns (and t.tile_values after them when asked).
absl::StatusOr<TileRecord> TileOf(const Result& result, int row, int64_t session_key,
                                  std::string_view id, bool with_values,
                                  const std::string& database) {
  const auto damaged = [&](const std::string& what) {
    return absl::DataLossError(
        absl::StrCat("PostgreSQL ", database, ": the validation_tiles table is damaged: ", what));
  };
  Cells cells(result, row);
  TileRecord record;
  record.session_key = session_key;
  record.validation_id = std::string(id);
  const int64_t matrix = cells.Int(0);
  record.tile.index = static_cast<int>(cells.Int(1));
  record.tile.row_begin = static_cast<size_t>(cells.Int(2));
  record.tile.row_end = static_cast<size_t>(cells.Int(3));
  record.tile.col_begin = static_cast<size_t>(cells.Int(4));
  record.tile.col_end = static_cast<size_t>(cells.Int(5));
  record.tile.cells = static_cast<uint64_t>(cells.Int(6));
  const int64_t state = cells.Int(7);
  record.attempts = static_cast<int>(cells.Int(8));
  record.lease_owner = cells.Text(9);
  record.lease_expire = cells.Time(10);
  record.cells_done = static_cast<uint64_t>(cells.Int(11));
  record.replica = cells.Text(12);
  if (with_values) record.values = cells.Bytes(13);
  if (!cells.status().ok()) return damaged(std::string(cells.status().message()));
  const std::optional<CostMatrixKind> kind = MatrixOf(matrix);
  if (!kind.has_value()) {
    return damaged(absl::StrCat("a tile of validation ", std::string(id), " has matrix ", matrix));
  }
  record.tile.matrix = *kind;
  const std::optional<TileState> tile_state = TileStateOf(state);
  if (!tile_state.has_value()) {
    return damaged(absl::StrCat(TileName(*kind, record.tile.index, id), " has state ", state));
  }
  record.state = *tile_state;
  return record;
}

absl::StatusOr<int64_t> KeyOn(Connection& connection, int64_t session_key, std::string_view id,
                              std::string_view doing) {
  absl::StatusOr<Result> result =
      connection.Exec("SELECT key FROM validations WHERE session_key = $1 AND id = $2",
                      {Param::Int64(session_key), Param::Text(id)}, doing);
  if (!result.ok()) return result.status();
  if (result->rows() == 0) return NotFound(id);
  return result->GetInt64(0, 0);
}

// Why a renewal or finish of the tile changed nothing, in `lost`: the Aborted to return once
// the transaction is over (as the body's, RunTransaction would run it again).
absl::Status WhyLost(Connection& connection, int64_t session_key, std::string_view id,
                     CostMatrixKind matrix, int index, std::string_view doing, absl::Status& lost) {
  absl::StatusOr<Result> result = connection.Exec(
      "SELECT t.state, t.lease_owner FROM validation_tiles t JOIN validations v ON"
      " v.key = t.validation_key WHERE v.session_key = $1 AND v.id = $2 AND t.matrix = $3"
      " AND t.tile_index = $4",
      {Param::Int64(session_key), Param::Text(id), Stored(matrix),
       Param::Int64(static_cast<int64_t>(index))},
      doing);
  if (!result.ok()) return result.status();
  if (result->rows() == 0) {
    lost = TileLost(matrix, index, id, std::nullopt, "");
    return absl::OkStatus();
  }
  absl::StatusOr<int64_t> state = result->GetInt64(0, 0);
  if (!state.ok()) return state.status();
  lost = TileLost(matrix, index, id, TileStateOf(*state), result->GetText(0, 1));
  return absl::OkStatus();
}

}  // namespace

namespace postgres_store_internal {

absl::Status DeleteTilesOn(Connection& connection, int64_t session_key, std::string_view id) {
  return connection
      .Exec(
          "DELETE FROM validation_tiles WHERE validation_key IN (SELECT key FROM validations"
          " WHERE session_key = $1 AND id = $2)",
          {Param::Int64(session_key), Param::Text(id)}, "deleting a validation's tiles")
      .status();
}

absl::Status ReleaseTilesOn(Connection& connection, std::string_view worker) {
  return connection
      .Exec(
          "UPDATE validation_tiles SET state = $1, lease_owner = NULL, lease_expire_ns = NULL,"
          " cells_done = 0 WHERE state = $2 AND lease_owner = $3",
          {Stored(TileState::kQueued), Stored(TileState::kRunning), Param::Text(worker)},
          "handing tiles back to the queue")
      .status();
}

}  // namespace postgres_store_internal

absl::Status PostgresValidationStore::InsertTiles(int64_t session_key, std::string_view id,
                                                  const std::vector<CostTile>& tiles) {
  for (const CostTile& tile : tiles) {
    if (absl::Status status = tiles_internal::CheckTile(tile, id); !status.ok()) return status;
  }
  const std::vector<std::string> arrays = TileArrays(tiles);
  const auto with_arrays = [&](Param key) {
    std::vector<Param> params = {key};
    for (const std::string& array : arrays) params.push_back(Param::Text(array));
    return params;
  };
  // Run again, the insert finds every tile there and the check finds them the same.
  return postgres::RunTransaction(
      pool_, "storing tiles",
      [&](Connection& connection) -> absl::Status {
        // Keeps the validation from being deleted until its tiles are in.
        absl::StatusOr<Result> validation = connection.Exec(
            "SELECT key FROM validations WHERE session_key = $1 AND id = $2 FOR KEY SHARE",
            {Param::Int64(session_key), Param::Text(id)}, "storing tiles");
        if (!validation.ok()) return validation.status();
        if (validation->rows() == 0) return NotFound(id);
        absl::StatusOr<int64_t> key = validation->GetInt64(0, 0);
        if (!key.ok()) return key.status();
        std::vector<Param> insert_params = with_arrays(Param::Int64(*key));
        insert_params.push_back(Stored(TileState::kQueued));
        absl::StatusOr<Result> inserted = connection.Exec(
            absl::StrCat("INSERT INTO validation_tiles (validation_key, matrix, tile_index,"
                         " row_begin, row_end, col_begin, col_end, cells, state) SELECT $1,"
                         " u.matrix, u.tile_index, u.row_begin, u.row_end, u.col_begin, u.col_end,"
                         " u.cells, $9 FROM ",
                         kUnnestTiles,
                         " ON CONFLICT (validation_key, matrix, tile_index) DO NOTHING"),
            insert_params, "storing tiles");
        if (!inserted.ok()) return inserted.status();
        // After the insert, so that two of `tiles` at one place with other bounds are refused
        // as well.
        absl::StatusOr<Result> differing = connection.Exec(
            absl::StrCat("SELECT u.n FROM validation_tiles t JOIN ", kUnnestTiles,
                         " ON t.matrix = u.matrix AND t.tile_index = u.tile_index"
                         " WHERE t.validation_key = $1 AND (t.row_begin, t.row_end, t.col_begin,"
                         " t.col_end, t.cells) <> (u.row_begin, u.row_end, u.col_begin, u.col_end,"
                         " u.cells) ORDER BY u.n LIMIT 1"),
            with_arrays(Param::Int64(*key)), "storing tiles");
        if (!differing.ok()) return differing.status();
        if (differing->rows() == 0) return absl::OkStatus();
        absl::StatusOr<int64_t> n = differing->GetInt64(0, 0);
        if (!n.ok()) return n.status();
        if (*n < 1 || *n > static_cast<int64_t>(tiles.size())) {
          return absl::InternalError(absl::StrCat("unnest gave tile ", *n, " of ", tiles.size()));
        }
        return tiles_internal::BoundsDiffer(tiles[*n - 1], id);
      },
      options_);
}

absl::StatusOr<std::optional<TileRecord>> PostgresValidationStore::ClaimTile(
    std::string_view worker, absl::Time now, absl::Duration lease, const TileClaimScope& scope) {
  std::optional<TileRecord> claimed;
  absl::Status status = postgres::RunTransaction(
      pool_, "claiming a tile",
      [&](Connection& connection) -> absl::Status {
        claimed.reset();
        // SKIP LOCKED: a tile another replica is claiming right now is its, not ours; OF t, so
        // that claims of other tiles of the validation go ahead side by side. `t.state IN (1,
        // 2)` is validation_tiles_claim's condition, which the planner must see to use it.
        absl::StatusOr<Result> next = connection.Exec(
            "SELECT t.validation_key, t.matrix, t.tile_index FROM validation_tiles t JOIN"
            " validations v ON v.key = t.validation_key WHERE t.state IN (1, 2) AND"
            " (t.state = $1 OR t.lease_expire_ns <= $2) AND v.state = $3 AND"
            " NOT v.cancel_requested AND ($4 = 0 OR (v.session_key = $5 AND v.id = $6)) AND"
            " ($7 = 0 OR v.lease_owner IS DISTINCT FROM $8)"
            " ORDER BY t.validation_key, t.matrix, t.tile_index LIMIT 1 FOR UPDATE OF t"
            " SKIP LOCKED",
            {Stored(TileState::kQueued), Param::Int64(ToNanos(now)),
             State(ValidationState::kRunning), Param::Int64(scope.session_key.has_value()),
             Param::Int64(scope.session_key.value_or(0)), Param::Text(scope.validation_id),
             Param::Int64(scope.others_only), Param::Text(worker)},
            "finding a queued tile");
        if (!next.ok()) return next.status();
        if (next->rows() == 0) return absl::OkStatus();
        absl::StatusOr<int64_t> key = next->GetInt64(0, 0);
        absl::StatusOr<int64_t> matrix = next->GetInt64(0, 1);
        absl::StatusOr<int64_t> index = next->GetInt64(0, 2);
        for (const absl::Status& cell : {key.status(), matrix.status(), index.status()}) {
          if (!cell.ok()) return cell;
        }
        absl::StatusOr<Result> updated = connection.Exec(
            absl::StrCat("UPDATE validation_tiles t SET state = $1, lease_owner = $2,"
                         " lease_expire_ns = $3, attempts = t.attempts + 1, cells_done = 0"
                         " FROM validations v WHERE v.key = t.validation_key AND"
                         " t.validation_key = $4 AND t.matrix = $5 AND t.tile_index = $6"
                         " RETURNING ",
                         kTileColumns, ", v.session_key, v.id"),
            {Stored(TileState::kRunning), Param::Text(worker), Param::Int64(ToNanos(now + lease)),
             Param::Int64(*key), Param::Int64(*matrix), Param::Int64(*index)},
            "claiming a tile");
        if (!updated.ok()) return updated.status();
        if (updated->rows() != 1) return absl::AbortedError("the claimed tile went away");
        absl::StatusOr<int64_t> session_key = updated->GetInt64(0, 13);
        if (!session_key.ok()) return session_key.status();
        absl::StatusOr<TileRecord> record =
            TileOf(*updated, 0, *session_key, updated->GetText(0, 14), /*with_values=*/false,
                   connection.redacted_url());
        if (!record.ok()) return record.status();
        claimed = *std::move(record);
        return absl::OkStatus();
      },
      options_);
  if (!status.ok()) return status;
  return claimed;
}

absl::StatusOr<LeaseRenewal> PostgresValidationStore::RenewTile(
    int64_t session_key, std::string_view id, CostMatrixKind matrix, int index,
    std::string_view worker, absl::Time now, absl::Duration lease, uint64_t cells_done) {
  constexpr char kDoing[] = "renewing a tile's lease";
  LeaseRenewal renewal;
  absl::Status lost;
  // Run again, it renews the lease to the same expiry.
  absl::Status status = postgres::RunTransaction(
      pool_, kDoing,
      [&](Connection& connection) -> absl::Status {
        lost = absl::OkStatus();
        absl::StatusOr<Result> renewed = connection.Exec(
            "UPDATE validation_tiles t SET lease_expire_ns = $1, cells_done = $2 FROM validations"
            " v WHERE v.key = t.validation_key AND v.session_key = $3 AND v.id = $4 AND"
            " t.matrix = $5 AND t.tile_index = $6 AND t.state = $7 AND t.lease_owner = $8"
            " RETURNING v.cancel_requested OR v.state <> $9",
            {Param::Int64(ToNanos(now + lease)), Param::Int64(static_cast<int64_t>(cells_done)),
             Param::Int64(session_key), Param::Text(id), Stored(matrix),
             Param::Int64(static_cast<int64_t>(index)), Stored(TileState::kRunning),
             Param::Text(worker), State(ValidationState::kRunning)},
            kDoing);
        if (!renewed.ok()) return renewed.status();
        if (renewed->rows() == 0) {
          return WhyLost(connection, session_key, id, matrix, index, kDoing, lost);
        }
        absl::StatusOr<bool> stop = renewed->GetBool(0, 0);
        if (!stop.ok()) return stop.status();
        renewal.cancel_requested = *stop;
        return absl::OkStatus();
      },
      options_);
  if (!status.ok()) return status;
  if (!lost.ok()) return lost;
  return renewal;
}

absl::Status PostgresValidationStore::FinishTile(int64_t session_key, std::string_view id,
                                                 CostMatrixKind matrix, int index,
                                                 std::string_view worker, std::string_view replica,
                                                 std::string_view values) {
  constexpr char kDoing[] = "storing a tile";
  int attempt = 0;
  absl::Status lost;
  const absl::Status status = postgres::RunTransaction(
      pool_, kDoing,
      [&](Connection& connection) -> absl::Status {
        ++attempt;
        lost = absl::OkStatus();
        const std::vector<Param> tile = {Param::Int64(session_key), Param::Text(id), Stored(matrix),
                                         Param::Int64(static_cast<int64_t>(index))};
        absl::StatusOr<Result> finished = connection.Exec(
            "UPDATE validation_tiles t SET state = $5, replica = $6, tile_values = $7,"
            " cells_done = t.cells, lease_owner = NULL, lease_expire_ns = NULL FROM validations v"
            " WHERE v.key = t.validation_key AND v.session_key = $1 AND v.id = $2 AND"
            " t.matrix = $3 AND t.tile_index = $4 AND t.state = $8 AND t.lease_owner = $9",
            {tile[0], tile[1], tile[2], tile[3], Stored(TileState::kDone), Param::Text(replica),
             Param::Bytes(values), Stored(TileState::kRunning), Param::Text(worker)},
            kDoing);
        if (!finished.ok()) return finished.status();
        if (finished->affected_rows() == 1) return absl::OkStatus();
        if (attempt > 1) {
          // An earlier attempt whose COMMIT lost its answer may have finished it just so.
          absl::StatusOr<Result> done = connection.Exec(
              "SELECT 1 FROM validation_tiles t JOIN validations v ON v.key = t.validation_key"
              " WHERE v.session_key = $1 AND v.id = $2 AND t.matrix = $3 AND t.tile_index = $4"
              " AND t.state = $5 AND t.replica = $6 AND t.tile_values = $7",
              {tile[0], tile[1], tile[2], tile[3], Stored(TileState::kDone), Param::Text(replica),
               Param::Bytes(values)},
              kDoing);
          if (!done.ok()) return done.status();
          if (done->rows() == 1) return absl::OkStatus();
        }
        return WhyLost(connection, session_key, id, matrix, index, kDoing, lost);
      },
      options_);
  if (!status.ok()) return status;
  return lost;
}

absl::StatusOr<TileCounts> PostgresValidationStore::CountTiles(
    int64_t session_key, std::string_view id, std::optional<CostMatrixKind> matrix) {
  TileCounts counts;
  absl::Status status = postgres::RunTransaction(
      pool_, "counting tiles",
      [&](Connection& connection) -> absl::Status {
        // The validation's row, tiles or none: no row at all is no such validation. A done
        // tile's cells_done is its cells; a queued one's counts nothing, whatever it holds.
        absl::StatusOr<Result> result = connection.Exec(
            "SELECT count(t.validation_key), count(*) FILTER (WHERE t.state = $3),"
            " coalesce(sum(t.cells), 0)::bigint, coalesce(sum(CASE t.state WHEN $3 THEN t.cells"
            " WHEN $4 THEN t.cells_done ELSE 0 END), 0)::bigint FROM validations v LEFT JOIN"
            " validation_tiles t ON t.validation_key = v.key AND ($5 = 0 OR t.matrix = $6)"
            " WHERE v.session_key = $1 AND v.id = $2 GROUP BY v.key",
            {Param::Int64(session_key), Param::Text(id), Stored(TileState::kDone),
             Stored(TileState::kRunning), Param::Int64(matrix.has_value()),
             Param::Int64(matrix.has_value() ? static_cast<int64_t>(*matrix) : 0)},
            "counting tiles");
        if (!result.ok()) return result.status();
        if (result->rows() == 0) return NotFound(id);
        Cells cells(*result, 0);
        counts = TileCounts{.tiles = cells.Int(0),
                            .done = cells.Int(1),
                            .cells = static_cast<uint64_t>(cells.Int(2)),
                            .cells_done = static_cast<uint64_t>(cells.Int(3))};
        return cells.status();
      },
      options_);
  if (!status.ok()) return status;
  return counts;
}

absl::StatusOr<std::vector<TileRecord>> PostgresValidationStore::ReadTiles(int64_t session_key,
                                                                           std::string_view id,
                                                                           CostMatrixKind matrix) {
  std::vector<TileRecord> tiles;
  absl::Status status = postgres::RunTransaction(
      pool_, "reading tiles",
      [&](Connection& connection) -> absl::Status {
        tiles.clear();
        absl::StatusOr<int64_t> key = KeyOn(connection, session_key, id, "reading tiles");
        if (!key.ok()) return key.status();
        absl::StatusOr<Result> result = connection.Exec(
            absl::StrCat("SELECT ", kTileColumns,
                         ", t.tile_values FROM validation_tiles t WHERE t.validation_key = $1"
                         " AND t.matrix = $2 ORDER BY t.tile_index"),
            {Param::Int64(*key), Stored(matrix)}, "reading tiles");
        if (!result.ok()) return result.status();
        for (int row = 0; row < result->rows(); ++row) {
          absl::StatusOr<TileRecord> tile = TileOf(*result, row, session_key, id,
                                                   /*with_values=*/true, connection.redacted_url());
          if (!tile.ok()) return tile.status();
          tiles.push_back(*std::move(tile));
        }
        return absl::OkStatus();
      },
      options_);
  if (!status.ok()) return status;
  return tiles;
}

absl::StatusOr<std::vector<TileShare>> PostgresValidationStore::TileShares(int64_t session_key,
                                                                           std::string_view id) {
  std::vector<TileShare> shares;
  absl::Status status = postgres::RunTransaction(
      pool_, "reading tile shares",
      [&](Connection& connection) -> absl::Status {
        shares.clear();
        absl::StatusOr<int64_t> key = KeyOn(connection, session_key, id, "reading tile shares");
        if (!key.ok()) return key.status();
        // COLLATE "C": by the names' bytes, as SQLite orders them, whatever the database's
        // collation.
        absl::StatusOr<Result> result = connection.Exec(
            "SELECT t.replica, count(*), sum(t.cells)::bigint FROM validation_tiles t WHERE"
            " t.validation_key = $1 AND t.state = $2 GROUP BY t.replica"
            " ORDER BY t.replica COLLATE \"C\"",
            {Param::Int64(*key), Stored(TileState::kDone)}, "reading tile shares");
        if (!result.ok()) return result.status();
        for (int row = 0; row < result->rows(); ++row) {
          Cells cells(*result, row);
          shares.push_back(TileShare{.replica = cells.Text(0),
                                     .tiles = static_cast<uint64_t>(cells.Int(1)),
                                     .dp_cells = static_cast<uint64_t>(cells.Int(2))});
          if (!cells.status().ok()) return cells.status();
        }
        return absl::OkStatus();
      },
      options_);
  if (!status.ok()) return status;
  return shares;
}

}  // namespace wasserwarp::service
