// What the two halves of PostgresValidationStore share: postgres_validation_store.cc (the
// validations) and postgres_validation_tiles.cc (their tiles).

#ifndef WASSERWARP_SERVER_VALIDATIONS_POSTGRES_VALIDATION_STORE_INTERNAL_H_
#define WASSERWARP_SERVER_VALIDATIONS_POSTGRES_VALIDATION_STORE_INTERNAL_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "storage/postgres.h"
#include "validations/validation_record.h"

namespace wasserwarp::service::postgres_store_internal {

// Times in integer nanoseconds since the Unix epoch.
inline int64_t ToNanos(absl::Time time) { return absl::ToUnixNanos(time); }
inline postgres::Param State(ValidationState state) {
  return postgres::Param::Int64(static_cast<int64_t>(state));
}

inline absl::Status NotFound(std::string_view id) {
  return absl::NotFoundError(absl::StrCat("validation ", std::string(id), " not found"));
}

// The cells of one row, the first error kept: a row the schema allows always reads.
class Cells {
 public:
  Cells(const postgres::Result& result, int row) : result_(result), row_(row) {}

  int64_t Int(int column) { return Keep(result_.GetInt64(row_, column), int64_t{0}); }
  bool Bool(int column) { return Keep(result_.GetBool(row_, column), false); }
  std::string Text(int column) { return std::string(result_.GetText(row_, column)); }
  // NULL: empty.
  std::string Bytes(int column) {
    if (result_.IsNull(row_, column)) return std::string();
    return Keep(result_.GetBytes(row_, column), std::string());
  }
  std::optional<absl::Time> Time(int column) {
    if (result_.IsNull(row_, column)) return std::nullopt;
    return absl::FromUnixNanos(Int(column));
  }
  bool IsNull(int column) const { return result_.IsNull(row_, column); }
  const absl::Status& status() const { return status_; }

 private:
  template <typename T>
  T Keep(absl::StatusOr<T> value, T otherwise) {
    if (value.ok()) return *std::move(value);
    status_.Update(value.status());
    return otherwise;
  }

  const postgres::Result& result_;
  const int row_;
  absl::Status status_;
};

// What RecordOf reads of a row of `validations`, in its order.
inline constexpr char kColumns[] =
    "key, session_key, session_id, id, owner, state, request, effective_parameters, runs, "
    "create_time_ns, start_time_ns, end_time_ns, attempts, cancel_requested, progress, "
    "error_code, error_message, lease_owner, lease_expire_ns, labels, request_digest, evidence, "
    "engine, distance, passed, p_value, ratio, ratio_lo, ratio_hi, lost_replicas";

// Row `row` of `result`, selected with kColumns (and the report after them when asked).
absl::StatusOr<ValidationRecord> RecordOf(const postgres::Result& result, int row, bool with_report,
                                          const std::string& database);

// Within the caller's transaction (postgres_validation_records.cc): an event of the validation
// with `validation_key`; its events in order; and what Insert writes beside the record's row
// (its labels, its events, its session).
absl::Status InsertEventOn(postgres::Connection& connection, int64_t validation_key,
                           const ValidationEvent& event);
absl::StatusOr<std::vector<ValidationEvent>> ReadEventsOn(postgres::Connection& connection,
                                                          int64_t validation_key);
absl::Status InsertDetailsOn(postgres::Connection& connection, int64_t validation_key,
                             const ValidationRecord& record, const RecordedSession& session);

// Within the caller's transaction (postgres_validation_tiles.cc): the validation's tiles, which
// its end takes along; and Release's part, `worker`'s running tiles queued again.
absl::Status DeleteTilesOn(postgres::Connection& connection, int64_t session_key,
                           std::string_view id);
absl::Status ReleaseTilesOn(postgres::Connection& connection, std::string_view worker);

}  // namespace wasserwarp::service::postgres_store_internal

#endif  // WASSERWARP_SERVER_VALIDATIONS_POSTGRES_VALIDATION_STORE_INTERNAL_H_
