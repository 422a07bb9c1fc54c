// Progress reports from many worker threads, made one at a time and at most one per interval.
// A worker that finds a report under way, or the interval not yet over, goes on with its work
// rather than wait: reporting must never hold up the computation it reports on.

#ifndef WASSERWARP_SRC_COMMON_PROGRESS_THROTTLE_H_
#define WASSERWARP_SRC_COMMON_PROGRESS_THROTTLE_H_

#include <algorithm>
#include <chrono>
#include <mutex>

#include "absl/functional/function_ref.h"

namespace wasserwarp {

class ProgressThrottle {
 public:
  // `interval_ms` below 0 counts as 0: every report that finds none under way is made.
  explicit ProgressThrottle(int interval_ms)
      : interval_(std::chrono::milliseconds(std::max(0, interval_ms))),
        last_report_(std::chrono::steady_clock::now()) {}

  // Calls `report` unless a report is under way or the last one is less than the interval ago.
  void MaybeReport(absl::FunctionRef<void()> report) {
    std::unique_lock lock(mutex_, std::try_to_lock);
    if (!lock.owns_lock()) return;
    const auto now = std::chrono::steady_clock::now();
    if (now - last_report_ < interval_) return;
    last_report_ = now;
    report();
  }

  // Calls `report` whatever the interval, once a report under way is done: the final one.
  void ReportNow(absl::FunctionRef<void()> report) {
    std::lock_guard lock(mutex_);
    report();
  }

 private:
  const std::chrono::steady_clock::duration interval_;
  std::mutex mutex_;
  std::chrono::steady_clock::time_point last_report_;
};

}  // namespace wasserwarp

#endif  // WASSERWARP_SRC_COMMON_PROGRESS_THROTTLE_H_
