// The format of a validation database: the first release's schema, the migrations since, and
// the marks that tell a wasserwarp validation database from any other file.

#include <sqlite3.h>

#include <cstdint>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "storage/sqlite.h"
#include "validations/sqlite_validation_store.h"
#include "validations/sqlite_validation_store_internal.h"

namespace wasserwarp::service::sqlite_store_internal {
namespace {

using sqlite::Exec;
using sqlite::PragmaInt;

// Times in integer nanoseconds since the Unix epoch. Runs: EncodeValidatedRuns. Format 1 is
// the table as the first release wrote it; kMigrations bring it to the current format.
constexpr char kSchema1[] = R"sql(
CREATE TABLE validations (
  key INTEGER PRIMARY KEY AUTOINCREMENT,
  session_key INTEGER NOT NULL,
  session_id TEXT NOT NULL,
  id TEXT NOT NULL,
  owner TEXT NOT NULL,
  state INTEGER NOT NULL,
  request BLOB NOT NULL,
  effective_parameters BLOB NOT NULL,
  runs BLOB NOT NULL,
  create_time_ns INTEGER NOT NULL,
  start_time_ns INTEGER,
  end_time_ns INTEGER,
  attempts INTEGER NOT NULL DEFAULT 0,
  cancel_requested INTEGER NOT NULL DEFAULT 0,
  progress BLOB,
  error_code INTEGER,
  error_message TEXT,
  report BLOB,
  lease_owner TEXT,
  lease_expire_ns INTEGER,
  UNIQUE (session_key, id));
CREATE INDEX validations_by_state ON validations(state, key);
)sql";

// Format 2, records as release evidence: labels (EncodeLabels, and a row each for filters),
// the request's digest, the detailed runs, the outcome and engine of the end, the events, and
// the sessions the records belong to, kept as tombstones once they are gone. The records of a
// format-1 file all belong to live sessions (the first release deleted those of gone ones), so
// each of their sessions is kept as active, and each record gets its creation event.
constexpr char kMigration2[] = R"sql(
ALTER TABLE validations ADD COLUMN labels BLOB NOT NULL DEFAULT x'';
ALTER TABLE validations ADD COLUMN request_digest TEXT NOT NULL DEFAULT '';
ALTER TABLE validations ADD COLUMN evidence BLOB NOT NULL DEFAULT x'';
ALTER TABLE validations ADD COLUMN engine BLOB;
ALTER TABLE validations ADD COLUMN distance REAL;
ALTER TABLE validations ADD COLUMN passed INTEGER;
ALTER TABLE validations ADD COLUMN p_value REAL;
ALTER TABLE validations ADD COLUMN ratio REAL;
ALTER TABLE validations ADD COLUMN ratio_lo REAL;
ALTER TABLE validations ADD COLUMN ratio_hi REAL;
CREATE INDEX validations_by_owner ON validations(owner, create_time_ns, key);
CREATE INDEX validations_by_session ON validations(session_key, create_time_ns, key);
CREATE INDEX validations_by_end ON validations(end_time_ns) WHERE end_time_ns IS NOT NULL;
CREATE TABLE validation_labels (
  validation_key INTEGER NOT NULL REFERENCES validations(key) ON DELETE CASCADE,
  key TEXT NOT NULL,
  value TEXT NOT NULL,
  PRIMARY KEY (validation_key, key)) WITHOUT ROWID;
CREATE INDEX validation_labels_by_value ON validation_labels(key, value);
CREATE TABLE validation_events (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  validation_key INTEGER NOT NULL REFERENCES validations(key) ON DELETE CASCADE,
  kind INTEGER NOT NULL,
  time_ns INTEGER NOT NULL,
  principal TEXT NOT NULL,
  replica TEXT NOT NULL);
CREATE INDEX validation_events_by_validation ON validation_events(validation_key, seq);
CREATE TABLE validation_sessions (
  key INTEGER PRIMARY KEY,
  id TEXT NOT NULL,
  owner TEXT NOT NULL,
  state INTEGER NOT NULL,
  create_time_ns INTEGER NOT NULL,
  delete_time_ns INTEGER,
  summary BLOB NOT NULL);
CREATE INDEX validation_sessions_by_id ON validation_sessions(id, key);
CREATE INDEX validation_sessions_by_owner ON validation_sessions(owner, id);
INSERT INTO validation_sessions (key, id, owner, state, create_time_ns, summary)
  SELECT session_key, min(session_id), min(owner), 1, min(create_time_ns), x''
  FROM validations GROUP BY session_key;
INSERT INTO validation_events (validation_key, kind, time_ns, principal, replica)
  SELECT key, 1, create_time_ns, owner, '' FROM validations ORDER BY key;
)sql";

