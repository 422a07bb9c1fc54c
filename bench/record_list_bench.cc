// ListValidations' query in each store over 100 000 records: a page of 50 under the filters a
// release pipeline uses (a label, two labels, a failed verdict since a date, one session, no
// filter, and a label no record has). The records are written with bulk SQL into the stores' own
// schema (the stores' one-transaction-per-record Insert would take minutes to fill them), then read
// through the stores as the service reads them. SQLite: a file on disk; PostgreSQL: Debian's server
// in a scratch directory, as the tests start it.

#include <benchmark/benchmark.h>
#include <sqlite3.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "postgres_server.h"
#include "scratch_dir.h"
#include "storage/postgres.h"
#include "storage/postgres_pool.h"
#include "storage/postgres_schema.h"
#include "validations/postgres_validation_store.h"
#include "validations/sqlite_validation_store.h"
#include "validations/validation_filter.h"

namespace wasserwarp::service {
namespace {

constexpr int kRecords = 100'000;
constexpr int kPerSession = 100;
constexpr int kPage = 50;
constexpr int64_t kFirstTimeNs = 1'800'000'000'000'000'000;

// Record i: session i / 100, created i seconds after kFirstTimeNs, W i / 1000, its verdict
// failed for every third, labels model m0..m9 and version 4.0.0..4.99.0.
std::string SqliteFill() {
  const std::string series =
      absl::StrCat("WITH RECURSIVE seq(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM seq WHERE i < ",
                   kRecords, ") ");
  return absl::StrCat(
      "BEGIN;", series,
      "INSERT INTO validations (key, session_key, session_id, id, owner, state, request, "
      "effective_parameters, runs, create_time_ns, end_time_ns, labels, request_digest, evidence, "
      "distance, passed) SELECT i, i / ",
      kPerSession, ", 's' || (i / ", kPerSession,
      "), printf('%016x', i), 'alice', 3, x'', x'', x'', ", kFirstTimeNs,
      " + i * 1000000000, NULL, x'', '', x'', i * 0.001, i % 3 != 0 FROM seq;", series,
      "INSERT INTO validation_labels SELECT i, 'model', 'm' || (i % 10) FROM seq;", series,
      "INSERT INTO validation_labels SELECT i, 'version', '4.' || (i % 100) || '.0' FROM seq;",
      "INSERT INTO validation_sessions (key, id, owner, state, create_time_ns, summary) SELECT "
      "DISTINCT session_key, session_id, 'alice', 1, 0, x'' FROM validations; COMMIT; ANALYZE;");
}

std::vector<std::string> PostgresFill() {
  const std::string series = absl::StrCat("FROM generate_series(1, ", kRecords, ") AS i");
  return {
      absl::StrCat("INSERT INTO validations (key, session_key, session_id, id, owner, state, "
                   "request, effective_parameters, runs, create_time_ns, labels, request_digest, "
                   "evidence, distance, passed) SELECT i, i / ",
                   kPerSession, ", 's' || (i / ", kPerSession,
                   "), lpad(to_hex(i), 16, '0'), 'alice', 3, '', '', '', ", kFirstTimeNs,
                   "::bigint + i * 1000000000::bigint, '', '', '', i * 0.001, i % 3 != 0 ", series),
      absl::StrCat("INSERT INTO validation_labels SELECT i, 'model', 'm' || (i % 10) ", series),
      absl::StrCat("INSERT INTO validation_labels SELECT i, 'version', '4.' || (i % 100) || '.0' ",
                   series),
      "INSERT INTO validation_sessions (key, id, owner, state, create_time_ns, summary) SELECT "
      "DISTINCT session_key, session_id, 'alice', 1, 0, ''::bytea FROM validations",
      "ANALYZE"};
}

// The store under measurement, filled once per program.
struct Stores {
  Stores() {
    // SQLite: the store makes its file, the bulk SQL fills it, the store opens it again.
    if (absl::StatusOr<std::unique_ptr<SqliteValidationStore>> made =
            SqliteValidationStore::Open(dir.root().string());
        !made.ok()) {
      error = made.status().ToString();
      return;
    }
    sqlite3* db = nullptr;
    const std::string path = dir.Path("validations.db");
    char* message = nullptr;
    if (sqlite3_open(path.c_str(), &db) != SQLITE_OK ||
        sqlite3_exec(db, SqliteFill().c_str(), nullptr, nullptr, &message) != SQLITE_OK) {
      error = absl::StrCat("filling ", path, ": ", message != nullptr ? message : "");
    }
    sqlite3_free(message);
    sqlite3_close(db);
    if (!error.empty()) return;
    absl::StatusOr<std::unique_ptr<SqliteValidationStore>> opened =
        SqliteValidationStore::Open(dir.root().string());
    if (!opened.ok()) {
      error = opened.status().ToString();
      return;
    }
    sqlite = *std::move(opened);

    postgres_server = std::make_unique<test_support::PostgresServer>();
    if (!postgres_server->ok() || !postgres_server->CreateDatabase("records")) {
      postgres_error = "no PostgreSQL server: " + postgres_server->error();
      return;
    }
    const std::string url = postgres_server->url("records");
    absl::StatusOr<postgres::Connection> connection = postgres::Connection::Open(url);
    absl::Status filled = connection.ok() ? postgres::Migrate(*connection) : connection.status();
    for (const std::string& statement : PostgresFill()) {
      if (filled.ok()) filled = connection->Exec(statement, "filling").status();
    }
    if (!filled.ok()) {
      postgres_error = filled.ToString();
      return;
    }
    pool = std::make_unique<postgres::Pool>(url, 2);
    postgres_store = std::make_unique<PostgresValidationStore>(*pool);
  }

