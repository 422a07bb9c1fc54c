#include "storage/postgres_pool.h"

#include <algorithm>
#include <functional>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "storage/postgres_secrets.h"

namespace wasserwarp::service::postgres {
namespace {

absl::string_view View(std::string_view s) { return absl::string_view(s.data(), s.size()); }

// `base` scaled by a random factor in [0.5, 1.5).
absl::Duration Jittered(absl::Duration base) {
  thread_local std::minstd_rand random(std::random_device{}());
  return base * std::uniform_real_distribution<double>(0.5, 1.5)(random);
}

absl::Status Attempt(Connection& connection, Isolation isolation, std::string_view doing,
                     const std::function<absl::Status(Connection&)>& body) {
  Transaction transaction(connection);
  if (absl::Status status = transaction.Begin(isolation); !status.ok()) {
    return absl::Status(status.code(), absl::StrCat(View(doing), ": ", status.message()));
  }
  if (absl::Status status = body(connection); !status.ok()) return status;
  if (absl::Status status = transaction.Commit(); !status.ok()) {
    return absl::Status(status.code(), absl::StrCat(View(doing), ": ", status.message()));
  }
  return absl::OkStatus();
}

}  // namespace

PooledConnection::PooledConnection(PooledConnection&& other) noexcept
    : pool_(std::exchange(other.pool_, nullptr)), connection_(std::move(other.connection_)) {
  other.connection_.reset();
}

PooledConnection& PooledConnection::operator=(PooledConnection&& other) noexcept {
  if (this != &other) {
    GiveBack();
    pool_ = std::exchange(other.pool_, nullptr);
    connection_ = std::move(other.connection_);
    other.connection_.reset();
  }
  return *this;
}

PooledConnection::~PooledConnection() { GiveBack(); }

void PooledConnection::Discard() {
  connection_.reset();
  GiveBack();
}

void PooledConnection::GiveBack() {
  if (pool_ == nullptr) return;
  // The next borrower expects a connection outside any transaction.
  if (connection_ && connection_->InTransaction() && !connection_->Rollback().ok())
    connection_.reset();
  if (connection_ && connection_->Broken()) connection_.reset();
  std::exchange(pool_, nullptr)->GiveBack(std::move(connection_));
  connection_.reset();
}

Pool::Pool(std::string url, int max_connections, ConnectionSettings settings)
    : url_(std::move(url)),
      settings_(std::move(settings)),
      redacted_url_(RedactedUrl(url_)),
      max_connections_(std::max(1, max_connections)) {}

Pool::~Pool() = default;

int Pool::open_connections() const {
  absl::MutexLock lock(&mutex_);
  return open_;
}

void Pool::GiveBack(std::optional<Connection> connection) {
  absl::MutexLock lock(&mutex_);
  if (connection) {
    idle_.push_back(std::move(*connection));
  } else {
    --open_;
  }
}

absl::StatusOr<PooledConnection> Pool::Acquire(absl::Duration open_wait, absl::Duration busy_wait) {
  std::optional<Connection> idle;
  {
    absl::MutexLock lock(&mutex_);
    // WithTimeout rather than WithDeadline: the TSan build's view of Abseil
    // (tests/sanitizers) knows only that one.
    if (!mutex_.AwaitWithTimeout(absl::Condition(this, &Pool::Available), busy_wait)) {
      return absl::UnavailableError(absl::StrCat("PostgreSQL ", redacted_url_, ": all ",
                                                 max_connections_, " connections in use for ",
                                                 absl::FormatDuration(busy_wait)));
    }
    if (idle_.empty()) {
      ++open_;
    } else {
      idle.emplace(std::move(idle_.back()));
      idle_.pop_back();
    }
  }
  if (idle && !idle->Broken()) return PooledConnection(this, std::move(*idle));
  // A broken one gives its place to a new one; closed outside the lock, which it never held.
  idle.reset();
  absl::StatusOr<Connection> opened = OpenWithBackoff(absl::Now() + open_wait);
  if (!opened.ok()) {
    GiveBack(std::nullopt);
    return opened.status();
  }
  return PooledConnection(this, *std::move(opened));
}

absl::StatusOr<Connection> Pool::OpenWithBackoff(absl::Time deadline) {
  const absl::Time start = absl::Now();
  absl::Duration delay = absl::Milliseconds(50);
  int attempts = 0;
  while (true) {
    ++attempts;
    absl::StatusOr<Connection> connection =
        Connection::Open(url_, deadline - absl::Now(), settings_);
    if (connection.ok()) return connection;
    const absl::Duration remaining = deadline - absl::Now();
    if (remaining <= absl::ZeroDuration()) {
      // Connection::Open's message names the redacted URL and says what libpq saw.
      return absl::UnavailableError(absl::StrCat(connection.status().message(), " (", attempts,
                                                 " attempts in ",
                                                 absl::FormatDuration(absl::Now() - start), ")"));
    }
    absl::SleepFor(std::min(delay, remaining));
    delay = std::min(delay * 2, absl::Seconds(2));
  }
}

absl::Status RunTransaction(Pool& pool, std::string_view doing,
                            const std::function<absl::Status(Connection&)>& body,
                            const TransactionOptions& options) {
  const int max_attempts = std::max(1, options.max_attempts);
  absl::Duration backoff = options.first_backoff;
  absl::Status last;
  for (int attempt = 1; attempt <= max_attempts; ++attempt) {
    if (attempt > 1) {
      absl::SleepFor(Jittered(backoff));
      backoff = std::min(backoff * 2, options.max_backoff);
    }
    // Acquire has waited and retried already; another attempt would only wait again.
    absl::StatusOr<PooledConnection> connection =
        pool.Acquire(options.acquire_wait, options.busy_wait);
    if (!connection.ok()) {
      return absl::Status(connection.status().code(),
                          absl::StrCat(View(doing), ": ", connection.status().message()));
    }
    last = Attempt(**connection, options.isolation, doing, body);
    if (last.ok()) return last;
    const bool broke = (*connection)->Broken();
    if (broke) connection->Discard();
    if (!absl::IsAborted(last) && !(absl::IsUnavailable(last) && broke)) return last;
  }
  return absl::Status(last.code(), absl::StrCat(View(doing), ": gave up after ", max_attempts,
                                                " attempts: ", last.message()));
}

}  // namespace wasserwarp::service::postgres
