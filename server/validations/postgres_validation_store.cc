#include "validations/postgres_validation_store.h"

#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "storage/postgres.h"
#include "validations/postgres_validation_store_internal.h"
#include "validations/record_encoding.h"

namespace wasserwarp::service {
namespace {

using postgres::Connection;
using postgres::Param;
using postgres::Result;
using postgres_store_internal::Cells;
using postgres_store_internal::DeleteTilesOn;
using postgres_store_internal::NotFound;
using postgres_store_internal::ReleaseTilesOn;
using postgres_store_internal::State;
using postgres_store_internal::ToNanos;

constexpr char kColumns[] =
    "key, session_key, session_id, id, owner, state, request, effective_parameters, runs, "
    "create_time_ns, start_time_ns, end_time_ns, attempts, cancel_requested, progress, "
    "error_code, error_message, lease_owner, lease_expire_ns";

// Returned once the transaction is over: as the body's Aborted, RunTransaction would run it again.
absl::Status LeaseLost(std::string_view id) {
  return absl::AbortedError(
      absl::StrCat("the lease on validation ", std::string(id), " is no longer this worker's"));
}

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
  if (with_report) record.report = cells.Bytes(19);
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
  return record;
}

absl::StatusOr<ValidationRecord> GetOn(Connection& connection, int64_t session_key,
                                       std::string_view id, bool with_report) {
  absl::StatusOr<Result> result =
      connection.Exec(absl::StrCat("SELECT ", kColumns, with_report ? ", report" : "",
                                   " FROM validations WHERE session_key = $1 AND id = $2"),
                      {Param::Int64(session_key), Param::Text(id)}, "reading a validation");
  if (!result.ok()) return result.status();
  if (result->rows() == 0) return NotFound(id);
  return RecordOf(*result, 0, with_report, connection.redacted_url());
}

}  // namespace

PostgresValidationStore::PostgresValidationStore(postgres::Pool& pool,
                                                 postgres::TransactionOptions options)
    : pool_(pool), options_(std::move(options)) {}

absl::Status PostgresValidationStore::Insert(const ValidationRecord& record) {
  const std::string runs = EncodeValidatedRuns(record.runs);
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
            " effective_parameters, runs, create_time_ns, progress)"
            " VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)"
            " ON CONFLICT (session_key, id) DO NOTHING RETURNING key",
            {Param::Int64(record.session_key), Param::Text(record.session_id),
             Param::Text(record.id), Param::Text(record.owner), State(record.state),
             Param::Bytes(record.request), Param::Bytes(record.effective_parameters),
             Param::Bytes(runs), Param::Int64(ToNanos(record.create_time)),
             Param::Bytes(record.progress)},
            "storing a validation");
        if (!inserted.ok()) return inserted.status();
        if (inserted->rows() == 1) return absl::OkStatus();
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

absl::StatusOr<ValidationPage> PostgresValidationStore::List(int64_t session_key,
                                                             std::optional<ValidationState> state,
                                                             std::optional<int64_t> before_key,
                                                             int limit) {
  const int64_t state_number = state.has_value() ? static_cast<int64_t>(*state) : 0;
  ValidationPage page;
  absl::Status status = postgres::RunTransaction(
      pool_, "listing validations",
      [&](Connection& connection) -> absl::Status {
        page = ValidationPage();
        // One more than a page tells whether another follows.
        absl::StatusOr<Result> result = connection.Exec(
            absl::StrCat("SELECT ", kColumns,
                         " FROM validations WHERE session_key = $1 AND key < $2 AND"
                         " ($3 = 0 OR state = $3) ORDER BY key DESC LIMIT $4"),
            {Param::Int64(session_key), Param::Int64(before_key.value_or(INT64_MAX)),
             Param::Int64(state_number), Param::Int64(static_cast<int64_t>(limit) + 1)},
            "listing validations");
        if (!result.ok()) return result.status();
        std::vector<int64_t> keys;
        for (int row = 0; row < result->rows(); ++row) {
          if (static_cast<int>(page.validations.size()) == limit) {
            page.next_key = keys.back();
            break;
          }
          absl::StatusOr<ValidationRecord> record =
              RecordOf(*result, row, /*with_report=*/false, connection.redacted_url());
          if (!record.ok()) return record.status();
          keys.push_back(result->GetInt64(row, 0).value_or(0));
          page.validations.push_back(*std::move(record));
        }
        return absl::OkStatus();
      },
      options_);
  if (!status.ok()) return status;
  return page;
}

