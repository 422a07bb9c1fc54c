// PostgreSQL as the shared store of several servers uses it (--postgres_url): one libpq
// connection, statements with typed parameters, results read cell by cell, transactions, and
// errors whose code says whether a caller may retry. Every error names the database by its
// URL with the password masked (postgres_secrets.h), never the password itself.

#ifndef WASSERWARP_SERVER_STORAGE_POSTGRES_H_
#define WASSERWARP_SERVER_STORAGE_POSTGRES_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"

typedef struct pg_conn PGconn;
typedef struct pg_result PGresult;

namespace wasserwarp::service::postgres {

// The one place that decides which PostgreSQL errors a caller may retry.
// `sqlstate` is the error's SQLSTATE ("" when libpq raised it itself, as for a lost
// connection); `connection_broken` says the connection is no longer usable. Lost or refused
// connections and administrator shutdowns (class 08, 57P01..57P03, or a broken connection)
// give Unavailable; serialization failures and deadlocks (40001, 40P01) Aborted, so that the
// transaction may be run again; unique violations (23505) AlreadyExists; a statement cancelled
// by statement_timeout (57014) DeadlineExceeded; a lock not granted within lock_timeout (55P03)
// Unavailable, as the lock's holder may let go later; anything else Internal. The message is
// "PostgreSQL <database>: <doing>: <message> [SQLSTATE]"; `database` must already be redacted.
absl::Status PostgresError(std::string_view sqlstate, bool connection_broken,
                           std::string_view database, std::string_view doing,
                           std::string_view message);

// One statement parameter, sent as PostgreSQL's int8, float8 or bytea in binary (exact, and
// binary-safe for bytea) or as text whose type the server infers from the statement. Text and
// bytes are not copied: they must outlive the Exec that sends them. Text cannot hold a NUL
// byte (PostgreSQL's text types have none): Exec refuses such text with InvalidArgument
// rather than store what comes before the NUL.
class Param {
 public:
  static Param Null() { return Param(Kind::kNull); }
  static Param Int64(int64_t value);
  static Param Double(double value);
  static Param Text(std::string_view text);
  static Param Bytes(std::string_view bytes);

 private:
  friend class Connection;
  enum class Kind { kNull, kInt64, kDouble, kText, kBytes };
  explicit Param(Kind kind) : kind_(kind) {}

  Kind kind_;
  std::string_view data_;  // kText and kBytes
  char binary_[8] = {};    // kInt64 and kDouble, big-endian as the wire wants them
};

// The rows of one statement, in text form as the server wrote them. Cheap to copy: copies
// share the immutable libpq result. Rows and columns are 0-based; a typed getter of a cell
// out of range, NULL, or not of the type asked for gives InvalidArgument naming the cell.
class Result {
 public:
  Result() = default;

  int rows() const;
  int columns() const;
  // The number of rows an INSERT, UPDATE or DELETE touched; 0 for other statements.
  int64_t affected_rows() const;

  bool IsNull(int row, int column) const;
  // The cell as the server wrote it; "" for NULL. For text, varchar and the like this is the
  // value; for other types PostgreSQL's text form of it.
  std::string_view GetText(int row, int column) const;
  absl::StatusOr<int64_t> GetInt64(int row, int column) const;
  absl::StatusOr<double> GetDouble(int row, int column) const;
  absl::StatusOr<bool> GetBool(int row, int column) const;
  // A bytea cell, decoded: every byte, zeros included.
  absl::StatusOr<std::string> GetBytes(int row, int column) const;

 private:
  friend class Connection;
  explicit Result(PGresult* result);
  absl::Status CheckCell(int row, int column) const;
  absl::Status NotA(int row, int column, std::string_view type) const;

  std::shared_ptr<const PGresult> result_;
};

// What every connection of a server is opened with (--postgres_* flags): the server-side
// timeouts that keep one stuck statement, lock wait or abandoned transaction from holding a
// connection and its locks for ever, and TCP keepalives that notice a peer gone without a word
// (a failed-over server, a dropped NAT entry). A zero timeout is none.
struct ConnectionSettings {
  absl::Duration statement_timeout = absl::Seconds(60);
  absl::Duration lock_timeout = absl::Seconds(10);
  absl::Duration idle_in_transaction_timeout = absl::Seconds(60);
  // Idle time before the first probe, time between probes (both whole seconds), and probes
  // unanswered before the connection counts as dead; keepalives_idle zero: no keepalives.
  absl::Duration keepalives_idle = absl::Seconds(30);
  absl::Duration keepalives_interval = absl::Seconds(10);
  int keepalives_count = 3;
  // The password, read from --postgres_password_file; empty: the URL's, or libpq's own sources
  // (PGPASSWORD, PGPASSFILE, ~/.pgpass). A password in the URL wins.
  std::string password;
};

// How a transaction sees other transactions.
enum class Isolation { kReadCommitted, kRepeatableRead, kSerializable };

// One connection to the database; not thread-safe (a Pool lends each to one thread at a time).
class Connection {
 public:
  // Connects to `url`, giving up after `connect_timeout` (libpq's resolution is whole seconds,
  // at least 2) unless the URL sets its own connect_timeout. Unavailable when the server
  // cannot be reached or refuses the connection.
  // `settings` are applied before it is returned.
  static absl::StatusOr<Connection> Open(const std::string& url,
                                         absl::Duration connect_timeout = absl::Seconds(10),
                                         const ConnectionSettings& settings = {});

  Connection(Connection&& other) noexcept;
  Connection& operator=(Connection&& other) noexcept;
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;
  ~Connection();

  // Runs one statement (a single one: parameters use the extended protocol, which takes no
  // more); $1, $2, ... in `sql` are `params` in order. `doing` says what for, in the error.
  absl::StatusOr<Result> Exec(const std::string& sql, const std::vector<Param>& params,
                              std::string_view doing);
  absl::StatusOr<Result> Exec(const std::string& sql, std::string_view doing) {
    return Exec(sql, {}, doing);
  }

  // Transaction control, for callers that do not use Transaction.
  absl::Status Begin(Isolation isolation = Isolation::kReadCommitted);
  absl::Status Commit();
  absl::Status Rollback();

  // True once the connection is known to be unusable: libpq says so, an error said the
  // server ended or lost it, or the server closed it while it sat idle (the check reads what
  // is waiting on the socket, so it notices a server restarted since the last statement).
  bool Broken();
  // True between Begin and Commit or Rollback, failed transactions included.
  bool InTransaction() const;

  // The database's URL with the password masked, for messages.
  const std::string& redacted_url() const { return redacted_url_; }
  // The database's name, as the server has it.
  std::string database() const;
  // For what this class does not wrap; still owned by the Connection.
  PGconn* raw() const { return conn_; }

 private:
  Connection(PGconn* conn, std::string redacted_url)
      : conn_(conn), redacted_url_(std::move(redacted_url)) {}
  absl::Status Error(const PGresult* result, std::string_view doing);

  PGconn* conn_ = nullptr;
  std::string redacted_url_;
  bool broken_ = false;
};

// A transaction, rolled back unless committed, so that an early return leaves nothing half
// done. The connection must outlive it.
class Transaction {
 public:
  explicit Transaction(Connection& connection) : connection_(connection) {}
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;
  ~Transaction();

  absl::Status Begin(Isolation isolation = Isolation::kReadCommitted);
  absl::Status Commit();

 private:
  Connection& connection_;
  bool open_ = false;
};

}  // namespace wasserwarp::service::postgres

#endif  // WASSERWARP_SERVER_STORAGE_POSTGRES_H_
