#include "http/sign_in_throttle.h"

#include <iterator>
#include <string>

namespace wasserwarp::service::http {

bool SignInThrottle::Allowed(absl::string_view address, absl::Time now) {
  absl::MutexLock lock(&mu_);
  const auto it = failures_.find(address);
  if (it == failures_.end()) {
    Forget(now);
    return failures_.size() < kMaxAddresses;
  }
  if (now - it->second.since >= kWindow) {
    failures_.erase(it);
    return true;
  }
  return it->second.count < kMaxFailures;
}

void SignInThrottle::Forget(absl::Time now) {
  // Only a full map is swept, so that a request costs a lookup.
  if (failures_.size() < kMaxAddresses) return;
  for (auto it = failures_.begin(); it != failures_.end();) {
    it = now - it->second.since >= kWindow ? failures_.erase(it) : std::next(it);
  }
}

void SignInThrottle::Failed(absl::string_view address, absl::Time now) {
  absl::MutexLock lock(&mu_);
  Forget(now);
  auto it = failures_.find(address);
  if (it == failures_.end()) {
    if (failures_.size() >= kMaxAddresses) return;
    it = failures_.emplace(std::string(address), Failures{.count = 0, .since = now}).first;
  } else if (now - it->second.since >= kWindow) {
    it->second = Failures{.count = 0, .since = now};
  }
  ++it->second.count;
}

}  // namespace wasserwarp::service::http
