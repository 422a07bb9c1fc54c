#include "storage/postgres_schema.h"

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"
#include "storage/postgres.h"

namespace wasserwarp::service::postgres {
namespace {

absl::string_view View(std::string_view s) { return absl::string_view(s.data(), s.size()); }

// Times are integer nanoseconds since the Unix epoch, as absl::ToUnixNanos gives them: exact,
// and the same in every server whatever its time zone. Blobs are the storage encoding of
// byte_encoding.h, as in the SQLite session database.
const Migration kMigration1 = {
    1,
    "sessions, runs, run samples and validations",
    {
        "CREATE TABLE wasserwarp_meta (key text PRIMARY KEY, value text NOT NULL)",
        "INSERT INTO wasserwarp_meta (key, value) VALUES ('application', 'wasserwarp')",
        "CREATE TABLE sessions (key bigserial PRIMARY KEY, id text NOT NULL UNIQUE,"
        " owner text NOT NULL, settings bytea NOT NULL, idle_ttl_ns bigint,"
        " create_time_ns bigint NOT NULL, last_use_ns bigint NOT NULL)",
        "CREATE TABLE runs (key bigserial PRIMARY KEY,"
        " session_key bigint NOT NULL REFERENCES sessions (key) ON DELETE CASCADE,"
        " role smallint NOT NULL, series_id text NOT NULL, channels bytea NOT NULL,"
        " weight double precision, samples bigint NOT NULL, commit_time_ns bigint NOT NULL,"
        " checksum bigint NOT NULL, bytes bigint NOT NULL, UNIQUE (session_key, role, series_id))",
        "CREATE TABLE run_samples ("
        " run_key bigint NOT NULL REFERENCES runs (key) ON DELETE CASCADE,"
        " first_sample bigint NOT NULL, time_data bytea NOT NULL, value_data bytea NOT NULL,"
        " PRIMARY KEY (run_key, first_sample))",
        "CREATE TABLE validations (key bigserial PRIMARY KEY,"
        " session_key bigint NOT NULL REFERENCES sessions (key) ON DELETE CASCADE,"
        " session_id text NOT NULL, id text NOT NULL, owner text NOT NULL,"
        " state smallint NOT NULL, request bytea NOT NULL, effective_parameters bytea NOT NULL,"
        " runs bytea NOT NULL, create_time_ns bigint NOT NULL,"
        " start_time_ns bigint, end_time_ns bigint, lease_owner text, lease_expire_ns bigint,"
        " attempts integer NOT NULL DEFAULT 0, cancel_requested boolean NOT NULL DEFAULT false,"
        " progress bytea, error_code integer, error_message text, report bytea,"
        " UNIQUE (session_key, id))",
        // Workers claim the oldest queued validation, oldest by key (PostgresValidationStore).
        "CREATE INDEX validations_queue ON validations (state, key)",
    }};

// A validation's cost-matrix tiles (cost_tiles.h): transient work items that every replica's
// workers claim under leases, kept with their TWEDs (little-endian float64) until the
// validation ends (PostgresValidationStore). matrix and state are CostMatrixKind's and
// TileState's numbers.
const Migration kMigration2 = {
    2,
    "validation tiles",
    {
        "CREATE TABLE validation_tiles ("
        " validation_key bigint NOT NULL REFERENCES validations (key) ON DELETE CASCADE,"
        " matrix smallint NOT NULL, tile_index integer NOT NULL,"
        " row_begin bigint NOT NULL, row_end bigint NOT NULL,"
        " col_begin bigint NOT NULL, col_end bigint NOT NULL, cells bigint NOT NULL,"
        " state smallint NOT NULL, attempts integer NOT NULL DEFAULT 0, lease_owner text,"
        " lease_expire_ns bigint, cells_done bigint NOT NULL DEFAULT 0, replica text,"
        " tile_values bytea, PRIMARY KEY (validation_key, matrix, tile_index))",
        // Claims look for the tiles not done yet, in this order; done ones, most of a large
        // validation's by its end, are not in the way.
        "CREATE INDEX validation_tiles_claim ON validation_tiles"
        " (validation_key, matrix, tile_index) WHERE state IN (1, 2)",
    }};

// A simulated run's parameters (EncodeParameters, byte_encoding.h) and trial; runs committed
// before have neither, as reference runs never do.
const Migration kMigration3 = {
    3,
    "run parameters and trials",
    {
        "ALTER TABLE runs ADD COLUMN parameters bytea NOT NULL DEFAULT '',"
        " ADD COLUMN trial text NOT NULL DEFAULT ''",
    }};

// Validation records as release evidence (the SQLite validation database's format 2): labels,
// the request's digest, the detailed runs, outcome and engine, events, and the sessions records
// belong to, kept as tombstones once the sessions are gone. Records no longer go with their
// session's row: the foreign key goes. The records of before all belong to live sessions (their
// deletion took them along), so each of those sessions is kept as active and each record gets
// its creation event.
const Migration kMigration4 = {
    4,
    "validation records as release evidence",
    {
        "ALTER TABLE validations DROP CONSTRAINT IF EXISTS validations_session_key_fkey",
        "ALTER TABLE validations ADD COLUMN labels bytea NOT NULL DEFAULT '',"
        " ADD COLUMN request_digest text NOT NULL DEFAULT '',"
        " ADD COLUMN evidence bytea NOT NULL DEFAULT '', ADD COLUMN engine bytea,"
        " ADD COLUMN distance double precision, ADD COLUMN passed boolean,"
        " ADD COLUMN p_value double precision, ADD COLUMN ratio double precision,"
        " ADD COLUMN ratio_lo double precision, ADD COLUMN ratio_hi double precision",
        "CREATE INDEX validations_by_owner ON validations (owner, create_time_ns, key)",
        "CREATE INDEX validations_by_session ON validations (session_key, create_time_ns, key)",
        "CREATE INDEX validations_by_end ON validations (end_time_ns)"
        " WHERE end_time_ns IS NOT NULL",
        "CREATE TABLE validation_labels ("
        " validation_key bigint NOT NULL REFERENCES validations (key) ON DELETE CASCADE,"
        " key text NOT NULL, value text NOT NULL, PRIMARY KEY (validation_key, key))",
        "CREATE INDEX validation_labels_by_value ON validation_labels (key, value)",
        "CREATE TABLE validation_events (seq bigserial PRIMARY KEY,"
        " validation_key bigint NOT NULL REFERENCES validations (key) ON DELETE CASCADE,"
        " kind smallint NOT NULL, time_ns bigint NOT NULL, principal text NOT NULL,"
        " replica text NOT NULL)",
        "CREATE INDEX validation_events_by_validation ON validation_events (validation_key, seq)",
        "CREATE TABLE validation_sessions (key bigint PRIMARY KEY, id text NOT NULL,"
        " owner text NOT NULL, state smallint NOT NULL, create_time_ns bigint NOT NULL,"
        " delete_time_ns bigint, summary bytea NOT NULL)",
        "CREATE INDEX validation_sessions_by_id ON validation_sessions (id, key)",
        "CREATE INDEX validation_sessions_by_owner ON validation_sessions (owner, id)",
        "INSERT INTO validation_sessions (key, id, owner, state, create_time_ns, summary)"
        " SELECT session_key, min(session_id), min(owner), 1, min(create_time_ns), ''"
        " FROM validations GROUP BY session_key",
        "INSERT INTO validation_events (validation_key, kind, time_ns, principal, replica)"
        " SELECT key, 1, create_time_ns, owner, '' FROM validations ORDER BY key",
    }};

// Where a run came from (SeriesHeader.source): NULL for runs whose client said nothing, as for
// every run committed before.
const Migration kMigration5 = {
    5,
    "run sources",
    {
        "ALTER TABLE runs ADD COLUMN source_file text, ADD COLUMN source_sha256 text",
    }};

// The replicas that lost each validation (the SQLite validation database's format 3), so that
// --max_attempts can fail one that kills its replicas; records of before lost none.
const Migration kMigration6 = {
    6,
    "replicas that lost a validation",
    {
        "ALTER TABLE validations ADD COLUMN lost_replicas text NOT NULL DEFAULT ''",
    }};

// Each channel's unit (SeriesHeader.units, EncodeStrings): NULL for runs without units, as for
// every run committed before.
const Migration kMigration7 = {7,
                               "run channel units",
                               {
                                   "ALTER TABLE runs ADD COLUMN units bytea",
                               }};

absl::Status Refusal(Connection& connection, const std::string& why) {
  return absl::FailedPreconditionError(absl::StrCat("PostgreSQL database \"", connection.database(),
                                                    "\" at ", connection.redacted_url(), ": ",
                                                    why));
}

absl::Status MigrateLocked(Connection& connection) {
  absl::StatusOr<int> version = SchemaVersion(connection);
  if (!version.ok()) return version.status();
  for (const Migration& migration : Migrations()) {
    if (migration.version <= *version) continue;
    const std::string doing = absl::StrFormat("applying schema migration %d (%s)",
                                              migration.version, migration.description);
    Transaction transaction(connection);
    if (absl::Status status = transaction.Begin(); !status.ok()) return status;
    for (const char* statement : migration.statements) {
      if (absl::Status status = connection.Exec(statement, doing).status(); !status.ok())
        return status;
    }
    const std::string new_version = absl::StrCat(migration.version);
    absl::Status status =
        connection
            .Exec(
                "INSERT INTO wasserwarp_meta (key, value) VALUES ('schema_version', $1)"
                " ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                {Param::Text(new_version)}, doing)
            .status();
    if (status.ok()) status = transaction.Commit();
    if (!status.ok()) return status;
  }
  return absl::OkStatus();
}

}  // namespace

const std::vector<Migration>& Migrations() {
  static const std::vector<Migration>* const migrations = new std::vector<Migration>{
      kMigration1, kMigration2, kMigration3, kMigration4, kMigration5, kMigration6, kMigration7};
  return *migrations;
}

int LatestSchemaVersion() { return Migrations().back().version; }

absl::StatusOr<int> SchemaVersion(Connection& connection) {
  const char* const kDoing = "reading the schema version";
  // pg_class rather than information_schema, which hides tables this user may not read.
  absl::StatusOr<Result> tables = connection.Exec(
      "SELECT c.relname, current_schema() FROM pg_catalog.pg_class c"
      " JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace"
      " WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p', 'v', 'm', 'f')"
      " ORDER BY c.relname",
      kDoing);
  if (!tables.ok()) return tables.status();
  bool has_meta = false;
  std::vector<std::string> names;
  for (int row = 0; row < tables->rows(); ++row) {
    names.emplace_back(tables->GetText(row, 0));
    if (names.back() == "wasserwarp_meta") has_meta = true;
  }
  if (names.empty()) return 0;
  if (!has_meta) {
    if (names.size() > 5) names.resize(5), names.emplace_back("...");
    return Refusal(connection,
                   absl::StrCat("schema \"", View(tables->GetText(0, 1)), "\" has tables (",
                                absl::StrJoin(names, ", "),
                                ") but no wasserwarp_meta: not a wasserwarp database, so it is "
                                "left alone; give the server a database of its own"));
  }
  absl::StatusOr<Result> meta = connection.Exec(
      "SELECT (SELECT value FROM wasserwarp_meta WHERE key = 'application'),"
      " (SELECT value FROM wasserwarp_meta WHERE key = 'schema_version')",
      kDoing);
  if (!meta.ok()) return meta.status();
  if (meta->IsNull(0, 0) || View(meta->GetText(0, 0)) != kApplication) {
    return Refusal(connection,
                   absl::StrCat("wasserwarp_meta says the database is of another application (\"",
                                View(meta->GetText(0, 0)), "\", not \"", kApplication,
                                "\"), so it is left alone"));
  }
  int version = 0;
  if (meta->IsNull(0, 1) || !absl::SimpleAtoi(View(meta->GetText(0, 1)), &version) || version < 1) {
    return Refusal(connection, absl::StrCat("wasserwarp_meta holds no valid schema_version (\"",
                                            View(meta->GetText(0, 1)), "\")"));
  }
  if (version > LatestSchemaVersion()) {
    return Refusal(
        connection,
        absl::StrCat("schema version ", version, " is newer than this server knows (",
                     LatestSchemaVersion(), "): a newer server has migrated it; run that version"));
  }
  return version;
}

absl::Status Migrate(Connection& connection) {
  absl::StatusOr<Result> locked =
      connection.Exec("SELECT pg_advisory_lock($1)", {Param::Int64(kMigrationLockKey)},
                      "waiting for the schema migration lock");
  if (!locked.ok()) return locked.status();
  const absl::Status status = MigrateLocked(connection);
  // The lock is the session's and outlives transactions: a pooled connection would keep it.
  absl::StatusOr<Result> unlocked =
      connection.Exec("SELECT pg_advisory_unlock($1)", {Param::Int64(kMigrationLockKey)},
                      "releasing the schema migration lock");
  if (status.ok() && !unlocked.ok()) return unlocked.status();
  return status;
}

}  // namespace wasserwarp::service::postgres
