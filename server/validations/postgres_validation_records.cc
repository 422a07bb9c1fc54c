// PostgresValidationStore's records beyond the queue: rows read and written for a record (its
// labels and events), listings with filters, deletion, and the sessions records belong to, kept
// as tombstones once the sessions are gone.

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "absl/strings/str_cat.h"
#include "storage/postgres.h"
#include "validations/postgres_validation_store.h"
#include "validations/postgres_validation_store_internal.h"
#include "validations/record_encoding.h"
#include "validations/validation_filter_sql.h"

namespace wasserwarp::service {
namespace postgres_store_internal {
namespace {

using postgres::Connection;
using postgres::Param;
using postgres::Result;

std::optional<double> OptionalDouble(const Result& result, int row, int column) {
  if (result.IsNull(row, column)) return std::nullopt;
  absl::StatusOr<double> value = result.GetDouble(row, column);
  if (!value.ok()) return std::nullopt;
  return *value;
}

}  // namespace

// Row `row` of `result`, selected with kColumns (and the report after them when asked).
absl::StatusOr<ValidationRecord> RecordOf(const Result& result, int row, bool with_report,
                                          const std::string& database) {
  const auto damaged = [&](const std::string& what) {
    return absl::DataLossError(
        absl::StrCat("PostgreSQL ", database, ": the validations table is damaged: ", what));
  };
  Cells cells(result, row);
  ValidationRecord record;
  record.session_key = cells.Int(1);
  record.session_id = cells.Text(2);
  record.id = cells.Text(3);
  record.owner = cells.Text(4);
  const int64_t state = cells.Int(5);
  record.request = cells.Bytes(6);
  record.effective_parameters = cells.Bytes(7);
  const std::string runs = cells.Bytes(8);
  record.create_time = absl::FromUnixNanos(cells.Int(9));
  record.start_time = cells.Time(10);
  record.end_time = cells.Time(11);
  record.attempts = static_cast<int>(cells.Int(12));
  record.cancel_requested = cells.Bool(13);
  record.progress = cells.Bytes(14);
  if (!cells.IsNull(15)) {
    record.error = absl::Status(static_cast<absl::StatusCode>(cells.Int(15)), cells.Text(16));
  }
  record.lease_owner = cells.Text(17);
  record.lease_expire = cells.Time(18);
  const std::string labels = cells.Bytes(19);
  record.request_digest = cells.Text(20);
  record.evidence = cells.Bytes(21);
  record.engine = cells.Bytes(22);
  if (!cells.IsNull(23)) {
    ValidationOutcome outcome;
    outcome.distance = OptionalDouble(result, row, 23).value_or(0.0);
    if (!cells.IsNull(24)) outcome.passed = cells.Bool(24);
    outcome.p_value = OptionalDouble(result, row, 25);
    outcome.ratio = OptionalDouble(result, row, 26);
    outcome.ratio_interval_lo = OptionalDouble(result, row, 27);
    outcome.ratio_interval_hi = OptionalDouble(result, row, 28);
    record.outcome = outcome;
  }
  record.lost_replicas = DecodeLostReplicas(cells.Text(29));
  if (with_report) record.report = cells.Bytes(30);
  if (!cells.status().ok()) return damaged(std::string(cells.status().message()));
  if (state < static_cast<int64_t>(ValidationState::kQueued) ||
      state > static_cast<int64_t>(ValidationState::kCancelled)) {
    return damaged(absl::StrCat("validation ", record.id, " has state ", state));
  }
  record.state = static_cast<ValidationState>(state);
  std::optional<std::vector<ValidatedRun>> decoded = DecodeValidatedRuns(runs);
  if (!decoded.has_value()) {
    return damaged(absl::StrCat("the runs of validation ", record.id, " do not decode"));
  }
  record.runs = *std::move(decoded);
  std::optional<std::map<std::string, std::string>> decoded_labels = DecodeLabels(labels);
  if (!decoded_labels.has_value()) {
    return damaged(absl::StrCat("the labels of validation ", record.id, " do not decode"));
  }
  record.labels = *std::move(decoded_labels);
  return record;
}

absl::Status InsertEventOn(Connection& connection, int64_t validation_key,
                           const ValidationEvent& event) {
  return connection
      .Exec(
          "INSERT INTO validation_events (validation_key, kind, time_ns, principal, replica)"
          " VALUES ($1, $2, $3, $4, $5)",
          {Param::Int64(validation_key), Param::Int64(static_cast<int64_t>(event.kind)),
           Param::Int64(ToNanos(event.time)), Param::Text(event.principal),
           Param::Text(event.replica)},
          "recording a validation's event")
      .status();
}

absl::StatusOr<std::vector<ValidationEvent>> ReadEventsOn(Connection& connection,
                                                          int64_t validation_key) {
  absl::StatusOr<Result> result = connection.Exec(
      "SELECT kind, time_ns, principal, replica FROM validation_events WHERE validation_key = $1"
      " ORDER BY seq",
      {Param::Int64(validation_key)}, "reading a validation's events");
  if (!result.ok()) return result.status();
  std::vector<ValidationEvent> events;
  for (int row = 0; row < result->rows(); ++row) {
    Cells cells(*result, row);
    const int64_t kind = cells.Int(0);
    ValidationEvent event{.time = absl::FromUnixNanos(cells.Int(1)),
                          .principal = cells.Text(2),
                          .replica = cells.Text(3)};
    if (!cells.status().ok()) return cells.status();
    if (kind < static_cast<int64_t>(ValidationEventKind::kCreate) ||
        kind > static_cast<int64_t>(ValidationEventKind::kSessionExpire)) {
      return absl::DataLossError(
          absl::StrCat("PostgreSQL ", connection.redacted_url(),
                       ": the validation_events table is damaged: an event has kind ", kind));
    }
    event.kind = static_cast<ValidationEventKind>(kind);
    events.push_back(std::move(event));
  }
  return events;
}

absl::Status InsertDetailsOn(Connection& connection, int64_t validation_key,
                             const ValidationRecord& record, const RecordedSession& session) {
  for (const auto& [name, value] : record.labels) {
    if (absl::Status status =
            connection
                .Exec("INSERT INTO validation_labels (validation_key, key, value)"
                      " VALUES ($1, $2, $3)",
                      {Param::Int64(validation_key), Param::Text(name), Param::Text(value)},
                      "storing a validation's labels")
                .status();
        !status.ok()) {
      return status;
    }
  }
  for (const ValidationEvent& event : record.events) {
    if (absl::Status status = InsertEventOn(connection, validation_key, event); !status.ok()) {
      return status;
    }
  }
  // The session as it is now; a tombstone stays one (a validation of it is refused before).
  return connection
      .Exec(
          "INSERT INTO validation_sessions (key, id, owner, state, create_time_ns, summary)"
          " VALUES ($1, $2, $3, 1, $4, $5) ON CONFLICT (key) DO UPDATE SET summary ="
          " excluded.summary WHERE validation_sessions.state = 1",
          {Param::Int64(session.key), Param::Text(session.id), Param::Text(session.owner),
           Param::Int64(ToNanos(session.create_time)), Param::Bytes(session.summary)},
          "keeping a validation's session")
      .status();
}

}  // namespace postgres_store_internal

namespace {

using postgres::Connection;
using postgres::Param;
using postgres::Result;
using postgres_store_internal::Cells;
using postgres_store_internal::kColumns;
using postgres_store_internal::RecordOf;
using postgres_store_internal::ToNanos;

constexpr char kSessionColumns[] = "key, id, owner, state, create_time_ns, delete_time_ns, summary";

absl::StatusOr<std::vector<RecordedSession>> SessionsOf(const Result& result,
                                                        const std::string& database) {
  std::vector<RecordedSession> sessions;
  for (int row = 0; row < result.rows(); ++row) {
    Cells cells(result, row);
    RecordedSession session;
    session.key = cells.Int(0);
    session.id = cells.Text(1);
    session.owner = cells.Text(2);
    const int64_t state = cells.Int(3);
    session.create_time = absl::FromUnixNanos(cells.Int(4));
    session.delete_time = cells.Time(5);
    session.summary = cells.Bytes(6);
    if (!cells.status().ok()) return cells.status();
    if (state < static_cast<int64_t>(RecordedSessionState::kActive) ||
        state > static_cast<int64_t>(RecordedSessionState::kDeleted)) {
      return absl::DataLossError(absl::StrCat("PostgreSQL ", database, ": session ", session.id,
                                              " of the validation records has state ", state));
    }
    session.state = static_cast<RecordedSessionState>(state);
    sessions.push_back(std::move(session));
  }
  return sessions;
}

// Within the caller's transaction: tombstones without records go.
absl::Status DropEmptyTombstonesOn(Connection& connection) {
  return connection
      .Exec(
          "DELETE FROM validation_sessions s WHERE state != 1 AND NOT EXISTS (SELECT 1 FROM"
          " validations v WHERE v.session_key = s.key)",
          "removing tombstones without records")
      .status();
}

// Within the caller's transaction: the active kept sessions `which` selects (a condition on
// `s`, with $4 free for it) become tombstones, with an event on each of their records.
absl::StatusOr<int64_t> MarkGoneOn(Connection& connection, const std::string& which,
                                   const Param& which_param, RecordedSessionState state,
                                   std::string_view principal, absl::Time now) {
  const ValidationEventKind kind = state == RecordedSessionState::kDeleted
                                       ? ValidationEventKind::kSessionDelete
                                       : ValidationEventKind::kSessionExpire;
  absl::StatusOr<Result> marked = connection.Exec(
      absl::StrCat("UPDATE validation_sessions s SET state = $1, delete_time_ns = $2"
                   " WHERE s.state = 1 AND $3::text IS NOT NULL AND ",
                   which, " RETURNING s.key"),
      {Param::Int64(static_cast<int64_t>(state)), Param::Int64(ToNanos(now)),
       Param::Text(principal), which_param},
      "keeping sessions as tombstones");
  if (!marked.ok()) return marked.status();
  for (int row = 0; row < marked->rows(); ++row) {
    absl::StatusOr<int64_t> key = marked->GetInt64(row, 0);
    if (!key.ok()) return key.status();
    if (absl::Status status =
            connection
                .Exec("INSERT INTO validation_events (validation_key, kind, time_ns, principal,"
                      " replica) SELECT key, $1, $2, $3, '' FROM validations WHERE session_key = $4"
                      " ORDER BY key",
                      {Param::Int64(static_cast<int64_t>(kind)), Param::Int64(ToNanos(now)),
                       Param::Text(principal), Param::Int64(*key)},
                      "recording that a session went")
                .status();
        !status.ok()) {
      return status;
    }
  }
  return static_cast<int64_t>(marked->rows());
}

}  // namespace

absl::StatusOr<ValidationPage> PostgresValidationStore::List(const ValidationQuery& query,
                                                             std::optional<ValidationCursor> after,
                                                             int limit) {
  const bool ascending = query.order == ValidationOrder::kOldestFirst;
  const char* const before_or_after = ascending ? ">" : "<";
  // $1 to $5 are the scope, the state and the cursor, $6 the limit; the filter's follow.
  const SqlCondition filter = ValidationFilterSql(query.filter, SqlDialect::kPostgres, 7);
  const std::string sql = absl::StrCat(
      "SELECT ", kColumns, " FROM validations v WHERE ",
      query.session_key.has_value() ? "v.session_key = $1::bigint" : "v.owner = $1::text",
      " AND ($2::bigint = 0 OR v.state = $2::bigint) AND ($3::bigint = 0 OR v.create_time_ns ",
      before_or_after, " $4::bigint OR (v.create_time_ns = $4::bigint AND v.key ", before_or_after,
      " $5::bigint)) AND ", filter.where, " ORDER BY ",
      std::string(ValidationOrderSql(query.order)), " LIMIT $6");
  std::vector<Param> params = {
      query.session_key.has_value() ? Param::Int64(*query.session_key) : Param::Text(query.owner),
      Param::Int64(query.state.has_value() ? static_cast<int64_t>(*query.state) : 0),
      Param::Int64(after.has_value() ? 1 : 0),
      Param::Int64(after.has_value() ? after->create_time_ns : 0),
      Param::Int64(after.has_value() ? after->key : 0),
      // One more than a page tells whether another follows.
      Param::Int64(static_cast<int64_t>(limit) + 1)};
  for (const SqlValue& value : filter.params) {
    if (const int64_t* number = std::get_if<int64_t>(&value)) {
      params.push_back(Param::Int64(*number));
    } else {
      params.push_back(Param::Text(std::get<std::string>(value)));
    }
  }
  ValidationPage page;
  absl::Status status = postgres::RunTransaction(
      pool_, "listing validations",
      [&](Connection& connection) -> absl::Status {
        page = ValidationPage();
        absl::StatusOr<Result> result = connection.Exec(sql, params, "listing validations");
        if (!result.ok()) return result.status();
        int64_t last_key = 0;
        for (int row = 0; row < result->rows(); ++row) {
          if (static_cast<int>(page.validations.size()) == limit) {
            page.next = ValidationCursor{
                .create_time_ns = ToNanos(page.validations.back().create_time), .key = last_key};
            break;
          }
          absl::StatusOr<ValidationRecord> record =
              RecordOf(*result, row, /*with_report=*/false, connection.redacted_url());
          if (!record.ok()) return record.status();
          last_key = result->GetInt64(row, 0).value_or(0);
          page.validations.push_back(*std::move(record));
        }
        return absl::OkStatus();
      },
      options_);
  if (!status.ok()) return status;
  return page;
}

absl::Status PostgresValidationStore::Delete(int64_t session_key, std::string_view id) {
  return postgres::RunTransaction(
      pool_, "deleting a validation",
      [&](Connection& connection) -> absl::Status {
        absl::StatusOr<Result> found = connection.Exec(
            "SELECT state FROM validations WHERE session_key = $1 AND id = $2 FOR UPDATE",
            {Param::Int64(session_key), Param::Text(id)}, "deleting a validation");
        if (!found.ok()) return found.status();
        if (found->rows() == 0) return postgres_store_internal::NotFound(id);
        absl::StatusOr<int64_t> state = found->GetInt64(0, 0);
        if (!state.ok()) return state.status();
        if (!IsFinal(static_cast<ValidationState>(*state))) {
          return absl::FailedPreconditionError(
              absl::StrCat("validation ", std::string(id),
                           " has not ended; cancel it (CancelValidation) before deleting it"));
        }
        if (absl::Status status =
                connection
                    .Exec("DELETE FROM validations WHERE session_key = $1 AND id = $2",
                          {Param::Int64(session_key), Param::Text(id)}, "deleting a validation")
                    .status();
            !status.ok()) {
          return status;
        }
        return DropEmptyTombstonesOn(connection);
      },
      options_);
}

absl::Status PostgresValidationStore::SessionGone(int64_t session_key, RecordedSessionState state,
                                                  std::string_view principal, absl::Time now) {
  return postgres::RunTransaction(
      pool_, "keeping a session as a tombstone",
      [&](Connection& connection) {
        return MarkGoneOn(connection, "s.key = $4", Param::Int64(session_key), state, principal,
                          now)
            .status();
      },
      options_);
}

absl::StatusOr<int64_t> PostgresValidationStore::SessionsExpired(const std::set<int64_t>&,
                                                                 absl::Time now) {
  int64_t marked = 0;
  // The shared sessions table is the truth: a kept session it no longer holds expired (a
  // deletion marks its session before it deletes it).
  absl::Status status = postgres::RunTransaction(
      pool_, "keeping expired sessions as tombstones",
      [&](Connection& connection) -> absl::Status {
        absl::StatusOr<int64_t> count = MarkGoneOn(
            connection,
            "$4::bigint = 0 AND NOT EXISTS (SELECT 1 FROM sessions x WHERE x.key = s.key)",
            Param::Int64(0), RecordedSessionState::kExpired, "", now);
        if (!count.ok()) return count.status();
        marked = *count;
        return absl::OkStatus();
      },
      options_);
  if (!status.ok()) return status;
  return marked;
}

absl::StatusOr<std::optional<RecordedSession>> PostgresValidationStore::FindSession(
    std::string_view id) {
  std::optional<RecordedSession> found;
  absl::Status status = postgres::RunTransaction(
      pool_, "finding a session's records",
      [&](Connection& connection) -> absl::Status {
        absl::StatusOr<Result> result = connection.Exec(
            absl::StrCat("SELECT ", kSessionColumns,
                         " FROM validation_sessions WHERE id = $1 ORDER BY key DESC LIMIT 1"),
            {Param::Text(id)}, "finding a session's records");
        if (!result.ok()) return result.status();
        absl::StatusOr<std::vector<RecordedSession>> sessions =
            SessionsOf(*result, connection.redacted_url());
        if (!sessions.ok()) return sessions.status();
        found.reset();
        if (!sessions->empty()) found = std::move(sessions->front());
        return absl::OkStatus();
      },
      options_);
  if (!status.ok()) return status;
  return found;
}

absl::StatusOr<std::vector<RecordedSession>> PostgresValidationStore::ListTombstones(
    std::string_view owner, std::string_view after_id, int limit) {
  std::vector<RecordedSession> tombstones;
  absl::Status status = postgres::RunTransaction(
      pool_, "listing tombstones",
      [&](Connection& connection) -> absl::Status {
        absl::StatusOr<Result> result = connection.Exec(
            absl::StrCat("SELECT ", kSessionColumns,
                         " FROM validation_sessions WHERE owner = $1 AND id > $2 AND state != 1"
                         " ORDER BY id, key LIMIT $3"),
            {Param::Text(owner), Param::Text(after_id), Param::Int64(limit)}, "listing tombstones");
        if (!result.ok()) return result.status();
        absl::StatusOr<std::vector<RecordedSession>> sessions =
            SessionsOf(*result, connection.redacted_url());
        if (!sessions.ok()) return sessions.status();
        tombstones = *std::move(sessions);
        return absl::OkStatus();
      },
      options_);
  if (!status.ok()) return status;
  return tombstones;
}

absl::Status PostgresValidationStore::PurgeSession(int64_t session_key) {
  return postgres::RunTransaction(
      pool_, "purging a tombstone",
      [&](Connection& connection) -> absl::Status {
        absl::StatusOr<Result> purged = connection.Exec(
            "DELETE FROM validation_sessions WHERE key = $1 AND state != 1 RETURNING key",
            {Param::Int64(session_key)}, "purging a tombstone");
        if (!purged.ok()) return purged.status();
        if (purged->rows() == 0) {
          return absl::NotFoundError(absl::StrCat("no tombstone of session key ", session_key));
        }
        return connection
            .Exec("DELETE FROM validations WHERE session_key = $1", {Param::Int64(session_key)},
                  "purging a tombstone's records")
            .status();
      },
      options_);
}

absl::StatusOr<int64_t> PostgresValidationStore::DeleteEndedBefore(absl::Time cutoff) {
  int64_t removed = 0;
  absl::Status status = postgres::RunTransaction(
      pool_, "deleting records past their retention",
      [&](Connection& connection) -> absl::Status {
        absl::StatusOr<Result> deleted = connection.Exec(
            "DELETE FROM validations WHERE end_time_ns IS NOT NULL AND end_time_ns < $1",
            {Param::Int64(ToNanos(cutoff))}, "deleting records past their retention");
        if (!deleted.ok()) return deleted.status();
        removed = deleted->affected_rows();
        return DropEmptyTombstonesOn(connection);
      },
      options_);
  if (!status.ok()) return status;
  return removed;
}

}  // namespace wasserwarp::service
