// The connections a server holds to the shared PostgreSQL (--postgres_url): at most a fixed
// number (--postgres_pool_size), lent one thread at a time, reopened when they break (a
// restarted or failed-over server), and transactions that are run again when PostgreSQL says
// another transaction got in the way or the connection broke under them.

#ifndef WASSERWARP_SERVER_STORAGE_POSTGRES_POOL_H_
#define WASSERWARP_SERVER_STORAGE_POSTGRES_POOL_H_

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "storage/postgres.h"

namespace wasserwarp::service::postgres {

class Pool;

// A connection lent by a Pool, given back when this goes away. Move-only.
class PooledConnection {
 public:
  PooledConnection(PooledConnection&& other) noexcept;
  PooledConnection& operator=(PooledConnection&& other) noexcept;
  PooledConnection(const PooledConnection&) = delete;
  PooledConnection& operator=(const PooledConnection&) = delete;
  ~PooledConnection();

  Connection& operator*() { return *connection_; }
  Connection* operator->() { return &*connection_; }

  // Closes the connection now instead of giving it back, for one in a state nobody should
  // inherit; the pool opens another when asked. Broken connections are dropped anyway. The
  // handle is empty afterwards.
  void Discard();

 private:
  friend class Pool;
  PooledConnection(Pool* pool, Connection connection)
      : pool_(pool), connection_(std::move(connection)) {}
  void GiveBack();

  Pool* pool_ = nullptr;
  std::optional<Connection> connection_;
};

// Thread-safe. Connections are opened when first needed, never more than `max_connections`
// at once (lent, idle and being opened together).
class Pool {
 public:
  // `url` as Connection::Open takes it, every connection opened with `settings`;
  // `max_connections` at least 1.
  Pool(std::string url, int max_connections, ConnectionSettings settings = {});
  Pool(const Pool&) = delete;
  Pool& operator=(const Pool&) = delete;
  // Every PooledConnection must have been given back.
  ~Pool();

  // A connection that works as far as can be told without a statement (see
  // Connection::Broken), waiting up to `busy_wait` for one to be free (every one is lent), then
  // up to `open_wait` for the database to accept a new one where none is idle: opening is
  // retried with exponential backoff (50 ms doubling to 2 s). Unavailable, naming the database,
  // when either wait runs out. The two differ because they mean different things: every
  // connection lent is a busy database that answers, a connection that cannot be opened one
  // that may be down.
  absl::StatusOr<PooledConnection> Acquire(absl::Duration open_wait, absl::Duration busy_wait);
  absl::StatusOr<PooledConnection> Acquire(absl::Duration wait) { return Acquire(wait, wait); }

  // A connection outside the pool, opened as the pool's are (its URL and settings), for a
  // caller that keeps it to itself (a LISTEN). Unavailable when it cannot be opened in `wait`.
  absl::StatusOr<Connection> OpenDedicated(absl::Duration wait) const {
    return Connection::Open(url_, wait, settings_);
  }

  int max_connections() const { return max_connections_; }
  // Connections that exist now: lent, idle or being opened.
  int open_connections() const;
  // The database's URL with the password masked.
  const std::string& redacted_url() const { return redacted_url_; }

 private:
  friend class PooledConnection;
  bool Available() const ABSL_SHARED_LOCKS_REQUIRED(mutex_) {
    return !idle_.empty() || open_ < max_connections_;
  }
  void GiveBack(std::optional<Connection> connection);
  absl::StatusOr<Connection> OpenWithBackoff(absl::Time deadline);

  const std::string url_;
  const ConnectionSettings settings_;
  const std::string redacted_url_;
  const int max_connections_;
  mutable absl::Mutex mutex_;
  std::vector<Connection> idle_ ABSL_GUARDED_BY(mutex_);
  int open_ ABSL_GUARDED_BY(mutex_) = 0;
};

struct TransactionOptions {
  Isolation isolation = Isolation::kReadCommitted;
  // Runs of the body in all, the first included.
  int max_attempts = 5;
  // How long each attempt may wait to open a connection, and for one to be free while every one
  // is lent (Pool::Acquire's `open_wait` and `busy_wait`).
  absl::Duration acquire_wait = absl::Seconds(10);
  absl::Duration busy_wait = absl::Seconds(10);
  // The pause before the second attempt, doubled before each further one up to
  // `max_backoff`, each with random jitter so that transactions that collided spread apart.
  absl::Duration first_backoff = absl::Milliseconds(20);
  absl::Duration max_backoff = absl::Seconds(1);
};

// Runs `body` on a pooled connection between BEGIN and COMMIT, and runs it again (on another
// connection where that one broke) while the attempt ends in Aborted (a serialization failure
// or deadlock, from the body's statements or from COMMIT) or in Unavailable from a connection
// that broke, up to `options.max_attempts`; returns OK or the last error. Any other error from
// `body` rolls the transaction back and is returned as it is.
//
// The body must be idempotent: run again, it must do the same thing from the start, with
// nothing carried over from a failed attempt but what it reads anew. Its writes are rolled
// back when an attempt fails, but the connection can break while COMMIT is under way, and then
// the transaction may have committed although the attempt failed: the next attempt must then
// leave the database as one run would (insert with ON CONFLICT, check before changing, ...).
// State outside the database (counters, messages sent) must not be changed by the body.
//
// `doing` says what the transaction is for, in errors that are not the body's own.
absl::Status RunTransaction(Pool& pool, std::string_view doing,
                            const std::function<absl::Status(Connection&)>& body,
                            const TransactionOptions& options = {});

}  // namespace wasserwarp::service::postgres

#endif  // WASSERWARP_SERVER_STORAGE_POSTGRES_POOL_H_
