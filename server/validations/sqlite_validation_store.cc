#include "validations/sqlite_validation_store.h"

#include <sqlite3.h>

#include <filesystem>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "storage/sqlite.h"
#include "validations/record_encoding.h"
#include "validations/sqlite_validation_store_internal.h"

namespace wasserwarp::service {
namespace {

using sqlite::Exec;
using sqlite::PragmaInt;
using sqlite::SqliteError;
using sqlite::Statement;
using sqlite::Transaction;
using sqlite_store_internal::Damaged;
using sqlite_store_internal::StepToEnd;
using sqlite_store_internal::ToNanos;

constexpr char kFileName[] = "validations.db";
constexpr char kMemoryPath[] = "(validations in memory)";
constexpr int kBusyTimeoutMs = 5000;

// Times in integer nanoseconds since the Unix epoch. Runs: EncodeValidatedRuns.
constexpr char kSchema[] = R"sql(
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

constexpr char kColumns[] =
    "key, session_key, session_id, id, owner, state, request, effective_parameters, runs, "
    "create_time_ns, start_time_ns, end_time_ns, attempts, cancel_requested, progress, "
    "error_code, error_message, lease_owner, lease_expire_ns";

absl::Time FromNanos(int64_t nanos) { return absl::FromUnixNanos(nanos); }

std::optional<absl::Time> OptionalTime(const Statement& row, int column) {
  if (row.IsNull(column)) return std::nullopt;
  return FromNanos(row.Int(column));
}

// The row `query` stands on, selected with kColumns (and the report after them when asked).
absl::StatusOr<ValidationRecord> RecordOf(const Statement& row, const std::string& path,
                                          bool with_report) {
  ValidationRecord record;
  record.session_key = row.Int(1);
  record.session_id = std::string(row.Bytes(2));
  record.id = std::string(row.Bytes(3));
  record.owner = std::string(row.Bytes(4));
  const int64_t state = row.Int(5);
  if (state < static_cast<int64_t>(ValidationState::kQueued) ||
      state > static_cast<int64_t>(ValidationState::kCancelled)) {
    return Damaged(path, absl::StrCat("validation ", record.id, " has state ", state));
  }
  record.state = static_cast<ValidationState>(state);
  record.request = std::string(row.Bytes(6));
  record.effective_parameters = std::string(row.Bytes(7));
  std::optional<std::vector<ValidatedRun>> runs = DecodeValidatedRuns(row.Bytes(8));
  if (!runs.has_value()) {
    return Damaged(path, absl::StrCat("the runs of validation ", record.id, " do not decode"));
  }
  record.runs = *std::move(runs);
  record.create_time = FromNanos(row.Int(9));
  record.start_time = OptionalTime(row, 10);
  record.end_time = OptionalTime(row, 11);
  record.attempts = static_cast<int>(row.Int(12));
  record.cancel_requested = row.Int(13) != 0;
  record.progress = std::string(row.Bytes(14));
  if (!row.IsNull(15)) {
    record.error =
        absl::Status(static_cast<absl::StatusCode>(row.Int(15)), std::string(row.Bytes(16)));
  }
  record.lease_owner = std::string(row.Bytes(17));
  record.lease_expire = OptionalTime(row, 18);
  if (with_report) record.report = std::string(row.Bytes(19));
  return record;
}

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
  if (*version != kValidationDatabaseFormatVersion) {
    return absl::FailedPreconditionError(absl::StrCat(
        path, " has format version ", *version, "; this wasserwarp-server reads version ",
        kValidationDatabaseFormatVersion,
        *version > kValidationDatabaseFormatVersion ? "; run the newer server that wrote it" : ""));
  }
  return absl::OkStatus();
}

std::string CreateSql() {
  return absl::StrFormat("BEGIN; PRAGMA application_id = %d; PRAGMA user_version = %d; %s COMMIT;",
                         kValidationDatabaseApplicationId, kValidationDatabaseFormatVersion,
                         kSchema);
}

}  // namespace

