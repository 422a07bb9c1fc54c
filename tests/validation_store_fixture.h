// The fixture of the validation store's tests (validation_store_test.cc, and the tiles'
// validation_store_tiles_test.cc and validation_store_tile_backends_test.cc, one binary): every
// test on SQLite and on a real PostgreSQL 15 (one server for the binary, a database of its own
// for each test), and the tiles and values they store.

#ifndef WASSERWARP_TESTS_VALIDATION_STORE_FIXTURE_H_
#define WASSERWARP_TESTS_VALIDATION_STORE_FIXTURE_H_

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <algorithm>
#include <bit>
#include <cctype>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "postgres_fixture.h"
#include "storage/postgres.h"
#include "storage/postgres_pool.h"
#include "storage/postgres_schema.h"
#include "validations/postgres_validation_store.h"
#include "validations/sqlite_validation_store.h"

namespace wasserwarp::service::store_test {

inline const absl::Time kStart = absl::FromUnixSeconds(1'800'000'000);
inline constexpr absl::Duration kLease = absl::Seconds(30);

inline ValidationRecord Queued(int64_t session_key, const std::string& id, absl::Time created) {
  ValidationRecord record;
  record.session_key = session_key;
  record.session_id = absl::StrCat("bench-", session_key);
  record.id = id;
  record.owner = "alice";
  record.request = "request bytes";
  record.effective_parameters = "parameters";
  record.runs = {{.series_id = "sim0", .role = RunRole::kSimulation, .checksum = 1},
                 {.series_id = "ref0", .role = RunRole::kReference, .checksum = ~0ULL}};
  record.create_time = created;
  return record;
}

// The session a Queued record belongs to, as the store keeps it.
inline RecordedSession Kept(int64_t session_key) {
  RecordedSession session;
  session.key = session_key;
  session.id = absl::StrCat("bench-", session_key);
  session.owner = "alice";
  session.create_time = kStart;
  session.summary = "session summary";
  return session;
}

inline ValidationResult Result(ValidationState state, const absl::Status& error,
                               std::string_view report) {
  ValidationResult result;
  result.state = state;
  result.error = error;
  result.report = std::string(report);
  if (state == ValidationState::kSucceeded) result.outcome.distance = 1.5;
  return result;
}

inline ValidationQuery OfSession(int64_t session_key,
                                 ValidationOrder order = ValidationOrder::kNewestFirst,
                                 std::optional<ValidationState> state = std::nullopt) {
  ValidationQuery query;
  query.session_key = session_key;
  query.order = order;
  query.state = state;
  return query;
}

inline ValidationQuery OfOwner(const std::string& owner) {
  ValidationQuery query;
  query.owner = owner;
  return query;
}

// The records a query of one session selects, all of them, in order.
inline std::vector<std::string> IdsOf(ValidationStore& store, const ValidationQuery& query,
                                      int page_size = 2) {
  std::vector<std::string> ids;
  std::optional<ValidationCursor> after;
  do {
    absl::StatusOr<ValidationPage> page = store.List(query, after, page_size);
    if (!page.ok()) return {absl::StrCat("error: ", page.status().ToString())};
    for (const ValidationRecord& record : page->validations) ids.push_back(record.id);
    after = page->next;
  } while (after.has_value());
  return ids;
}

// `data_dir` as SqliteValidationStore::Open takes it: "" for one in memory.
inline std::unique_ptr<SqliteValidationStore> OpenSqlite(const std::string& data_dir = "") {
  absl::StatusOr<std::unique_ptr<SqliteValidationStore>> store =
      SqliteValidationStore::Open(data_dir);
  EXPECT_TRUE(store.ok()) << store.status();
  return store.ok() ? *std::move(store) : nullptr;
}

inline std::unique_ptr<SqliteValidationStore> InMemory() { return OpenSqlite(); }

// A fresh, migrated database on the binary's PostgreSQL; its URL, or "" after a failure.
inline std::string NewPostgresDatabase() {
  test_support::PostgresServer* server = postgres::server;
  EXPECT_NE(server, nullptr);
  if (server == nullptr) return "";
  EXPECT_TRUE(server->ok()) << server->error();
  if (!server->ok()) return "";
  // A test that failed half-way through a restart leaves the server down.
  if (!server->running()) {
    EXPECT_TRUE(server->Start());
  }
  static int serial = 0;
  std::string name = absl::StrCat("v", ++serial, "_",
                                  ::testing::UnitTest::GetInstance()->current_test_info()->name());
  for (char& c : name) c = std::isalnum(static_cast<unsigned char>(c)) ? std::tolower(c) : '_';
  name.resize(std::min<size_t>(name.size(), 60));
  EXPECT_TRUE(server->CreateDatabase(name));
  const std::string url = server->url(name, postgres::kPassword);
  absl::StatusOr<postgres::Connection> connection = postgres::Connection::Open(url);
  EXPECT_TRUE(connection.ok()) << connection.status();
  if (!connection.ok()) return "";
  const absl::Status migrated = postgres::Migrate(*connection);
  EXPECT_TRUE(migrated.ok()) << migrated;
  return migrated.ok() ? url : "";
}

// The `sessions` row a PostgreSQL validation's foreign key wants.
inline void AddPostgresSession(postgres::Pool& pool, int64_t key) {
  const std::string id = absl::StrCat("s", key);
  const absl::Status status = postgres::RunTransaction(pool, "adding a session", [&](auto& c) {
    return c
        .Exec(
            "INSERT INTO sessions (key, id, owner, settings, create_time_ns, last_use_ns)"
            " VALUES ($1, $2, 'alice', '', 0, 0)",
            {postgres::Param::Int64(key), postgres::Param::Text(id)}, "adding a session")
        .status();
  });
  EXPECT_TRUE(status.ok()) << status;
}

enum class Backend { kSqlite, kPostgres };

inline std::string BackendName(const ::testing::TestParamInfo<Backend>& info) {
  return info.param == Backend::kSqlite ? "Sqlite" : "Postgres";
}

// Each test's store, on the backend of its parameter.
class ValidationStoreTest : public ::testing::TestWithParam<Backend> {
 protected:
  void SetUp() override {
    if (GetParam() == Backend::kSqlite) {
      sqlite_ = InMemory();
      ASSERT_NE(sqlite_, nullptr);
      store_ = sqlite_.get();
      return;
    }
    const std::string url = NewPostgresDatabase();
    ASSERT_FALSE(url.empty());
    pool_ = std::make_unique<postgres::Pool>(url, 2);
    postgres_ = std::make_unique<PostgresValidationStore>(*pool_);
    store_ = postgres_.get();
  }

  // What a validation of session instance `key` needs first: nothing in SQLite, the session's
  // row in PostgreSQL.
  void AddSession(int64_t key) {
    if (pool_ != nullptr) AddPostgresSession(*pool_, key);
  }

  ValidationStore& store() { return *store_; }

  std::unique_ptr<SqliteValidationStore> sqlite_;
  std::unique_ptr<postgres::Pool> pool_;
  std::unique_ptr<PostgresValidationStore> postgres_;
  ValidationStore* store_ = nullptr;
};

// --- Tiles ---

inline constexpr CostMatrixKind kSimRef = CostMatrixKind::kSimulationReference;
inline constexpr CostMatrixKind kSimSim = CostMatrixKind::kSimulationSimulation;
// The worker holding the validations whose tiles the tests claim.
inline constexpr char kHolder[] = "validation-worker";

// Tile `index` of `matrix`: rows [2 index, 2 index + 2) against columns [0, 3).
inline CostTile Tile(CostMatrixKind matrix, int index, uint64_t cells = 60) {
  return CostTile{.matrix = matrix,
                  .index = index,
                  .row_begin = static_cast<size_t>(2 * index),
                  .row_end = static_cast<size_t>(2 * index + 2),
                  .col_begin = 0,
                  .col_end = 3,
                  .cells = cells};
}

// The values a tile is stored with: IEEE doubles, little-endian, whatever this machine's order.
inline std::string LittleEndian(const std::vector<double>& values) {
  std::string bytes;
  for (double value : values) {
    const uint64_t bits = std::bit_cast<uint64_t>(value);
    for (int i = 0; i < 8; ++i) bytes.push_back(static_cast<char>(bits >> (8 * i)));
  }
  return bytes;
}

// Six values of a 2 x 3 tile, different for each `seed`.
inline std::string Values(double seed) {
  return LittleEndian({seed, seed + 1, seed + 2, seed + 3, seed + 4, seed + 5});
}

// Where a claimed tile is: matrix and index.
inline std::optional<std::tuple<CostMatrixKind, int>> Place(
    const absl::StatusOr<std::optional<TileRecord>>& claimed) {
  EXPECT_TRUE(claimed.ok()) << claimed.status();
  if (!claimed.ok() || !claimed->has_value()) return std::nullopt;
  return std::make_tuple((*claimed)->tile.matrix, (*claimed)->tile.index);
}

// The rows of validation_tiles in the SQLite file at `path`, read on a connection of its own.
inline int64_t SqliteTileRows(const std::string& path) {
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  sqlite3_stmt* count = nullptr;
  int64_t rows = -1;
  if (sqlite3_prepare_v2(db, "SELECT count(*) FROM validation_tiles", -1, &count, nullptr) ==
          SQLITE_OK &&
      sqlite3_step(count) == SQLITE_ROW) {
    rows = sqlite3_column_int64(count, 0);
  }
  sqlite3_finalize(count);
  sqlite3_close(db);
  return rows;
}

}  // namespace wasserwarp::service::store_test

#endif  // WASSERWARP_TESTS_VALIDATION_STORE_FIXTURE_H_
