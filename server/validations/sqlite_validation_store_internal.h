// What the two halves of SqliteValidationStore share: sqlite_validation_store.cc (the
// validations) and sqlite_validation_tiles.cc (their tiles).

#ifndef WASSERWARP_SERVER_VALIDATIONS_SQLITE_VALIDATION_STORE_INTERNAL_H_
#define WASSERWARP_SERVER_VALIDATIONS_SQLITE_VALIDATION_STORE_INTERNAL_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "storage/sqlite.h"
#include "validations/validation_record.h"

namespace wasserwarp::service::sqlite_store_internal {

// Times in integer nanoseconds since the Unix epoch.
inline int64_t ToNanos(absl::Time time) { return absl::ToUnixNanos(time); }
inline absl::Time FromNanos(int64_t nanos) { return absl::FromUnixNanos(nanos); }

// What RecordOf reads of a row of `validations`, in its order.
inline constexpr char kColumns[] =
    "key, session_key, session_id, id, owner, state, request, effective_parameters, runs, "
    "create_time_ns, start_time_ns, end_time_ns, attempts, cancel_requested, progress, "
    "error_code, error_message, lease_owner, lease_expire_ns, labels, request_digest, evidence, "
    "engine, distance, passed, p_value, ratio, ratio_lo, ratio_hi, lost_replicas";

// A new file gets the current format; an existing one is checked to be a validation database
// of this or an earlier format, and migrated.
absl::Status PrepareFormat(sqlite3* db, const std::string& path, bool is_new);

// The row `row` stands on, selected with kColumns (and the report after them when asked).
absl::StatusOr<ValidationRecord> RecordOf(const sqlite::Statement& row, const std::string& path,
                                          bool with_report);

// Appends `event` to the validation with `validation_key`, within the caller's transaction.
absl::Status InsertEvent(sqlite3* db, const std::string& path, int64_t validation_key,
                         const ValidationEvent& event);
// The events of the validation with `validation_key`, in order.
absl::StatusOr<std::vector<ValidationEvent>> ReadEvents(sqlite3* db, const std::string& path,
                                                        int64_t validation_key);

inline absl::Status Damaged(const std::string& path, std::string_view what) {
  return absl::DataLossError(absl::StrCat(path, " is damaged: ", std::string(what)));
}

// A statement with RETURNING holds its write open until it has stepped to the end; errors
// there (a failed commit) are the statement's.
inline absl::Status StepToEnd(sqlite::Statement& statement, std::string_view doing) {
  for (;;) {
    absl::StatusOr<bool> row = statement.Step(doing);
    if (!row.ok()) return row.status();
    if (!*row) return absl::OkStatus();
  }
}

}  // namespace wasserwarp::service::sqlite_store_internal

#endif  // WASSERWARP_SERVER_VALIDATIONS_SQLITE_VALIDATION_STORE_INTERNAL_H_
