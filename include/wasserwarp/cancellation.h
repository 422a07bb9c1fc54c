// A flag that long computations poll so a caller can stop them early.

#ifndef WASSERWARP_CANCELLATION_H_
#define WASSERWARP_CANCELLATION_H_

#include <atomic>

namespace wasserwarp {

class CancellationToken {
 public:
  void Cancel() { cancelled_.store(true, std::memory_order_relaxed); }
  bool cancelled() const { return cancelled_.load(std::memory_order_relaxed); }

 private:
  std::atomic<bool> cancelled_{false};
};

}  // namespace wasserwarp

#endif  // WASSERWARP_CANCELLATION_H_
