#include "storage/sqlite.h"

#include <string>
#include <string_view>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace wasserwarp::service::sqlite {
namespace {

absl::string_view View(std::string_view s) { return absl::string_view(s.data(), s.size()); }

}  // namespace

absl::Status SqliteError(sqlite3* db, int code, const std::string& path, std::string_view doing) {
  const std::string message = absl::StrCat(
      path, ": ", View(doing), ": ", db != nullptr ? sqlite3_errmsg(db) : sqlite3_errstr(code));
  switch (code & 0xff) {
    case SQLITE_FULL:
      return absl::ResourceExhaustedError(message);
    case SQLITE_CORRUPT:
      return absl::DataLossError(message);
    case SQLITE_NOTADB:
      return absl::FailedPreconditionError(message);
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
    case SQLITE_IOERR:
    case SQLITE_CANTOPEN:
    case SQLITE_READONLY:
      return absl::UnavailableError(message);
    default:
      return absl::InternalError(message);
  }
}

absl::Status Exec(sqlite3* db, const std::string& path, const std::string& sql,
                  std::string_view doing) {
  const int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr);
  return rc == SQLITE_OK ? absl::OkStatus() : SqliteError(db, rc, path, doing);
}

absl::StatusOr<int64_t> PragmaInt(sqlite3* db, const std::string& path, const char* pragma) {
  Statement statement(db, path, absl::StrCat("PRAGMA ", pragma));
  absl::StatusOr<bool> row = statement.Step(absl::StrCat("reading PRAGMA ", pragma));
  if (!row.ok()) return row.status();
  return *row ? statement.Int(0) : 0;
}

}  // namespace wasserwarp::service::sqlite
