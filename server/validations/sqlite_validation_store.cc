#include "validations/sqlite_validation_store.h"

#include <sqlite3.h>

#include <filesystem>
#include <string>
#include <system_error>
#include <utility>
#include <variant>
#include <vector>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "storage/sqlite.h"
#include "validations/fair_claim_sql.h"
#include "validations/record_encoding.h"
#include "validations/sqlite_validation_store_internal.h"
#include "validations/validation_filter_sql.h"

namespace wasserwarp::service {
namespace {

using sqlite::Exec;
using sqlite::PragmaInt;
using sqlite::SqliteError;
using sqlite::Statement;
using sqlite::Transaction;
using sqlite_store_internal::Damaged;
using sqlite_store_internal::FromNanos;
using sqlite_store_internal::InsertEvent;
using sqlite_store_internal::kColumns;
using sqlite_store_internal::PrepareFormat;
using sqlite_store_internal::ReadEvents;
using sqlite_store_internal::RecordOf;
using sqlite_store_internal::StepToEnd;
using sqlite_store_internal::ToNanos;

constexpr char kFileName[] = "validations.db";
constexpr char kMemoryPath[] = "(validations in memory)";
constexpr int kBusyTimeoutMs = 5000;

void BindOptional(Statement& statement, int index, std::optional<double> value) {
  if (value.has_value()) {
    statement.Bind(index, *value);
  } else {
    statement.BindNull(index);
  }
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
  if (absl::Status status = PrepareFormat(db, path, is_new); !status.ok()) return status;
  if (!in_memory) {
    // FULL: a stored report is on disk when the worker says it ended. The directory's lock
    // makes this the only server on the file, so what ran when the last one stopped has no
    // worker any more: it is queued again at once rather than when its lease would run out. A
    // server that stops cleanly hands its validations back, so their holder was lost.
    if (absl::Status status = Exec(db, path,
                                   absl::StrCat("PRAGMA journal_mode = WAL; PRAGMA synchronous = "
                                                "FULL; UPDATE validations SET state = ",
                                                static_cast<int>(ValidationState::kQueued),
                                                ", lost_replicas = lost_replicas || "
                                                "coalesce(lease_owner, '') || char(10), "
                                                "lease_owner = NULL, lease_expire_ns = NULL, "
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

absl::Status SqliteValidationStore::Insert(const ValidationRecord& record,
                                           const RecordedSession& session) {
  absl::MutexLock lock(&mu_);
  Transaction transaction(db_, path_);
  if (absl::Status status = transaction.Begin(); !status.ok()) return status;
  Statement insert(db_, path_,
                   "INSERT INTO validations (session_key, session_id, id, owner, state, request, "
                   "effective_parameters, runs, create_time_ns, progress, labels, request_digest, "
                   "evidence) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING key");
  const std::string runs = EncodeValidatedRuns(record.runs);
  const std::string labels = EncodeLabels(record.labels);
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
  insert.BindBlob(11, labels);
  insert.BindText(12, record.request_digest);
  insert.BindBlob(13, record.evidence);
  absl::StatusOr<bool> row = insert.Step("storing a validation");
  if (!row.ok()) {
    if (sqlite3_extended_errcode(db_) == SQLITE_CONSTRAINT_UNIQUE) {
      return absl::AlreadyExistsError(absl::StrCat("validation ", record.id, " exists"));
    }
    return row.status();
  }
  const int64_t key = insert.Int(0);
  if (absl::Status status = StepToEnd(insert, "storing a validation"); !status.ok()) return status;
  Statement label(db_, path_,
                  "INSERT INTO validation_labels (validation_key, key, value) VALUES (?, ?, ?)");
  for (const auto& [name, value] : record.labels) {
    label.Reset();
    label.Bind(1, key);
    label.BindText(2, name);
    label.BindText(3, value);
    if (absl::Status status = label.Run("storing a validation's labels"); !status.ok()) {
      return status;
    }
  }
  for (const ValidationEvent& event : record.events) {
    if (absl::Status status = InsertEvent(db_, path_, key, event); !status.ok()) return status;
  }
  // The session as it is now; a tombstone stays one (a validation of it is refused before).
  Statement keep(db_, path_,
                 "INSERT INTO validation_sessions (key, id, owner, state, create_time_ns, "
                 "summary) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (key) DO UPDATE SET summary = "
                 "excluded.summary WHERE state = ?");
  keep.Bind(1, session.key);
  keep.BindText(2, session.id);
  keep.BindText(3, session.owner);
  keep.Bind(4, static_cast<int64_t>(RecordedSessionState::kActive));
  keep.Bind(5, ToNanos(session.create_time));
  keep.BindBlob(6, session.summary);
  keep.Bind(7, static_cast<int64_t>(RecordedSessionState::kActive));
  if (absl::Status status = keep.Run("keeping a validation's session"); !status.ok()) {
    return status;
  }
  return transaction.Commit();
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
  absl::StatusOr<ValidationRecord> record = RecordOf(query, path_, with_report);
  if (!record.ok()) return record.status();
  absl::StatusOr<std::vector<ValidationEvent>> events = ReadEvents(db_, path_, query.Int(0));
  if (!events.ok()) return events.status();
  record->events = *std::move(events);
  return record;
}

absl::StatusOr<ValidationRecord> SqliteValidationStore::Get(int64_t session_key,
                                                            std::string_view id, bool with_report) {
  absl::MutexLock lock(&mu_);
  return GetLocked(session_key, id, with_report);
}

absl::StatusOr<ValidationPage> SqliteValidationStore::List(const ValidationQuery& query,
                                                           std::optional<ValidationCursor> after,
                                                           int limit) {
  absl::MutexLock lock(&mu_);
  // Parameters 1 to 5 are the scope, the state and the cursor; the filter's follow (SQLite
  // numbers each plain "?" one past the highest so far), and the limit last.
  const SqlCondition filter = ValidationFilterSql(query.filter, SqlDialect::kSqlite, 6);
  const int limit_index = 6 + static_cast<int>(filter.params.size());
  const bool ascending = query.order == ValidationOrder::kOldestFirst;
  const char* const before_or_after = ascending ? ">" : "<";
  Statement select(
      db_, path_,
      absl::StrCat("SELECT ", kColumns, " FROM validations v WHERE ",
                   query.session_key.has_value() ? "v.session_key = ?1" : "v.owner = ?1",
                   " AND (?2 = 0 OR v.state = ?2) AND (?3 = 0 OR v.create_time_ns ",
                   before_or_after, " ?4 OR (v.create_time_ns = ?4 AND v.key ", before_or_after,
                   " ?5)) AND ", filter.where, " ORDER BY ",
                   std::string(ValidationOrderSql(query.order)), " LIMIT ?"));
  if (query.session_key.has_value()) {
    select.Bind(1, *query.session_key);
  } else {
    select.BindText(1, query.owner);
  }
  select.Bind(2, query.state.has_value() ? static_cast<int64_t>(*query.state) : int64_t{0});
  select.Bind(3, int64_t{after.has_value()});
  select.Bind(4, after.has_value() ? after->create_time_ns : 0);
  select.Bind(5, after.has_value() ? after->key : 0);
  // One more than a page tells whether another follows.
  select.Bind(limit_index, static_cast<int64_t>(limit) + 1);
  for (size_t i = 0; i < filter.params.size(); ++i) {
    const int index = 6 + static_cast<int>(i);
    if (const int64_t* number = std::get_if<int64_t>(&filter.params[i])) {
      select.Bind(index, *number);
    } else {
      select.BindText(index, std::get<std::string>(filter.params[i]));
    }
  }
  ValidationPage page;
  int64_t last_key = 0;
  for (;;) {
    absl::StatusOr<bool> row = select.Step("listing validations");
    if (!row.ok()) return row.status();
    if (!*row) break;
    if (static_cast<int>(page.validations.size()) == limit) {
      const ValidationRecord& last = page.validations.back();
      page.next = ValidationCursor{.create_time_ns = ToNanos(last.create_time), .key = last_key};
      break;
    }
    absl::StatusOr<ValidationRecord> record = RecordOf(select, path_, /*with_report=*/false);
    if (!record.ok()) return record.status();
    last_key = select.Int(0);
    page.validations.push_back(*std::move(record));
  }
  return page;
}

absl::StatusOr<ValidationRecord> SqliteValidationStore::RequestCancel(int64_t session_key,
                                                                      std::string_view id,
                                                                      const absl::Status& reason,
                                                                      std::string_view principal,
                                                                      absl::Time now) {
  absl::MutexLock lock(&mu_);
  Transaction transaction(db_, path_);
  if (absl::Status status = transaction.Begin(); !status.ok()) return status;
  absl::StatusOr<ValidationRecord> before = GetLocked(session_key, id, /*with_report=*/false);
  if (!before.ok()) return before.status();
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
  if (!IsFinal(before->state)) {
    absl::StatusOr<int64_t> key = KeyLocked(session_key, id);
    if (!key.ok()) return key.status();
    if (absl::Status status = InsertEvent(db_, path_, *key,
                                          ValidationEvent{.kind = ValidationEventKind::kCancel,
                                                          .time = now,
                                                          .principal = std::string(principal),
                                                          .replica = ""});
        !status.ok()) {
      return status;
    }
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

absl::StatusOr<QueuedCounts> SqliteValidationStore::CountQueued(std::string_view owner) {
  absl::MutexLock lock(&mu_);
  Statement query(db_, path_,
                  "SELECT count(*), count(*) FILTER (WHERE owner = ?) FROM validations WHERE "
                  "state = ?");
  query.BindText(1, owner);
  query.Bind(2, static_cast<int64_t>(ValidationState::kQueued));
  absl::StatusOr<bool> row = query.Step("counting queued validations");
  if (!row.ok()) return row.status();
  return QueuedCounts{.all = query.Int(0), .of_owner = query.Int(1)};
}

absl::StatusOr<std::optional<ValidationRecord>> SqliteValidationStore::Claim(
    std::string_view worker, absl::Time now, absl::Duration lease, const ClaimLimits& limits) {
  absl::MutexLock lock(&mu_);
  Transaction transaction(db_, path_);
  if (absl::Status status = transaction.Begin(); !status.ok()) return status;
  Statement next(
      db_, path_,
      absl::StrCat("SELECT v.session_key, v.id, v.key ", FairClaimFromSql(SqlDialect::kSqlite)));
  next.Bind(1, static_cast<int64_t>(ValidationState::kQueued));
  next.Bind(2, static_cast<int64_t>(ValidationState::kRunning));
  next.Bind(3, ToNanos(now));
  next.Bind(4, int64_t{limits.max_running_per_owner});
  absl::StatusOr<bool> row = next.Step("finding a queued validation");
  if (!row.ok()) return row.status();
  if (!*row) return std::optional<ValidationRecord>();
  const int64_t session_key = next.Int(0);
  const std::string id(next.Bytes(1));
  const int64_t key = next.Int(2);
  // A RUNNING one was lost by its lease's holder: it joins lost_replicas.
  Statement claim(db_, path_,
                  "UPDATE validations SET lost_replicas = CASE WHEN state = ?1 THEN lost_replicas "
                  "|| coalesce(lease_owner, '') || char(10) ELSE lost_replicas END, state = ?1, "
                  "start_time_ns = ?2, attempts = attempts + 1, lease_owner = ?3, "
                  "lease_expire_ns = ?4 WHERE session_key = ?5 AND id = ?6");
  claim.Bind(1, static_cast<int64_t>(ValidationState::kRunning));
  claim.Bind(2, ToNanos(now));
  claim.BindText(3, worker);
  claim.Bind(4, ToNanos(now + lease));
  claim.Bind(5, session_key);
  claim.BindText(6, id);
  if (absl::Status status = claim.Run("claiming a validation"); !status.ok()) return status;
  if (absl::Status status = InsertEvent(db_, path_, key,
                                        ValidationEvent{.kind = ValidationEventKind::kStart,
                                                        .time = now,
                                                        .principal = "",
                                                        .replica = std::string(worker)});
      !status.ok()) {
    return status;
  }
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
                                           std::string_view worker, const ValidationResult& result,
                                           absl::Time now) {
  const ValidationState state = result.state;
  const absl::Status& error = result.error;
  absl::MutexLock lock(&mu_);
  Transaction transaction(db_, path_);
  if (absl::Status status = transaction.Begin(); !status.ok()) return status;
  Statement finish(db_, path_,
                   "UPDATE validations SET state = ?, end_time_ns = ?, error_code = ?, "
                   "error_message = ?, report = ?, lease_owner = NULL, lease_expire_ns = NULL, "
                   "progress = NULL, engine = ?, distance = ?, passed = ?, p_value = ?, "
                   "ratio = ?, ratio_lo = ?, ratio_hi = ? WHERE session_key = ? AND id = ? AND "
                   "state = ? AND lease_owner = ? RETURNING key");
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
  const bool succeeded = state == ValidationState::kSucceeded;
  if (succeeded) {
    finish.BindBlob(5, result.report);
  } else {
    finish.BindNull(5);
  }
  finish.BindBlob(6, result.engine);
  if (succeeded) {
    const ValidationOutcome& outcome = result.outcome;
    finish.Bind(7, outcome.distance);
    if (outcome.passed.has_value()) {
      finish.Bind(8, int64_t{*outcome.passed});
    } else {
      finish.BindNull(8);
    }
    BindOptional(finish, 9, outcome.p_value);
    BindOptional(finish, 10, outcome.ratio);
    BindOptional(finish, 11, outcome.ratio_interval_lo);
    BindOptional(finish, 12, outcome.ratio_interval_hi);
  } else {
    for (int index = 7; index <= 12; ++index) finish.BindNull(index);
  }
  finish.Bind(13, session_key);
  finish.BindText(14, id);
  finish.Bind(15, static_cast<int64_t>(ValidationState::kRunning));
  finish.BindText(16, worker);
  absl::StatusOr<bool> row = finish.Step("storing a validation's result");
  if (!row.ok()) return row.status();
  if (!*row) {
    return absl::AbortedError(
        absl::StrCat("the lease on validation ", std::string(id), " is no longer this worker's"));
  }
  const int64_t key = finish.Int(0);
  if (absl::Status status = StepToEnd(finish, "storing a validation's result"); !status.ok()) {
    return status;
  }
  if (absl::Status status = InsertEvent(db_, path_, key,
                                        ValidationEvent{.kind = ValidationEventKind::kEnd,
                                                        .time = now,
                                                        .principal = "",
                                                        .replica = std::string(worker)});
      !status.ok()) {
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