absl::StatusOr<std::unique_ptr<SqliteValidationStore>> SqliteValidationStore::Open(
    const std::string& data_dir) {
  const bool in_memory = data_dir.empty();
  const std::string path =
      in_memory ? kMemoryPath : (std::filesystem::path(data_dir) / kFileName).string();
  std::error_code error;
  const bool is_new = in_memory || !std::filesystem::exists(path, error);
  sqlite3* db = nullptr;
  const int rc =
      sqlite3_open_v2(in_memory ? ":memory:" : path.c_str(), &db,
                      SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nullptr);
  absl::Cleanup close_db = [db] { sqlite3_close(db); };
  if (rc != SQLITE_OK) return SqliteError(db, rc, path, "opening the database");
  sqlite3_busy_timeout(db, kBusyTimeoutMs);
  if (is_new) {
    if (absl::Status status = Exec(db, path, CreateSql(), "creating the database"); !status.ok()) {
      return status;
    }
  } else if (absl::Status status = CheckFormat(db, path); !status.ok()) {
    return status;
  }
  if (!in_memory) {
    // FULL: a stored report is on disk when the worker says it ended. The directory's lock
    // makes this the only server on the file, so what ran when the last one stopped has no
    // worker any more: it is queued again at once rather than when its lease would run out.
    if (absl::Status status = Exec(db, path,
                                   absl::StrCat("PRAGMA journal_mode = WAL; PRAGMA synchronous = "
                                                "FULL; UPDATE validations SET state = ",
                                                static_cast<int>(ValidationState::kQueued),
                                                ", lease_owner = NULL, lease_expire_ns = NULL, "
                                                "start_time_ns = NULL, progress = NULL WHERE "
                                                "state = ",
                                                static_cast<int>(ValidationState::kRunning), ";"),
                                   "configuring the connection");
        !status.ok()) {
      return status;
    }
  }
  if (absl::Status status = OpenTiles(db, path); !status.ok()) return status;
  std::move(close_db).Cancel();
  return std::unique_ptr<SqliteValidationStore>(new SqliteValidationStore(path, db));
}

SqliteValidationStore::SqliteValidationStore(std::string path, sqlite3* db)
    : path_(std::move(path)), db_(db) {}

SqliteValidationStore::~SqliteValidationStore() { sqlite3_close(db_); }

