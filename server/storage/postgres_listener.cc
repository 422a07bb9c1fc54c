#include "storage/postgres_listener.h"

#include <libpq-fe.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"

namespace wasserwarp::service::postgres {
namespace {

constexpr absl::Duration kConnectTimeout = absl::Seconds(5);

}  // namespace

Listener::Listener(const Pool& pool, std::string channel, absl::Duration check_interval,
                   Callbacks callbacks)
    : pool_(pool),
      channel_(std::move(channel)),
      check_interval_(check_interval),
      callbacks_(std::move(callbacks)),
      stop_fd_(eventfd(0, EFD_CLOEXEC)) {
  thread_ = std::thread([this] { Run(); });
}

Listener::~Listener() {
  const uint64_t one = 1;
  (void)!write(stop_fd_, &one, sizeof(one));
  thread_.join();
  close(stop_fd_);
}

bool Listener::Wait(absl::Duration duration) {
  pollfd stop = {stop_fd_, POLLIN, 0};
  const int ms = static_cast<int>(std::max<int64_t>(0, absl::ToInt64Milliseconds(duration)));
  return poll(&stop, 1, ms) == 0;
}

void Listener::Report(const absl::Status& status) {
  if (status.ok() == reachable_) return;
  reachable_ = status.ok();
  if (callbacks_.reachability) callbacks_.reachability(status);
}

void Listener::Run() {
  std::optional<Connection> connection;
  absl::Time next_check = absl::Now();
  while (true) {
    if (!connection.has_value()) {
      absl::StatusOr<Connection> opened = pool_.OpenDedicated(kConnectTimeout);
      absl::Status status = opened.status();
      if (opened.ok()) {
        status = opened->Exec(absl::StrCat("LISTEN ", channel_), "listening").status();
      }
      if (!status.ok()) {
        Report(status);
        if (!Wait(check_interval_)) return;
        continue;
      }
      connection = *std::move(opened);
      Report(absl::OkStatus());
      if (callbacks_.missed) callbacks_.missed();
      next_check = absl::Now() + check_interval_;
    }
    PGconn* conn = connection->raw();
    pollfd fds[2] = {{PQsocket(conn), POLLIN, 0}, {stop_fd_, POLLIN, 0}};
    const int ms =
        static_cast<int>(std::max<int64_t>(0, absl::ToInt64Milliseconds(next_check - absl::Now())));
    if (poll(fds, 2, ms) < 0) continue;  // EINTR
    if (fds[1].revents != 0) return;
    absl::Status status;
    if (fds[0].revents != 0) {
      if (!PQconsumeInput(conn) || PQstatus(conn) != CONNECTION_OK) {
        status = absl::UnavailableError(absl::StrCat("PostgreSQL ", connection->redacted_url(),
                                                     ": the listening connection broke"));
      }
    } else if (absl::Now() >= next_check) {
      status = connection->Exec("SELECT 1", "checking the database").status();
      next_check = absl::Now() + check_interval_;
    }
    // Notifications come with any read, the check's included.
    while (PGnotify* notify = PQnotifies(conn)) {
      if (callbacks_.notified) callbacks_.notified(notify->extra);
      PQfreemem(notify);
    }
    if (!status.ok()) {
      connection.reset();
      Report(status);
    }
  }
}

}  // namespace wasserwarp::service::postgres
