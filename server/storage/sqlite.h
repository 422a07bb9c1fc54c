// SQLite as the session database uses it: errors whose code says whether a client may retry,
// prepared statements and write transactions, each tied to the database file's path so that
// every error names it.

#ifndef WASSERWARP_SERVER_STORAGE_SQLITE_H_
#define WASSERWARP_SERVER_STORAGE_SQLITE_H_

#include <sqlite3.h>

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace wasserwarp::service::sqlite {

// What went wrong with `path` in SQLite's words, with a code that says
// whether a client may retry.
absl::Status SqliteError(sqlite3* db, int code, const std::string& path, std::string_view doing);

// Runs `sql`, which returns no rows.
absl::Status Exec(sqlite3* db, const std::string& path, const std::string& sql,
                  std::string_view doing);

// One prepared statement. Bind errors surface at Step.
class Statement {
 public:
  Statement(sqlite3* db, const std::string& path, std::string_view sql) : db_(db), path_(path) {
    rc_ = sqlite3_prepare_v2(db, sql.data(), static_cast<int>(sql.size()), &stmt_, nullptr);
  }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  ~Statement() { sqlite3_finalize(stmt_); }

  // Parameters are 1-based; text and blobs must outlive Step.
  void Bind(int index, int64_t value) { Check(sqlite3_bind_int64(stmt_, index, value)); }
  void Bind(int index, double value) { Check(sqlite3_bind_double(stmt_, index, value)); }
  void BindNull(int index) { Check(sqlite3_bind_null(stmt_, index)); }
  void BindText(int index, std::string_view text) {
    Check(sqlite3_bind_text64(stmt_, index, text.data(), text.size(), SQLITE_STATIC, SQLITE_UTF8));
  }
  void BindBlob(int index, std::string_view bytes) {
    // A zero-length blob must not be bound as NULL.
    Check(sqlite3_bind_blob64(stmt_, index, bytes.empty() ? "" : bytes.data(), bytes.size(),
                              SQLITE_STATIC));
  }

  // True with a row to read, false when done.
  absl::StatusOr<bool> Step(std::string_view doing) {
    if (rc_ != SQLITE_OK) return SqliteError(db_, rc_, path_, doing);
    const int rc = sqlite3_step(stmt_);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    return SqliteError(db_, rc, path_, doing);
  }
  // Step for a statement that returns no rows.
  absl::Status Run(std::string_view doing) { return Step(doing).status(); }

  // For the next Step with new bindings.
  void Reset() {
    sqlite3_reset(stmt_);
    sqlite3_clear_bindings(stmt_);
  }

  int64_t Int(int column) const { return sqlite3_column_int64(stmt_, column); }
  double Double(int column) const { return sqlite3_column_double(stmt_, column); }
  bool IsNull(int column) const { return sqlite3_column_type(stmt_, column) == SQLITE_NULL; }
  // Valid until the next Step.
  std::string_view Bytes(int column) const {
    const void* data = sqlite3_column_blob(stmt_, column);
    const int size = sqlite3_column_bytes(stmt_, column);
    return data == nullptr
               ? std::string_view()
               : std::string_view(static_cast<const char*>(data), static_cast<size_t>(size));
  }

 private:
  void Check(int rc) {
    if (rc_ == SQLITE_OK) rc_ = rc;
  }

  sqlite3* const db_;
  const std::string& path_;
  sqlite3_stmt* stmt_ = nullptr;
  int rc_ = SQLITE_OK;
};

// A write transaction, rolled back unless committed.
class Transaction {
 public:
  Transaction(sqlite3* db, const std::string& path) : db_(db), path_(path) {}
  ~Transaction() {
    // A failed statement may have ended the transaction already.
    if (begun_ && !sqlite3_get_autocommit(db_))
      sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
  }

  absl::Status Begin() {
    // IMMEDIATE takes the write lock now, so that no statement inside can
    // fail for a lock it could not upgrade.
    absl::Status status = Exec(db_, path_, "BEGIN IMMEDIATE", "starting a transaction");
    begun_ = status.ok();
    return status;
  }
  absl::Status Commit() { return Exec(db_, path_, "COMMIT", "committing"); }

 private:
  sqlite3* const db_;
  const std::string& path_;
  bool begun_ = false;
};

// The integer value of `pragma`; 0 when it has none.
absl::StatusOr<int64_t> PragmaInt(sqlite3* db, const std::string& path, const char* pragma);

}  // namespace wasserwarp::service::sqlite

#endif  // WASSERWARP_SERVER_STORAGE_SQLITE_H_