absl::StatusOr<ValidationRecord> PostgresValidationStore::RequestCancel(int64_t session_key,
                                                                        std::string_view id,
                                                                        const absl::Status& reason,
                                                                        absl::Time now) {
  const std::string reason_message(reason.message());
  absl::StatusOr<ValidationRecord> record;
  // Run again, it finds the validation cancelled or marked already and changes nothing more.
  absl::Status status = postgres::RunTransaction(
      pool_, "cancelling a validation",
      [&](Connection& connection) -> absl::Status {
        absl::StatusOr<Result> queued = connection.Exec(
            "UPDATE validations SET state = $1, end_time_ns = $2, error_code = $3,"
            " error_message = $4, cancel_requested = true"
            " WHERE session_key = $5 AND id = $6 AND state = $7",
            {State(ValidationState::kCancelled), Param::Int64(ToNanos(now)),
             Param::Int64(static_cast<int64_t>(reason.code())), Param::Text(reason_message),
             Param::Int64(session_key), Param::Text(id), State(ValidationState::kQueued)},
            "cancelling a validation");
        if (!queued.ok()) return queued.status();
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

absl::StatusOr<int64_t> PostgresValidationStore::CountQueued() {
  int64_t count = 0;
  absl::Status status = postgres::RunTransaction(
      pool_, "counting queued validations",
      [&](Connection& connection) -> absl::Status {
        absl::StatusOr<Result> result =
            connection.Exec("SELECT count(*) FROM validations WHERE state = $1",
                            {State(ValidationState::kQueued)}, "counting queued validations");
        if (!result.ok()) return result.status();
        absl::StatusOr<int64_t> value = result->GetInt64(0, 0);
        if (!value.ok()) return value.status();
        count = *value;
        return absl::OkStatus();
      },
      options_);
  if (!status.ok()) return status;
  return count;
}

absl::StatusOr<std::optional<ValidationRecord>> PostgresValidationStore::Claim(
    std::string_view worker, absl::Time now, absl::Duration lease) {
  std::optional<ValidationRecord> claimed;
  absl::Status status = postgres::RunTransaction(
      pool_, "claiming a validation",
      [&](Connection& connection) -> absl::Status {
        claimed.reset();
        // SKIP LOCKED: a row another replica is claiming right now is its, not ours.
        absl::StatusOr<Result> next = connection.Exec(
            "SELECT key FROM validations WHERE state = $1 OR (state = $2 AND"
            " lease_expire_ns <= $3) ORDER BY key LIMIT 1 FOR UPDATE SKIP LOCKED",
            {State(ValidationState::kQueued), State(ValidationState::kRunning),
             Param::Int64(ToNanos(now))},
            "finding a queued validation");
        if (!next.ok()) return next.status();
        if (next->rows() == 0) return absl::OkStatus();
        absl::StatusOr<int64_t> key = next->GetInt64(0, 0);
        if (!key.ok()) return key.status();
        absl::StatusOr<Result> updated = connection.Exec(
            absl::StrCat("UPDATE validations SET state = $1, start_time_ns = $2,"
                         " attempts = attempts + 1, lease_owner = $3, lease_expire_ns = $4"
                         " WHERE key = $5 RETURNING ",
                         kColumns),
            {State(ValidationState::kRunning), Param::Int64(ToNanos(now)), Param::Text(worker),
             Param::Int64(ToNanos(now + lease)), Param::Int64(*key)},
            "claiming a validation");
        if (!updated.ok()) return updated.status();
        if (updated->rows() != 1) return absl::AbortedError("the claimed validation went away");
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
                                             std::string_view worker, ValidationState state,
                                             const absl::Status& error, std::string_view report,
                                             absl::Time now) {
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
            " progress = NULL WHERE session_key = $6 AND id = $7 AND state = $8 AND"
            " lease_owner = $9",
            {State(state), Param::Int64(ToNanos(now)),
             error.ok() ? Param::Null() : Param::Int64(static_cast<int64_t>(error.code())),
             error.ok() ? Param::Null() : Param::Text(error_message),
             state == ValidationState::kSucceeded ? Param::Bytes(report) : Param::Null(),
             Param::Int64(session_key), Param::Text(id), State(ValidationState::kRunning),
             Param::Text(worker)},
            "storing a validation's result");
        if (!finished.ok()) return finished.status();
        if (finished->affected_rows() == 1) return DeleteTilesOn(connection, session_key, id);
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

absl::Status PostgresValidationStore::DeleteSession(int64_t session_key) {
  return postgres::RunTransaction(
      pool_, "deleting a session's validations",
      [&](Connection& connection) {
        return connection
            .Exec("DELETE FROM validations WHERE session_key = $1", {Param::Int64(session_key)},
                  "deleting a session's validations")
            .status();
      },
      options_);
}

absl::StatusOr<int64_t> PostgresValidationStore::DeleteAllBut(const std::set<int64_t>&) {
  return 0;
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
