// A thread that runs a task every interval until it is destroyed: the server's poll of its
// credential files.

#ifndef WASSERWARP_SERVER_OPS_PERIODIC_THREAD_H_
#define WASSERWARP_SERVER_OPS_PERIODIC_THREAD_H_

#include <functional>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

namespace wasserwarp::service {

class PeriodicThread {
 public:
  // Runs `task` every `interval`, the first time one interval from now.
  PeriodicThread(absl::Duration interval, std::function<void()> task);
  // Waits for a run in progress to end; no run starts after.
  ~PeriodicThread();

  PeriodicThread(const PeriodicThread&) = delete;
  PeriodicThread& operator=(const PeriodicThread&) = delete;

 private:
  void Loop();

  const absl::Duration interval_;
  const std::function<void()> task_;
  absl::Mutex mu_;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  std::thread thread_;
};

}  // namespace wasserwarp::service

#endif  // WASSERWARP_SERVER_OPS_PERIODIC_THREAD_H_