  test_support::ScratchDir dir{"record_list_bench"};
  std::string error;
  std::string postgres_error;
  std::unique_ptr<SqliteValidationStore> sqlite;
  std::unique_ptr<test_support::PostgresServer> postgres_server;
  std::unique_ptr<postgres::Pool> pool;
  std::unique_ptr<PostgresValidationStore> postgres_store;
};

Stores& TheStores() {
  static Stores* const stores = new Stores;
  return *stores;
}

std::string FailedSince() {
  return absl::StrCat(
      "outcome.passed = false AND create_time >= \"",
      absl::FormatTime(absl::RFC3339_full,
                       absl::FromUnixNanos(kFirstTimeNs) + absl::Seconds(kRecords / 2),
                       absl::UTCTimeZone()),
      "\"");
}

// Arguments: the store (0 SQLite, 1 PostgreSQL) and the query.
void BM_ListPage(benchmark::State& state) {
  Stores& stores = TheStores();
  if (!stores.error.empty()) {
    state.SkipWithError(stores.error.c_str());
    return;
  }
  ValidationStore* store = state.range(0) == 0 ? static_cast<ValidationStore*>(stores.sqlite.get())
                                               : stores.postgres_store.get();
  if (store == nullptr) {
    state.SkipWithError(stores.postgres_error.c_str());
    return;
  }
  ValidationQuery query;
  query.owner = "alice";
  std::string filter;
  switch (state.range(1)) {
    case 0:
      state.SetLabel("sessions/-, no filter");
      break;
    case 1:
      filter = "labels.model = \"m3\"";
      break;
    case 2:
      filter = "labels.model = \"m3\" AND labels.version = \"4.13.0\"";
      break;
    case 3:
      filter = FailedSince();
      break;
    case 5:
      // Nothing matches: the worst case, every record looked at.
      filter = "labels.model = \"none\"";
      break;
    case 4:
      query.owner.clear();
      query.session_key = kRecords / kPerSession / 2;
      state.SetLabel("one session");
      break;
  }
  if (!filter.empty()) state.SetLabel(filter);
  absl::StatusOr<ValidationFilter> parsed = ParseValidationFilter(filter);
  if (!parsed.ok()) {
    state.SkipWithError(parsed.status().ToString().c_str());
    return;
  }
  query.filter = *parsed;
  size_t rows = 0;
  for (auto _ : state) {
    absl::StatusOr<ValidationPage> page = store->List(query, std::nullopt, kPage);
    if (!page.ok()) {
      state.SkipWithError(page.status().ToString().c_str());
      return;
    }
    rows = page->validations.size();
    benchmark::DoNotOptimize(page);
  }
  state.counters["rows"] = static_cast<double>(rows);
}
BENCHMARK(BM_ListPage)
    ->ArgsProduct({{0, 1}, {0, 1, 2, 3, 4, 5}})
    ->ArgNames({"postgres", "query"})
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace wasserwarp::service

BENCHMARK_MAIN();
