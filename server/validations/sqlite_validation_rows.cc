// Rows of a validation database as SqliteValidationStore reads and writes them: a record, and
// its events.

#include <sqlite3.h>

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "storage/sqlite.h"
#include "validations/record_encoding.h"
#include "validations/sqlite_validation_store_internal.h"

namespace wasserwarp::service::sqlite_store_internal {
namespace {

using sqlite::Statement;

std::optional<absl::Time> OptionalTime(const Statement& row, int column) {
  if (row.IsNull(column)) return std::nullopt;
  return FromNanos(row.Int(column));
}

std::optional<double> OptionalDouble(const Statement& row, int column) {
  if (row.IsNull(column)) return std::nullopt;
  return row.Double(column);
}

}  // namespace

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
  std::optional<std::map<std::string, std::string>> labels = DecodeLabels(row.Bytes(19));
  if (!labels.has_value()) {
    return Damaged(path, absl::StrCat("the labels of validation ", record.id, " do not decode"));
  }
  record.labels = *std::move(labels);
  record.request_digest = std::string(row.Bytes(20));
  record.evidence = std::string(row.Bytes(21));
  record.engine = std::string(row.Bytes(22));
  if (!row.IsNull(23)) {
    ValidationOutcome outcome;
    outcome.distance = row.Double(23);
    if (!row.IsNull(24)) outcome.passed = row.Int(24) != 0;
    outcome.p_value = OptionalDouble(row, 25);
    outcome.ratio = OptionalDouble(row, 26);
    outcome.ratio_interval_lo = OptionalDouble(row, 27);
    outcome.ratio_interval_hi = OptionalDouble(row, 28);
    record.outcome = outcome;
  }
  record.lost_replicas = DecodeLostReplicas(row.Bytes(29));
  if (with_report) record.report = std::string(row.Bytes(30));
  return record;
}

using sqlite::Statement;

absl::Status InsertEvent(sqlite3* db, const std::string& path, int64_t validation_key,
                         const ValidationEvent& event) {
  Statement insert(db, path,
                   "INSERT INTO validation_events (validation_key, kind, time_ns, principal, "
                   "replica) VALUES (?, ?, ?, ?, ?)");
  insert.Bind(1, validation_key);
  insert.Bind(2, static_cast<int64_t>(event.kind));
  insert.Bind(3, ToNanos(event.time));
  insert.BindText(4, event.principal);
  insert.BindText(5, event.replica);
  return insert.Run("recording a validation's event");
}

absl::StatusOr<std::vector<ValidationEvent>> ReadEvents(sqlite3* db, const std::string& path,
                                                        int64_t validation_key) {
  Statement query(db, path,
                  "SELECT kind, time_ns, principal, replica FROM validation_events WHERE "
                  "validation_key = ? ORDER BY seq");
  query.Bind(1, validation_key);
  std::vector<ValidationEvent> events;
  for (;;) {
    absl::StatusOr<bool> row = query.Step("reading a validation's events");
    if (!row.ok()) return row.status();
    if (!*row) return events;
    const int64_t kind = query.Int(0);
    if (kind < static_cast<int64_t>(ValidationEventKind::kCreate) ||
        kind > static_cast<int64_t>(ValidationEventKind::kSessionExpire)) {
      return Damaged(path, absl::StrCat("an event of a validation has kind ", kind));
    }
    events.push_back(ValidationEvent{.kind = static_cast<ValidationEventKind>(kind),
                                     .time = FromNanos(query.Int(1)),
                                     .principal = std::string(query.Bytes(2)),
                                     .replica = std::string(query.Bytes(3))});
  }
}

}  // namespace wasserwarp::service::sqlite_store_internal
