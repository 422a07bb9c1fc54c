// What the two halves of SqliteValidationStore share: sqlite_validation_store.cc (the
// validations) and sqlite_validation_tiles.cc (their tiles).

#ifndef WASSERWARP_SERVER_VALIDATIONS_SQLITE_VALIDATION_STORE_INTERNAL_H_
#define WASSERWARP_SERVER_VALIDATIONS_SQLITE_VALIDATION_STORE_INTERNAL_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "storage/sqlite.h"

namespace wasserwarp::service::sqlite_store_internal {

// Times in integer nanoseconds since the Unix epoch.
inline int64_t ToNanos(absl::Time time) { return absl::ToUnixNanos(time); }

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
