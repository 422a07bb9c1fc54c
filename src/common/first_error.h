// The error of a parallel loop: that of the lowest failing index, so that the error reported
// does not depend on which thread fails first.

#ifndef WASSERWARP_SRC_COMMON_FIRST_ERROR_H_
#define WASSERWARP_SRC_COMMON_FIRST_ERROR_H_

#include <atomic>
#include <cstddef>
#include <limits>
#include <mutex>
#include <utility>

#include "absl/status/status.h"

namespace wasserwarp {

class FirstError {
 public:
  // Whether index `k` may be left undone: a lower one has failed already.
  bool Skips(size_t k) const { return k > index_.load(std::memory_order_relaxed); }

  void Record(size_t k, absl::Status status) {
    std::lock_guard lock(mutex_);
    if (k < index_.load(std::memory_order_relaxed)) {
      index_.store(k, std::memory_order_relaxed);
      status_ = std::move(status);
    }
  }

  // OK when nothing failed.
  absl::Status status() const { return status_; }

 private:
  std::atomic<size_t> index_{std::numeric_limits<size_t>::max()};
  std::mutex mutex_;
  absl::Status status_;
};

}  // namespace wasserwarp

#endif  // WASSERWARP_SRC_COMMON_FIRST_ERROR_H_
