// A bound on guessing tokens at the sign-in form: an address that failed to sign in
// kMaxFailures times is refused until its window of kWindow passes. The addresses remembered are
// bounded too; when they are all held by recent failures, new addresses are refused (the
// form fails closed) rather than anyone's count forgotten.

#ifndef WASSERWARP_SERVER_HTTP_SIGN_IN_THROTTLE_H_
#define WASSERWARP_SERVER_HTTP_SIGN_IN_THROTTLE_H_

#include <map>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

namespace wasserwarp::service::http {

class SignInThrottle {
 public:
  static constexpr int kMaxFailures = 5;
  static constexpr absl::Duration kWindow = absl::Minutes(1);
  static constexpr size_t kMaxAddresses = 10000;

  // Whether `address` may try to sign in at `now`.
  bool Allowed(absl::string_view address, absl::Time now);
  // A failed attempt from `address`.
  void Failed(absl::string_view address, absl::Time now);

 private:
  struct Failures {
    int count = 0;
    absl::Time since;
  };

  // Drops the addresses whose window passed, when every place is held.
  void Forget(absl::Time now) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  absl::Mutex mu_;
  std::map<std::string, Failures, std::less<>> failures_ ABSL_GUARDED_BY(mu_);
};

}  // namespace wasserwarp::service::http

#endif  // WASSERWARP_SERVER_HTTP_SIGN_IN_THROTTLE_H_
