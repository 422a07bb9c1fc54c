// One connection per replica that LISTENs on a PostgreSQL channel and hands each notification
// to the replica, which fans it out in-process (to the streams that wait for a validation's
// end), instead of each stream polling the database. The same connection tells whether the
// database can be reached, checked every `check_interval` while no notification comes, for the
// health service.

#ifndef WASSERWARP_SERVER_STORAGE_POSTGRES_LISTENER_H_
#define WASSERWARP_SERVER_STORAGE_POSTGRES_LISTENER_H_

#include <functional>
#include <string>
#include <string_view>
#include <thread>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "storage/postgres.h"
#include "storage/postgres_pool.h"

namespace wasserwarp::service::postgres {

class Listener {
 public:
  struct Callbacks {
    // A notification's payload.
    std::function<void(std::string_view payload)> notified;
    // Notifications may have been lost: the connection was (re)opened after a break.
    std::function<void()> missed;
    // The database became reachable (OK) or not (why); called on each change only. It starts
    // as reachable.
    std::function<void(const absl::Status& status)> reachability;
  };

  // Starts the thread that listens on a connection opened as `pool`'s are (not one of them);
  // `channel` is an identifier of letters, digits and '_'. The callbacks run on that thread.
  // `pool` must outlive this.
  Listener(const Pool& pool, std::string channel, absl::Duration check_interval,
           Callbacks callbacks);
  Listener(const Listener&) = delete;
  Listener& operator=(const Listener&) = delete;
  // Stops the thread; no callback runs after this returns.
  ~Listener();

 private:
  void Run();
  // Sleeps up to `duration`; false once stopping.
  bool Wait(absl::Duration duration);
  void Report(const absl::Status& status);

  const Pool& pool_;
  const std::string channel_;
  const absl::Duration check_interval_;
  const Callbacks callbacks_;
  // Written once to stop the thread, which polls it beside the connection's socket.
  int stop_fd_ = -1;
  bool reachable_ = true;  // the thread's own
  std::thread thread_;
};

}  // namespace wasserwarp::service::postgres

#endif  // WASSERWARP_SERVER_STORAGE_POSTGRES_LISTENER_H_