// Format 3, the replicas that lost each validation (ValidationRecord::lost_replicas), so that
// --max_attempts can fail one that kills its replicas; records of before lost none.
constexpr char kMigration3[] = R"sql(
ALTER TABLE validations ADD COLUMN lost_replicas TEXT NOT NULL DEFAULT '';
)sql";

struct FormatMigration {
  int to_version;
  const char* sql;
};
constexpr FormatMigration kMigrations[] = {{2, kMigration2}, {3, kMigration3}};
static_assert(kValidationDatabaseFormatVersion == 3, "a new format needs its migration");

absl::Status CheckFormat(sqlite3* db, const std::string& path) {
  absl::StatusOr<int64_t> application_id = PragmaInt(db, path, "application_id");
  if (!application_id.ok()) return application_id.status();
  if (*application_id != kValidationDatabaseApplicationId) {
    return absl::FailedPreconditionError(absl::StrFormat(
        "%s is not a wasserwarp validation database: its SQLite application_id is 0x%08x, not "
        "0x%08x; move it away or choose another --data_dir",
        path, static_cast<uint32_t>(*application_id),
        static_cast<uint32_t>(kValidationDatabaseApplicationId)));
  }
  absl::StatusOr<int64_t> version = PragmaInt(db, path, "user_version");
  if (!version.ok()) return version.status();
  if (*version < 1 || *version > kValidationDatabaseFormatVersion) {
    return absl::FailedPreconditionError(absl::StrCat(
        path, " has format version ", *version, "; this wasserwarp-server reads version ",
        kValidationDatabaseFormatVersion,
        *version > kValidationDatabaseFormatVersion ? "; run the newer server that wrote it" : ""));
  }
  return absl::OkStatus();
}

std::string CreateSql() {
  return absl::StrFormat("BEGIN; PRAGMA application_id = %d; PRAGMA user_version = 1; %s COMMIT;",
                         kValidationDatabaseApplicationId, kSchema1);
}

// Brings a file of an earlier format to the current one, a migration per transaction, so that
// one cut off leaves a file of the format before it.
absl::Status Migrate(sqlite3* db, const std::string& path) {
  absl::StatusOr<int64_t> version = PragmaInt(db, path, "user_version");
  if (!version.ok()) return version.status();
  for (const FormatMigration& migration : kMigrations) {
    if (migration.to_version <= *version) continue;
    if (absl::Status status =
            Exec(db, path,
                 absl::StrFormat("PRAGMA foreign_keys = ON; BEGIN IMMEDIATE; %s PRAGMA "
                                 "user_version = %d; COMMIT;",
                                 migration.sql, migration.to_version),
                 absl::StrCat("migrating to format ", migration.to_version));
        !status.ok()) {
      Exec(db, path, "ROLLBACK", "rolling back a migration").IgnoreError();
      return status;
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status PrepareFormat(sqlite3* db, const std::string& path, bool is_new) {
  if (is_new) {
    if (absl::Status status = Exec(db, path, CreateSql(), "creating the database"); !status.ok()) {
      return status;
    }
  } else if (absl::Status status = CheckFormat(db, path); !status.ok()) {
    return status;
  }
  return Migrate(db, path);
}

}  // namespace wasserwarp::service::sqlite_store_internal
