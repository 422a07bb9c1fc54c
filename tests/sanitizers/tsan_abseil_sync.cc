// ThreadSanitizer sees synchronization only in instrumented code and in the
// libc calls it intercepts. Debian's Abseil is neither: absl::Mutex and
// absl::Notification work with futexes and atomics inside
// libabsl_synchronization.so, so under TSan every member guarded by an
// absl::Mutex would look racy. In a TSan build every program links this
// library, and the linker (--wrap, tests/sanitizers/CMakeLists.txt) sends our
// calls to these entry points through the wrappers below, which tell TSan
// what the real functions do: a release before a mutex is given up or a
// notification sent, an acquire after a mutex is taken or a notification
// received.
//
// absl::Condition functions run inside these calls, on whichever thread
// holds the mutex then, which TSan cannot know; their reads are left
// unchecked. Conditions only read what the mutex guards, and every write to
// that is still checked.

#include <sanitizer/tsan_interface.h>

#include <type_traits>

#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "absl/time/time.h"

// The mangled names below are those of Debian 12's Abseil, whose inline
// namespace is debian3; another Abseil fails to compile here.
static_assert(std::is_same_v<absl::Mutex, absl::debian3::Mutex>);

extern "C" {

// TSan's dynamic annotations, exported by its runtime.
void AnnotateIgnoreReadsBegin(const char* file, int line);
void AnnotateIgnoreReadsEnd(const char* file, int line);

void __real__ZN4absl7debian35Mutex4LockEv(absl::Mutex* mu);
void __real__ZN4absl7debian35Mutex6UnlockEv(absl::Mutex* mu);
void __real__ZN4absl7debian35Mutex5AwaitERKNS0_9ConditionE(absl::Mutex* mu,
                                                           const absl::Condition& condition);
bool __real__ZN4absl7debian35Mutex16AwaitWithTimeoutERKNS0_9ConditionENS0_8DurationE(
    absl::Mutex* mu, const absl::Condition& condition, absl::Duration timeout);
void __real__ZN4absl7debian312Notification6NotifyEv(absl::Notification* notification);
void __real__ZNK4absl7debian312Notification19WaitForNotificationEv(
    const absl::Notification* notification);
bool __real__ZNK4absl7debian312Notification30WaitForNotificationWithTimeoutENS0_8DurationE(
    const absl::Notification* notification, absl::Duration timeout);

}  // extern "C"

namespace {

// Around every real call: the only instrumented code it can run is a
// condition.
class IgnoreConditionReads {
 public:
  IgnoreConditionReads() { AnnotateIgnoreReadsBegin(__FILE__, __LINE__); }
  ~IgnoreConditionReads() { AnnotateIgnoreReadsEnd(__FILE__, __LINE__); }
};

}  // namespace

extern "C" {

void __wrap__ZN4absl7debian35Mutex4LockEv(absl::Mutex* mu) {
  {
    IgnoreConditionReads ignore;
    __real__ZN4absl7debian35Mutex4LockEv(mu);
  }
  __tsan_acquire(mu);
}

void __wrap__ZN4absl7debian35Mutex6UnlockEv(absl::Mutex* mu) {
  __tsan_release(mu);
  IgnoreConditionReads ignore;
  __real__ZN4absl7debian35Mutex6UnlockEv(mu);
}

void __wrap__ZN4absl7debian35Mutex5AwaitERKNS0_9ConditionE(absl::Mutex* mu,
                                                           const absl::Condition& condition) {
  __tsan_release(mu);
  {
    IgnoreConditionReads ignore;
    __real__ZN4absl7debian35Mutex5AwaitERKNS0_9ConditionE(mu, condition);
  }
  __tsan_acquire(mu);
}

bool __wrap__ZN4absl7debian35Mutex16AwaitWithTimeoutERKNS0_9ConditionENS0_8DurationE(
    absl::Mutex* mu, const absl::Condition& condition, absl::Duration timeout) {
  __tsan_release(mu);
  bool met = false;
  {
    IgnoreConditionReads ignore;
    met = __real__ZN4absl7debian35Mutex16AwaitWithTimeoutERKNS0_9ConditionENS0_8DurationE(
        mu, condition, timeout);
  }
  // Held again either way.
  __tsan_acquire(mu);
  return met;
}

void __wrap__ZN4absl7debian312Notification6NotifyEv(absl::Notification* notification) {
  __tsan_release(notification);
  __real__ZN4absl7debian312Notification6NotifyEv(notification);
}

void __wrap__ZNK4absl7debian312Notification19WaitForNotificationEv(
    const absl::Notification* notification) {
  __real__ZNK4absl7debian312Notification19WaitForNotificationEv(notification);
  __tsan_acquire(const_cast<absl::Notification*>(notification));
}

bool __wrap__ZNK4absl7debian312Notification30WaitForNotificationWithTimeoutENS0_8DurationE(
    const absl::Notification* notification, absl::Duration timeout) {
  const bool notified =
      __real__ZNK4absl7debian312Notification30WaitForNotificationWithTimeoutENS0_8DurationE(
          notification, timeout);
  if (notified) __tsan_acquire(const_cast<absl::Notification*>(notification));
  return notified;
}

}  // extern "C"
