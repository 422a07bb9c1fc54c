// The sweep of idle sessions that the server's maintenance thread runs once
// per --sweep_interval: lookups already treat an expired session as gone, the
// sweep frees what such sessions hold and brings the database up to date.

#ifndef WASSERWARP_SERVER_SESSIONS_SESSION_SWEEPER_H_
#define WASSERWARP_SERVER_SESSIONS_SESSION_SWEEPER_H_

#include <string>
#include <vector>

#include "absl/time/time.h"
#include "sessions/session_store.h"

namespace wasserwarp::service {

class SessionSweeper {
 public:
  // `store` must outlive the sweeper.
  explicit SessionSweeper(SessionStore& store);

  // Drops the sessions idle past their TTL at `now` and logs each, then
  // saves what changed (SessionStore::Save); returns their ids.
  std::vector<std::string> Sweep(absl::Time now);
  // Saves what changed since the last sweep, so that a restart counts idle
  // time from the last uses (at shutdown). Errors are logged.
  void Save();

 private:
  SessionStore& store_;
};

}  // namespace wasserwarp::service

#endif  // WASSERWARP_SERVER_SESSIONS_SESSION_SWEEPER_H_
