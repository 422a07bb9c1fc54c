// SqliteValidationStore's records beyond the queue: their deletion, and the sessions they
// belong to, kept as tombstones once the sessions are gone.

#include <sqlite3.h>

#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "storage/sqlite.h"
#include "validations/sqlite_validation_store.h"
#include "validations/sqlite_validation_store_internal.h"

namespace wasserwarp::service {

namespace {

using sqlite::Statement;
using sqlite::Transaction;
using sqlite_store_internal::Damaged;
using sqlite_store_internal::FromNanos;
using sqlite_store_internal::ToNanos;

constexpr char kSessionColumns[] = "key, id, owner, state, create_time_ns, delete_time_ns, summary";

absl::StatusOr<RecordedSession> SessionOf(const Statement& row, const std::string& path) {
  RecordedSession session;
  session.key = row.Int(0);
  session.id = std::string(row.Bytes(1));
  session.owner = std::string(row.Bytes(2));
  const int64_t state = row.Int(3);
  if (state < static_cast<int64_t>(RecordedSessionState::kActive) ||
      state > static_cast<int64_t>(RecordedSessionState::kDeleted)) {
    return Damaged(path, absl::StrCat("session ", session.id, " has state ", state));
  }
  session.state = static_cast<RecordedSessionState>(state);
  session.create_time = FromNanos(row.Int(4));
  if (!row.IsNull(5)) session.delete_time = FromNanos(row.Int(5));
  session.summary = std::string(row.Bytes(6));
  return session;
}

// Tombstones without records go: what a record's deletion or its retention leaves behind.
absl::Status DropEmptyTombstones(sqlite3* db, const std::string& path) {
  Statement drop(db, path,
                 "DELETE FROM validation_sessions WHERE state != 1 AND NOT EXISTS (SELECT 1 FROM "
                 "validations v WHERE v.session_key = validation_sessions.key)");
  return drop.Run("removing tombstones without records");
}

// Keeps session instance `session_key` as a tombstone, with an event on each of its records,
// within the caller's transaction; nothing for a session without records, or one gone already.
absl::Status MarkGone(sqlite3* db, const std::string& path, int64_t session_key,
                      RecordedSessionState state, std::string_view principal, absl::Time now) {
  const ValidationEventKind kind = state == RecordedSessionState::kDeleted
                                       ? ValidationEventKind::kSessionDelete
                                       : ValidationEventKind::kSessionExpire;
  Statement events(db, path,
                   "INSERT INTO validation_events (validation_key, kind, time_ns, principal, "
                   "replica) SELECT v.key, ?, ?, ?, '' FROM validations v JOIN validation_sessions "
                   "s ON s.key = v.session_key WHERE s.key = ? AND s.state = 1 ORDER BY v.key");
  events.Bind(1, static_cast<int64_t>(kind));
  events.Bind(2, ToNanos(now));
  events.BindText(3, principal);
  events.Bind(4, session_key);
  if (absl::Status status = events.Run("recording that a session went"); !status.ok()) {
    return status;
  }
  Statement mark(db, path,
                 "UPDATE validation_sessions SET state = ?, delete_time_ns = ? WHERE key = ? AND "
                 "state = 1");
  mark.Bind(1, static_cast<int64_t>(state));
  mark.Bind(2, ToNanos(now));
  mark.Bind(3, session_key);
  return mark.Run("keeping a session as a tombstone");
}

}  // namespace

absl::Status SqliteValidationStore::Delete(int64_t session_key, std::string_view id) {
  absl::MutexLock lock(&mu_);
  Transaction transaction(db_, path_);
  if (absl::Status status = transaction.Begin(); !status.ok()) return status;
  absl::StatusOr<ValidationRecord> record = GetLocked(session_key, id, /*with_report=*/false);
  if (!record.ok()) return record.status();
  if (!IsFinal(record->state)) {
    return absl::FailedPreconditionError(
        absl::StrCat("validation ", std::string(id),
                     " has not ended; cancel it (CancelValidation) before deleting it"));
  }
  Statement remove(db_, path_, "DELETE FROM validations WHERE session_key = ? AND id = ?");
  remove.Bind(1, session_key);
  remove.BindText(2, id);
  if (absl::Status status = remove.Run("deleting a validation"); !status.ok()) return status;
  if (absl::Status status = DropEmptyTombstones(db_, path_); !status.ok()) return status;
  return transaction.Commit();
}

absl::Status SqliteValidationStore::SessionGone(int64_t session_key, RecordedSessionState state,
                                                std::string_view principal, absl::Time now) {
  absl::MutexLock lock(&mu_);
  Transaction transaction(db_, path_);
  if (absl::Status status = transaction.Begin(); !status.ok()) return status;
  if (absl::Status status = MarkGone(db_, path_, session_key, state, principal, now);
      !status.ok()) {
    return status;
  }
  return transaction.Commit();
}

absl::StatusOr<int64_t> SqliteValidationStore::SessionsExpired(const std::set<int64_t>& live_keys,
                                                               absl::Time now) {
  absl::MutexLock lock(&mu_);
  std::vector<int64_t> gone;
  {
    // A session with a record created at `now` or later may have been created after the caller
    // read `live_keys`: it waits for the next call.
    Statement active(db_, path_,
                     "SELECT key FROM validation_sessions s WHERE state = 1 AND NOT EXISTS (SELECT "
                     "1 FROM validations v WHERE v.session_key = s.key AND v.create_time_ns >= ?)");
    active.Bind(1, ToNanos(now));
    for (;;) {
      absl::StatusOr<bool> row = active.Step("reading the sessions of records");
      if (!row.ok()) return row.status();
      if (!*row) break;
      if (!live_keys.contains(active.Int(0))) gone.push_back(active.Int(0));
    }
  }
  if (gone.empty()) return 0;
  Transaction transaction(db_, path_);
  if (absl::Status status = transaction.Begin(); !status.ok()) return status;
  for (int64_t key : gone) {
    if (absl::Status status = MarkGone(db_, path_, key, RecordedSessionState::kExpired, "", now);
        !status.ok()) {
      return status;
    }
  }
  if (absl::Status status = transaction.Commit(); !status.ok()) return status;
  return static_cast<int64_t>(gone.size());
}

absl::StatusOr<std::optional<RecordedSession>> SqliteValidationStore::FindSession(
    std::string_view id) {
  absl::MutexLock lock(&mu_);
  Statement query(db_, path_,
                  absl::StrCat("SELECT ", kSessionColumns,
                               " FROM validation_sessions WHERE id = ? ORDER BY key DESC LIMIT 1"));
  query.BindText(1, id);
  absl::StatusOr<bool> row = query.Step("finding a session's records");
  if (!row.ok()) return row.status();
  if (!*row) return std::optional<RecordedSession>();
  absl::StatusOr<RecordedSession> session = SessionOf(query, path_);
  if (!session.ok()) return session.status();
  return std::optional<RecordedSession>(*std::move(session));
}

absl::StatusOr<std::vector<RecordedSession>> SqliteValidationStore::ListTombstones(
    std::string_view owner, std::string_view after_id, int limit) {
  absl::MutexLock lock(&mu_);
  Statement query(db_, path_,
                  absl::StrCat("SELECT ", kSessionColumns,
                               " FROM validation_sessions WHERE owner = ? AND id > ? AND state != "
                               "1 ORDER BY id, key LIMIT ?"));
  query.BindText(1, owner);
  query.BindText(2, after_id);
  query.Bind(3, static_cast<int64_t>(limit));
  std::vector<RecordedSession> sessions;
  for (;;) {
    absl::StatusOr<bool> row = query.Step("listing tombstones");
    if (!row.ok()) return row.status();
    if (!*row) return sessions;
    absl::StatusOr<RecordedSession> session = SessionOf(query, path_);
    if (!session.ok()) return session.status();
    sessions.push_back(*std::move(session));
  }
}

absl::Status SqliteValidationStore::PurgeSession(int64_t session_key) {
  absl::MutexLock lock(&mu_);
  Transaction transaction(db_, path_);
  if (absl::Status status = transaction.Begin(); !status.ok()) return status;
  Statement tombstone(db_, path_, "DELETE FROM validation_sessions WHERE key = ? AND state != 1");
  tombstone.Bind(1, session_key);
  if (absl::Status status = tombstone.Run("purging a tombstone"); !status.ok()) return status;
  if (sqlite3_changes(db_) == 0) {
    return absl::NotFoundError(absl::StrCat("no tombstone of session key ", session_key));
  }
  Statement records(db_, path_, "DELETE FROM validations WHERE session_key = ?");
  records.Bind(1, session_key);
  if (absl::Status status = records.Run("purging a tombstone's records"); !status.ok()) {
    return status;
  }
  return transaction.Commit();
}

absl::StatusOr<int64_t> SqliteValidationStore::DeleteEndedBefore(absl::Time cutoff) {
  absl::MutexLock lock(&mu_);
  Transaction transaction(db_, path_);
  if (absl::Status status = transaction.Begin(); !status.ok()) return status;
  Statement remove(db_, path_,
                   "DELETE FROM validations WHERE end_time_ns IS NOT NULL AND end_time_ns < ?");
  remove.Bind(1, ToNanos(cutoff));
  if (absl::Status status = remove.Run("deleting records past their retention"); !status.ok()) {
    return status;
  }
  const int64_t removed = sqlite3_changes(db_);
  if (absl::Status status = DropEmptyTombstones(db_, path_); !status.ok()) return status;
  if (absl::Status status = transaction.Commit(); !status.ok()) return status;
  return removed;
}

}  // namespace wasserwarp::service
