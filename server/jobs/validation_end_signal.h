// How a stream that follows a validation learns at once that it ended on this replica, rather
// than at its next poll of the store: the worker fires the signal, which wakes the stream for
// as long as the stream lives (it detaches before it goes).

#ifndef WASSERWARP_SERVER_JOBS_VALIDATION_END_SIGNAL_H_
#define WASSERWARP_SERVER_JOBS_VALIDATION_END_SIGNAL_H_

#include <functional>
#include <utility>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"

namespace wasserwarp::service {

class ValidationEndSignal {
 public:
  explicit ValidationEndSignal(std::function<void()> wake) : wake_(std::move(wake)) {}

  // Wakes the stream, unless it has detached.
  void Fire() {
    absl::MutexLock lock(&mu_);
    if (wake_) wake_();
  }
  // After this returns, Fire wakes nobody.
  void Detach() {
    absl::MutexLock lock(&mu_);
    wake_ = nullptr;
  }
  bool detached() {
    absl::MutexLock lock(&mu_);
    return !wake_;
  }

 private:
  absl::Mutex mu_;
  std::function<void()> wake_ ABSL_GUARDED_BY(mu_);
};

}  // namespace wasserwarp::service

#endif  // WASSERWARP_SERVER_JOBS_VALIDATION_END_SIGNAL_H_