absl::Status SqliteValidationStore::Insert(const ValidationRecord& record) {
  absl::MutexLock lock(&mu_);
  Statement insert(db_, path_,
                   "INSERT INTO validations (session_key, session_id, id, owner, state, request, "
                   "effective_parameters, runs, create_time_ns, progress) "
                   "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
  const std::string runs = EncodeValidatedRuns(record.runs);
  insert.Bind(1, record.session_key);
  insert.BindText(2, record.session_id);
  insert.BindText(3, record.id);
  insert.BindText(4, record.owner);
  insert.Bind(5, static_cast<int64_t>(record.state));
  insert.BindBlob(6, record.request);
  insert.BindBlob(7, record.effective_parameters);
  insert.BindBlob(8, runs);
  insert.Bind(9, ToNanos(record.create_time));
  insert.BindBlob(10, record.progress);
  absl::Status status = insert.Run("storing a validation");
  if (!status.ok() && sqlite3_extended_errcode(db_) == SQLITE_CONSTRAINT_UNIQUE) {
    return absl::AlreadyExistsError(absl::StrCat("validation ", record.id, " exists"));
  }
  return status;
}

absl::StatusOr<ValidationRecord> SqliteValidationStore::GetLocked(int64_t session_key,
                                                                  std::string_view id,
                                                                  bool with_report) {
  Statement query(db_, path_,
                  absl::StrCat("SELECT ", kColumns, with_report ? ", report" : "",
                               " FROM validations WHERE session_key = ? AND id = ?"));
  query.Bind(1, session_key);
  query.BindText(2, id);
  absl::StatusOr<bool> row = query.Step("reading a validation");
  if (!row.ok()) return row.status();
  if (!*row) return absl::NotFoundError(absl::StrCat("validation ", std::string(id), " not found"));
  return RecordOf(query, path_, with_report);
}

absl::StatusOr<ValidationRecord> SqliteValidationStore::Get(int64_t session_key,
                                                            std::string_view id, bool with_report) {
  absl::MutexLock lock(&mu_);
  return GetLocked(session_key, id, with_report);
}

absl::StatusOr<ValidationPage> SqliteValidationStore::List(int64_t session_key,
                                                           std::optional<ValidationState> state,
                                                           std::optional<int64_t> before_key,
                                                           int limit) {
  absl::MutexLock lock(&mu_);
  Statement query(db_, path_,
                  absl::StrCat("SELECT ", kColumns,
                               " FROM validations WHERE session_key = ? AND key < ? AND "
                               "(? = 0 OR state = ?) ORDER BY key DESC LIMIT ?"));
  const int64_t state_number = state.has_value() ? static_cast<int64_t>(*state) : 0;
  query.Bind(1, session_key);
  query.Bind(2, before_key.value_or(INT64_MAX));
  query.Bind(3, state_number);
  query.Bind(4, state_number);
  // One more than a page tells whether another follows.
  query.Bind(5, static_cast<int64_t>(limit) + 1);
  ValidationPage page;
  std::vector<int64_t> keys;
  for (;;) {
    absl::StatusOr<bool> row = query.Step("listing validations");
    if (!row.ok()) return row.status();
    if (!*row) break;
    if (static_cast<int>(page.validations.size()) == limit) {
      page.next_key = keys.back();
      break;
    }
    absl::StatusOr<ValidationRecord> record = RecordOf(query, path_, /*with_report=*/false);
    if (!record.ok()) return record.status();
    keys.push_back(query.Int(0));
    page.validations.push_back(*std::move(record));
  }
  return page;
}

absl::StatusOr<ValidationRecord> SqliteValidationStore::RequestCancel(int64_t session_key,
                                                                      std::string_view id,
                                                                      const absl::Status& reason,
                                                                      absl::Time now) {
  absl::MutexLock lock(&mu_);
  Transaction transaction(db_, path_);
  if (absl::Status status = transaction.Begin(); !status.ok()) return status;
  Statement cancel_queued(db_, path_,
                          "UPDATE validations SET state = ?, end_time_ns = ?, error_code = ?, "
                          "error_message = ?, cancel_requested = 1 "
                          "WHERE session_key = ? AND id = ? AND state = ?");
  cancel_queued.Bind(1, static_cast<int64_t>(ValidationState::kCancelled));
  cancel_queued.Bind(2, ToNanos(now));
  cancel_queued.Bind(3, static_cast<int64_t>(reason.code()));
  const std::string reason_message(reason.message());
  cancel_queued.BindText(4, reason_message);
  cancel_queued.Bind(5, session_key);
  cancel_queued.BindText(6, id);
  cancel_queued.Bind(7, static_cast<int64_t>(ValidationState::kQueued));
  if (absl::Status status = cancel_queued.Run("cancelling a validation"); !status.ok()) {
    return status;
  }
  Statement mark_running(db_, path_,
                         "UPDATE validations SET cancel_requested = 1, error_code = ?, "
                         "error_message = ? WHERE session_key = ? AND id = ? AND state = ?");
  mark_running.Bind(1, static_cast<int64_t>(reason.code()));
  mark_running.BindText(2, reason_message);
  mark_running.Bind(3, session_key);
  mark_running.BindText(4, id);
  mark_running.Bind(5, static_cast<int64_t>(ValidationState::kRunning));
  if (absl::Status status = mark_running.Run("cancelling a validation"); !status.ok()) {
    return status;
  }
  absl::StatusOr<ValidationRecord> record = GetLocked(session_key, id, /*with_report=*/false);
  if (!record.ok()) return record.status();
  // Cancelled while queued, it may still have tiles of a run that was cut off.
  if (IsFinal(record->state)) {
    if (absl::Status status = DeleteTilesLocked(session_key, id); !status.ok()) return status;
  }
  if (absl::Status status = transaction.Commit(); !status.ok()) return status;
  return record;
}

absl::StatusOr<int64_t> SqliteValidationStore::CountQueued() {
  absl::MutexLock lock(&mu_);
  Statement query(db_, path_, "SELECT count(*) FROM validations WHERE state = ?");
  query.Bind(1, static_cast<int64_t>(ValidationState::kQueued));
  absl::StatusOr<bool> row = query.Step("counting queued validations");
  if (!row.ok()) return row.status();
  return query.Int(0);
}

absl::StatusOr<std::optional<ValidationRecord>> SqliteValidationStore::Claim(
    std::string_view worker, absl::Time now, absl::Duration lease) {
  absl::MutexLock lock(&mu_);
  Transaction transaction(db_, path_);
  if (absl::Status status = transaction.Begin(); !status.ok()) return status;
  Statement next(db_, path_,
                 "SELECT session_key, id FROM validations WHERE state = ? OR (state = ? AND "
                 "lease_expire_ns <= ?) ORDER BY key LIMIT 1");
  next.Bind(1, static_cast<int64_t>(ValidationState::kQueued));
  next.Bind(2, static_cast<int64_t>(ValidationState::kRunning));
  next.Bind(3, ToNanos(now));
  absl::StatusOr<bool> row = next.Step("finding a queued validation");
  if (!row.ok()) return row.status();
  if (!*row) return std::optional<ValidationRecord>();
  const int64_t session_key = next.Int(0);
  const std::string id(next.Bytes(1));
  Statement claim(db_, path_,
                  "UPDATE validations SET state = ?, start_time_ns = ?, attempts = attempts + 1, "
                  "lease_owner = ?, lease_expire_ns = ? WHERE session_key = ? AND id = ?");
  claim.Bind(1, static_cast<int64_t>(ValidationState::kRunning));
  claim.Bind(2, ToNanos(now));
  claim.BindText(3, worker);
  claim.Bind(4, ToNanos(now + lease));
  claim.Bind(5, session_key);
  claim.BindText(6, id);
  if (absl::Status status = claim.Run("claiming a validation"); !status.ok()) return status;
  absl::StatusOr<ValidationRecord> record = GetLocked(session_key, id, /*with_report=*/false);
  if (!record.ok()) return record.status();
  if (absl::Status status = transaction.Commit(); !status.ok()) return status;
  return std::optional<ValidationRecord>(*std::move(record));
}

absl::StatusOr<LeaseRenewal> SqliteValidationStore::Renew(int64_t session_key, std::string_view id,
                                                          std::string_view worker, absl::Time now,
                                                          absl::Duration lease,
                                                          std::string_view progress) {
  absl::MutexLock lock(&mu_);
  Statement renew(db_, path_,
                  "UPDATE validations SET lease_expire_ns = ?, progress = ? WHERE session_key = ? "
                  "AND id = ? AND state = ? AND lease_owner = ? RETURNING cancel_requested");
  renew.Bind(1, ToNanos(now + lease));
  renew.BindBlob(2, progress);
  renew.Bind(3, session_key);
  renew.BindText(4, id);
  renew.Bind(5, static_cast<int64_t>(ValidationState::kRunning));
  renew.BindText(6, worker);
  absl::StatusOr<bool> row = renew.Step("renewing a lease");
  if (!row.ok()) return row.status();
  if (!*row) {
    return absl::AbortedError(
        absl::StrCat("the lease on validation ", std::string(id), " is no longer this worker's"));
  }
  const LeaseRenewal renewal{.cancel_requested = renew.Int(0) != 0};
  if (absl::Status status = StepToEnd(renew, "renewing a lease"); !status.ok()) return status;
  return renewal;
}

absl::Status SqliteValidationStore::Finish(int64_t session_key, std::string_view id,
                                           std::string_view worker, ValidationState state,
                                           const absl::Status& error, std::string_view report,
                                           absl::Time now) {
  absl::MutexLock lock(&mu_);
  Transaction transaction(db_, path_);
  if (absl::Status status = transaction.Begin(); !status.ok()) return status;
  Statement finish(db_, path_,
                   "UPDATE validations SET state = ?, end_time_ns = ?, error_code = ?, "
                   "error_message = ?, report = ?, lease_owner = NULL, lease_expire_ns = NULL, "
                   "progress = NULL WHERE session_key = ? AND id = ? AND state = ? AND "
                   "lease_owner = ? RETURNING key");
  const std::string error_message(error.message());
  finish.Bind(1, static_cast<int64_t>(state));
  finish.Bind(2, ToNanos(now));
  if (error.ok()) {
    finish.BindNull(3);
    finish.BindNull(4);
  } else {
    finish.Bind(3, static_cast<int64_t>(error.code()));
    finish.BindText(4, error_message);
  }
  if (state == ValidationState::kSucceeded) {
    finish.BindBlob(5, report);
  } else {
    finish.BindNull(5);
  }
  finish.Bind(6, session_key);
  finish.BindText(7, id);
  finish.Bind(8, static_cast<int64_t>(ValidationState::kRunning));
  finish.BindText(9, worker);
  absl::StatusOr<bool> row = finish.Step("storing a validation's result");
  if (!row.ok()) return row.status();
  if (!*row) {
    return absl::AbortedError(
        absl::StrCat("the lease on validation ", std::string(id), " is no longer this worker's"));
  }
  if (absl::Status status = StepToEnd(finish, "storing a validation's result"); !status.ok()) {
    return status;
  }
  if (absl::Status status = DeleteTilesLocked(session_key, id); !status.ok()) return status;
  return transaction.Commit();
}

absl::Status SqliteValidationStore::Release(std::string_view worker) {
  absl::MutexLock lock(&mu_);
  Transaction transaction(db_, path_);
  if (absl::Status status = transaction.Begin(); !status.ok()) return status;
  Statement release(db_, path_,
                    "UPDATE validations SET state = ?, lease_owner = NULL, lease_expire_ns = NULL, "
                    "start_time_ns = NULL, progress = NULL WHERE state = ? AND lease_owner = ?");
  release.Bind(1, static_cast<int64_t>(ValidationState::kQueued));
  release.Bind(2, static_cast<int64_t>(ValidationState::kRunning));
  release.BindText(3, worker);
  if (absl::Status status = release.Run("handing validations back to the queue"); !status.ok()) {
    return status;
  }
  if (absl::Status status = ReleaseTilesLocked(worker); !status.ok()) return status;
  return transaction.Commit();
}

absl::Status SqliteValidationStore::DeleteSession(int64_t session_key) {
  absl::MutexLock lock(&mu_);
  Statement remove(db_, path_, "DELETE FROM validations WHERE session_key = ?");
  remove.Bind(1, session_key);
  return remove.Run("deleting a session's validations");
}

absl::StatusOr<int64_t> SqliteValidationStore::DeleteAllBut(const std::set<int64_t>& live_keys) {
  absl::MutexLock lock(&mu_);
  std::vector<int64_t> stale;
  {
    Statement keys(db_, path_, "SELECT DISTINCT session_key FROM validations");
    for (;;) {
      absl::StatusOr<bool> row = keys.Step("reading validations' sessions");
      if (!row.ok()) return row.status();
      if (!*row) break;
      if (!live_keys.contains(keys.Int(0))) stale.push_back(keys.Int(0));
    }
  }
  if (stale.empty()) return 0;
  Transaction transaction(db_, path_);
  if (absl::Status status = transaction.Begin(); !status.ok()) return status;
  Statement remove(db_, path_, "DELETE FROM validations WHERE session_key = ?");
  int64_t removed = 0;
  for (int64_t key : stale) {
    remove.Reset();
    remove.Bind(1, key);
    if (absl::Status status = remove.Run("deleting expired sessions' validations"); !status.ok()) {
      return status;
    }
    removed += sqlite3_changes(db_);
  }
  if (absl::Status status = transaction.Commit(); !status.ok()) return status;
  return removed;
}

absl::StatusOr<ValidationStore::Counts> SqliteValidationStore::CountAll(absl::Time now) {
  absl::MutexLock lock(&mu_);
  Counts counts;
  Statement by_state(db_, path_, "SELECT state, count(*) FROM validations GROUP BY state");
  for (;;) {
    absl::StatusOr<bool> row = by_state.Step("counting validations");
    if (!row.ok()) return row.status();
    if (!*row) break;
    const int64_t state = by_state.Int(0);
    if (state >= 1 && state <= 5) counts.by_state[state] = by_state.Int(1);
  }
  Statement leases(db_, path_,
                   "SELECT count(*) FROM validations WHERE state = ? AND lease_expire_ns > ?");
  leases.Bind(1, static_cast<int64_t>(ValidationState::kRunning));
  leases.Bind(2, ToNanos(now));
  absl::StatusOr<bool> row = leases.Step("counting leases");
  if (!row.ok()) return row.status();
  counts.leases_held = leases.Int(0);
  return counts;
}

}  // namespace wasserwarp::service
