// The server's own threads for the calls' work, a unary handler or a stream's step: work that
// reads or writes the store (SQLite, PostgreSQL) may wait on a lock or the network, and on
// gRPC's callback threads that wait would stall every other call of the process. gRPC hands the
// call here and returns at once; a bounded number of calls wait (--max_queued_calls), the next
// is refused.

#ifndef WASSERWARP_SERVER_RPC_CALL_POOL_H_
#define WASSERWARP_SERVER_RPC_CALL_POOL_H_

#include <deque>
#include <functional>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"

namespace wasserwarp::service {

class CallPool {
 public:
  // `threads` >= 1 run the work; at most `max_queued` >= 1 pieces wait for one.
  CallPool(int threads, int max_queued);
  // Runs what is queued, then joins the threads.
  ~CallPool();

  CallPool(const CallPool&) = delete;
  CallPool& operator=(const CallPool&) = delete;

  // Queues `work`; ResourceExhausted naming --max_queued_calls when the queue is full, and
  // `work` is then not run.
  absl::Status Post(std::function<void()> work);
  // Queues the next step of a call already admitted (a stream's next read of the store),
  // however many wait: each such call has at most one step queued, so they are bounded by the
  // streams the server admits (--max_watch_streams, the job queue), and a burst of unary calls
  // must not end a stream that was accepted.
  void PostNextStep(std::function<void()> work);

 private:
  void Loop();

  const size_t max_queued_;
  absl::Mutex mu_;
  std::deque<std::function<void()>> queue_ ABSL_GUARDED_BY(mu_);
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  std::vector<std::thread> threads_;
};

}  // namespace wasserwarp::service

#endif  // WASSERWARP_SERVER_RPC_CALL_POOL_H_
