#include "validations/postgres_validation_store.h"

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "storage/postgres.h"
#include "validations/fair_claim_sql.h"
#include "validations/postgres_validation_store_internal.h"
#include "validations/record_encoding.h"

namespace wasserwarp::service {
namespace {

using postgres::Connection;
using postgres::Param;
using postgres::Result;
using postgres_store_internal::Cells;
using postgres_store_internal::DeleteTilesOn;
using postgres_store_internal::InsertDetailsOn;
using postgres_store_internal::InsertEventOn;
using postgres_store_internal::kColumns;
using postgres_store_internal::NotFound;
using postgres_store_internal::ReadEventsOn;
using postgres_store_internal::RecordOf;
using postgres_store_internal::ReleaseTilesOn;
using postgres_store_internal::State;
using postgres_store_internal::ToNanos;

// Announces the validation's end when the transaction commits.
absl::Status NotifyEndOn(Connection& connection, int64_t session_key, std::string_view id) {
  const std::string payload = ValidationEndPayload(session_key, id);
  return connection
      .Exec("SELECT pg_notify($1, $2)", {Param::Text(kValidationEndChannel), Param::Text(payload)},
            "announcing a validation's end")
      .status();
}

postgres::Param OptionalParam(std::optional<double> value) {
  return value.has_value() ? Param::Double(*value) : Param::Null();
}

// Returned once the transaction is over: as the body's Aborted, RunTransaction would run it again.
absl::Status LeaseLost(std::string_view id) {
  return absl::AbortedError(
      absl::StrCat("the lease on validation ", std::string(id), " is no longer this worker's"));
}

absl::StatusOr<ValidationRecord> GetOn(Connection& connection, int64_t session_key,
                                       std::string_view id, bool with_report) {
  absl::StatusOr<Result> result =
      connection.Exec(absl::StrCat("SELECT ", kColumns, with_report ? ", report" : "",
                                   " FROM validations WHERE session_key = $1 AND id = $2"),
                      {Param::Int64(session_key), Param::Text(id)}, "reading a validation");
  if (!result.ok()) return result.status();
  if (result->rows() == 0) return NotFound(id);
  absl::StatusOr<ValidationRecord> record =
      RecordOf(*result, 0, with_report, connection.redacted_url());
  if (!record.ok()) return record.status();
  absl::StatusOr<int64_t> key = result->GetInt64(0, 0);
  if (!key.ok()) return key.status();
  absl::StatusOr<std::vector<ValidationEvent>> events = ReadEventsOn(connection, *key);
  if (!events.ok()) return events.status();
  record->events = *std::move(events);
  return record;
}

}  // namespace

std::string ValidationEndPayload(int64_t session_key, std::string_view id) {
  return absl::StrCat(session_key, "/", absl::string_view(id.data(), id.size()));
}

std::optional<std::pair<int64_t, std::string>> ParseValidationEndPayload(std::string_view payload) {
  const size_t slash = payload.find('/');
  int64_t session_key = 0;
  if (slash == std::string_view::npos ||
      !absl::SimpleAtoi(absl::string_view(payload.data(), slash), &session_key)) {
    return std::nullopt;
  }
  return std::pair(session_key, std::string(payload.substr(slash + 1)));
}

PostgresValidationStore::PostgresValidationStore(postgres::Pool& pool,
                                                 postgres::TransactionOptions options)
    : pool_(pool), options_(std::move(options)) {}

absl::Status PostgresValidationStore::Insert(const ValidationRecord& record,
                                             const RecordedSession& kept) {
  const std::string runs = EncodeValidatedRuns(record.runs);
  const std::string labels = EncodeLabels(record.labels);
  int attempt = 0;
  return postgres::RunTransaction(
      pool_, "storing a validation",
      [&](Connection& connection) -> absl::Status {
        ++attempt;
        // Keeps the session from being deleted until the validation is in.
        absl::StatusOr<Result> session =
            connection.Exec("SELECT 1 FROM sessions WHERE key = $1 FOR KEY SHARE",
                            {Param::Int64(record.session_key)}, "storing a validation");
        if (!session.ok()) return session.status();
        if (session->rows() == 0) {
          return absl::NotFoundError(absl::StrCat("the session of validation ", record.id,
                                                  " is gone (session key ", record.session_key,
                                                  ")"));
        }
        absl::StatusOr<Result> inserted = connection.Exec(
            "INSERT INTO validations (session_key, session_id, id, owner, state, request,"
            " effective_parameters, runs, create_time_ns, progress, labels, request_digest,"
            " evidence) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)"
            " ON CONFLICT (session_key, id) DO NOTHING RETURNING key",
            {Param::Int64(record.session_key), Param::Text(record.session_id),
             Param::Text(record.id), Param::Text(record.owner), State(record.state),
             Param::Bytes(record.request), Param::Bytes(record.effective_parameters),
             Param::Bytes(runs), Param::Int64(ToNanos(record.create_time)),
             Param::Bytes(record.progress), Param::Bytes(labels),
             Param::Text(record.request_digest), Param::Bytes(record.evidence)},
            "storing a validation");
        if (!inserted.ok()) return inserted.status();
        if (inserted->rows() == 1) {
          absl::StatusOr<int64_t> key = inserted->GetInt64(0, 0);
          if (!key.ok()) return key.status();
          return InsertDetailsOn(connection, *key, record, kept);
        }
        const absl::Status taken =
            absl::AlreadyExistsError(absl::StrCat("validation ", record.id, " exists"));
        if (attempt == 1) return taken;
        // An earlier attempt whose COMMIT lost its answer may have stored it: then it is ours.
        absl::StatusOr<Result> existing = connection.Exec(
            "SELECT 1 FROM validations WHERE session_key = $1 AND id = $2 AND owner = $3"
            " AND request = $4 AND create_time_ns = $5",
            {Param::Int64(record.session_key), Param::Text(record.id), Param::Text(record.owner),
             Param::Bytes(record.request), Param::Int64(ToNanos(record.create_time))},
            "storing a validation");
        if (!existing.ok()) return existing.status();
        return existing->rows() == 1 ? absl::OkStatus() : taken;
      },
      options_);
}

absl::StatusOr<ValidationRecord> PostgresValidationStore::Get(int64_t session_key,
                                                              std::string_view id,
                                                              bool with_report) {
  absl::StatusOr<ValidationRecord> record;
  absl::Status status = postgres::RunTransaction(
      pool_, "reading a validation",
      [&](Connection& connection) {
        record = GetOn(connection, session_key, id, with_report);
        return record.status();
      },
      options_);
  if (!status.ok()) return status;
  return record;
}

absl::StatusOr<ValidationRecord> PostgresValidationStore::RequestCancel(int64_t session_key,
                                                                        std::string_view id,
                                                                        const absl::Status& reason,
                                                                        std::string_view principal,
                                                                        absl::Time now) {
  const std::string reason_message(reason.message());
  absl::StatusOr<ValidationRecord> record;
  // Run again, it finds the validation cancelled or marked already and changes nothing more.
  absl::Status status = postgres::RunTransaction(
      pool_, "cancelling a validation",
      [&](Connection& connection) -> absl::Status {
        absl::StatusOr<Result> pending = connection.Exec(
            "SELECT key FROM validations WHERE session_key = $1 AND id = $2 AND state IN ($3, $4)"
            " AND NOT cancel_requested FOR UPDATE",
            {Param::Int64(session_key), Param::Text(id), State(ValidationState::kQueued),
             State(ValidationState::kRunning)},
            "cancelling a validation");
        if (!pending.ok()) return pending.status();
        if (pending->rows() == 1) {
          absl::StatusOr<int64_t> key = pending->GetInt64(0, 0);
          if (!key.ok()) return key.status();
          if (absl::Status event =
                  InsertEventOn(connection, *key,
                                ValidationEvent{.kind = ValidationEventKind::kCancel,
                                                .time = now,
                                                .principal = std::string(principal),
                                                .replica = ""});
              !event.ok()) {
            return event;
          }
        }
        absl::StatusOr<Result> queued = connection.Exec(
            "UPDATE validations SET state = $1, end_time_ns = $2, error_code = $3,"
            " error_message = $4, cancel_requested = true"
            " WHERE session_key = $5 AND id = $6 AND state = $7",
            {State(ValidationState::kCancelled), Param::Int64(ToNanos(now)),
             Param::Int64(static_cast<int64_t>(reason.code())), Param::Text(reason_message),
             Param::Int64(session_key), Param::Text(id), State(ValidationState::kQueued)},
            "cancelling a validation");
        if (!queued.ok()) return queued.status();
        if (queued->affected_rows() == 1) {
          if (absl::Status notified = NotifyEndOn(connection, session_key, id); !notified.ok())
            return notified;
        }
        absl::StatusOr<Result> running = connection.Exec(
            "UPDATE validations SET cancel_requested = true, error_code = $1, error_message = $2"
            " WHERE session_key = $3 AND id = $4 AND state = $5",
            {Param::Int64(static_cast<int64_t>(reason.code())), Param::Text(reason_message),
             Param::Int64(session_key), Param::Text(id), State(ValidationState::kRunning)},
            "cancelling a validation");
        if (!running.ok()) return running.status();
        record = GetOn(connection, session_key, id, /*with_report=*/false);
        if (!record.ok()) return record.status();
        // Cancelled while queued, it may still have tiles of a run that was cut off.
        return IsFinal(record->state) ? DeleteTilesOn(connection, session_key, id)
                                      : absl::OkStatus();
      },
      options_);
  if (!status.ok()) return status;
  return record;
}

absl::StatusOr<QueuedCounts> PostgresValidationStore::CountQueued(std::string_view owner) {
  QueuedCounts counts;
  absl::Status status = postgres::RunTransaction(
      pool_, "counting queued validations",
      [&](Connection& connection) -> absl::Status {
        absl::StatusOr<Result> result = connection.Exec(
            "SELECT count(*), count(*) FILTER (WHERE owner = $2) FROM validations"
            " WHERE state = $1",
            {State(ValidationState::kQueued), Param::Text(owner)}, "counting queued validations");
        if (!result.ok()) return result.status();
        absl::StatusOr<int64_t> all = result->GetInt64(0, 0);
        if (!all.ok()) return all.status();
        absl::StatusOr<int64_t> of_owner = result->GetInt64(0, 1);
        if (!of_owner.ok()) return of_owner.status();
        counts = QueuedCounts{.all = *all, .of_owner = *of_owner};
        return absl::OkStatus();
      },
      options_);
  if (!status.ok()) return status;
  return counts;
}

absl::StatusOr<std::optional<ValidationRecord>> PostgresValidationStore::Claim(
    std::string_view worker, absl::Time now, absl::Duration lease, const ClaimLimits& limits) {
  std::optional<ValidationRecord> claimed;
  absl::Status status = postgres::RunTransaction(
      pool_, "claiming a validation",
      [&](Connection& connection) -> absl::Status {
        claimed.reset();
        // SKIP LOCKED: a row another replica is claiming right now is its, not ours.
        absl::StatusOr<Result> next = connection.Exec(
            absl::StrCat("SELECT v.key ", FairClaimFromSql(SqlDialect::kPostgres),
                         " FOR UPDATE OF v SKIP LOCKED"),
            {State(ValidationState::kQueued), State(ValidationState::kRunning),
             Param::Int64(ToNanos(now)), Param::Int64(limits.max_running_per_owner)},
            "finding a queued validation");
        if (!next.ok()) return next.status();
        if (next->rows() == 0) return absl::OkStatus();
        absl::StatusOr<int64_t> key = next->GetInt64(0, 0);
        if (!key.ok()) return key.status();
        absl::StatusOr<Result> updated = connection.Exec(
            // A RUNNING one was lost by its lease's holder: it joins lost_replicas.
            absl::StrCat("UPDATE validations SET lost_replicas = CASE WHEN state = $1 THEN"
                         " lost_replicas || coalesce(lease_owner, '') || chr(10)"
                         " ELSE lost_replicas END, state = $1, start_time_ns = $2,"
                         " attempts = attempts + 1, lease_owner = $3, lease_expire_ns = $4"
                         " WHERE key = $5 RETURNING ",
                         kColumns),
            {State(ValidationState::kRunning), Param::Int64(ToNanos(now)), Param::Text(worker),
             Param::Int64(ToNanos(now + lease)), Param::Int64(*key)},
            "claiming a validation");
        if (!updated.ok()) return updated.status();
        if (updated->rows() != 1) return absl::AbortedError("the claimed validation went away");
        if (absl::Status event = InsertEventOn(connection, *key,
                                               ValidationEvent{.kind = ValidationEventKind::kStart,
                                                               .time = now,
                                                               .principal = "",
                                                               .replica = std::string(worker)});
            !event.ok()) {
          return event;
        }
        absl::StatusOr<ValidationRecord> record =
            RecordOf(*updated, 0, /*with_report=*/false, connection.redacted_url());
        if (!record.ok()) return record.status();
        claimed = *std::move(record);
        return absl::OkStatus();
      },
      options_);
  if (!status.ok()) return status;
  return claimed;
}

absl::StatusOr<LeaseRenewal> PostgresValidationStore::Renew(int64_t session_key,
                                                            std::string_view id,
                                                            std::string_view worker, absl::Time now,
                                                            absl::Duration lease,
                                                            std::string_view progress) {
  LeaseRenewal renewal;
  bool lost = false;
  absl::Status status = postgres::RunTransaction(
      pool_, "renewing a lease",
      [&](Connection& connection) -> absl::Status {
        absl::StatusOr<Result> renewed = connection.Exec(
            "UPDATE validations SET lease_expire_ns = $1, progress = $2 WHERE session_key = $3"
            " AND id = $4 AND state = $5 AND lease_owner = $6 RETURNING cancel_requested",
            {Param::Int64(ToNanos(now + lease)), Param::Bytes(progress), Param::Int64(session_key),
             Param::Text(id), State(ValidationState::kRunning), Param::Text(worker)},
            "renewing a lease");
        if (!renewed.ok()) return renewed.status();
        lost = renewed->rows() == 0;
        if (lost) return absl::OkStatus();
        absl::StatusOr<bool> cancel = renewed->GetBool(0, 0);
        if (!cancel.ok()) return cancel.status();
        renewal.cancel_requested = *cancel;
        return absl::OkStatus();
      },
      options_);
  if (!status.ok()) return status;
  if (lost) return LeaseLost(id);
  return renewal;
}

absl::Status PostgresValidationStore::Finish(int64_t session_key, std::string_view id,
                                             std::string_view worker,
                                             const ValidationResult& result, absl::Time now) {
  const ValidationState state = result.state;
  const absl::Status& error = result.error;
  const bool succeeded = state == ValidationState::kSucceeded;
  const ValidationOutcome& outcome = result.outcome;
  const std::string error_message(error.message());
  int attempt = 0;
  bool lost = false;
  const absl::Status status = postgres::RunTransaction(
      pool_, "storing a validation's result",
      [&](Connection& connection) -> absl::Status {
        ++attempt;
        lost = false;
        absl::StatusOr<Result> finished = connection.Exec(
            "UPDATE validations SET state = $1, end_time_ns = $2, error_code = $3,"
            " error_message = $4, report = $5, lease_owner = NULL, lease_expire_ns = NULL,"
            " progress = NULL, engine = $10, distance = $11, passed = ($12::int = 1),"
            " p_value = $13, ratio = $14, ratio_lo = $15, ratio_hi = $16"
            " WHERE session_key = $6 AND id = $7 AND state = $8 AND lease_owner = $9"
            " RETURNING key",
            {State(state), Param::Int64(ToNanos(now)),
             error.ok() ? Param::Null() : Param::Int64(static_cast<int64_t>(error.code())),
             error.ok() ? Param::Null() : Param::Text(error_message),
             succeeded ? Param::Bytes(result.report) : Param::Null(), Param::Int64(session_key),
             Param::Text(id), State(ValidationState::kRunning), Param::Text(worker),
             Param::Bytes(result.engine),
             succeeded ? Param::Double(outcome.distance) : Param::Null(),
             succeeded && outcome.passed.has_value() ? Param::Int64(*outcome.passed ? 1 : 0)
                                                     : Param::Null(),
             OptionalParam(succeeded ? outcome.p_value : std::nullopt),
             OptionalParam(succeeded ? outcome.ratio : std::nullopt),
             OptionalParam(succeeded ? outcome.ratio_interval_lo : std::nullopt),
             OptionalParam(succeeded ? outcome.ratio_interval_hi : std::nullopt)},
            "storing a validation's result");
        if (!finished.ok()) return finished.status();
        if (finished->rows() == 1) {
          absl::StatusOr<int64_t> key = finished->GetInt64(0, 0);
          if (!key.ok()) return key.status();
          if (absl::Status event = InsertEventOn(connection, *key,
                                                 ValidationEvent{.kind = ValidationEventKind::kEnd,
                                                                 .time = now,
                                                                 .principal = "",
                                                                 .replica = std::string(worker)});
              !event.ok()) {
            return event;
          }
          if (absl::Status notified = NotifyEndOn(connection, session_key, id); !notified.ok())
            return notified;
          return DeleteTilesOn(connection, session_key, id);
        }
        lost = true;
        if (attempt == 1) return absl::OkStatus();
        // An earlier attempt whose COMMIT lost its answer may have ended it just so.
        absl::StatusOr<Result> ended = connection.Exec(
            "SELECT 1 FROM validations WHERE session_key = $1 AND id = $2 AND state = $3"
            " AND end_time_ns = $4 AND lease_owner IS NULL",
            {Param::Int64(session_key), Param::Text(id), State(state), Param::Int64(ToNanos(now))},
            "storing a validation's result");
        if (!ended.ok()) return ended.status();
        lost = ended->rows() == 0;
        return absl::OkStatus();
      },
      options_);
  if (!status.ok()) return status;
  return lost ? LeaseLost(id) : absl::OkStatus();
}

absl::Status PostgresValidationStore::Release(std::string_view worker) {
  return postgres::RunTransaction(
      pool_, "handing validations back to the queue",
      [&](Connection& connection) -> absl::Status {
        absl::StatusOr<Result> released = connection.Exec(
            "UPDATE validations SET state = $1, lease_owner = NULL, lease_expire_ns = NULL,"
            " start_time_ns = NULL, progress = NULL WHERE state = $2 AND lease_owner = $3",
            {State(ValidationState::kQueued), State(ValidationState::kRunning),
             Param::Text(worker)},
            "handing validations back to the queue");
        if (!released.ok()) return released.status();
        return ReleaseTilesOn(connection, worker);
      },
      options_);
}

absl::StatusOr<ValidationStore::Counts> PostgresValidationStore::CountAll(absl::Time now) {
  Counts counts;
  absl::Status status = postgres::RunTransaction(
      pool_, "counting validations",
      [&](Connection& connection) -> absl::Status {
        counts = Counts();
        absl::StatusOr<Result> by_state = connection.Exec(
            "SELECT state, count(*) FROM validations GROUP BY state", "counting validations");
        if (!by_state.ok()) return by_state.status();
        for (int row = 0; row < by_state->rows(); ++row) {
          absl::StatusOr<int64_t> state = by_state->GetInt64(row, 0);
          absl::StatusOr<int64_t> count = by_state->GetInt64(row, 1);
          if (!state.ok()) return state.status();
          if (!count.ok()) return count.status();
          if (*state >= 1 && *state <= 5) counts.by_state[*state] = *count;
        }
        absl::StatusOr<Result> leases = connection.Exec(
            "SELECT count(*) FROM validations WHERE state = $1 AND lease_expire_ns > $2",
            {State(ValidationState::kRunning), Param::Int64(ToNanos(now))}, "counting leases");
        if (!leases.ok()) return leases.status();
        absl::StatusOr<int64_t> held = leases->GetInt64(0, 0);
        if (!held.ok()) return held.status();
        counts.leases_held = *held;
        return absl::OkStatus();
      },
      options_);
  if (!status.ok()) return status;
  return counts;
}

}  // namespace wasserwarp::service
