// Browsers signed in with a token: each holds a random 256-bit session id in a cookie, and the
// id maps to its principal here, in memory, for a bounded time. The cookie never carries the
// token, so a leaked cookie dies with its session and never outlives a token's rotation.

#ifndef WASSERWARP_SERVER_HTTP_WEB_SESSIONS_H_
#define WASSERWARP_SERVER_HTTP_WEB_SESSIONS_H_

#include <cstddef>
#include <map>
#include <optional>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

namespace wasserwarp::service::http {

// The cookie's name.
inline constexpr char kSessionCookie[] = "wasserwarp_session";

class WebSessions {
 public:
  // Sessions last `ttl` from sign-in; at most `max_sessions`, the oldest going first.
  WebSessions(absl::Duration ttl, int max_sessions) : ttl_(ttl), max_sessions_(max_sessions) {}

  // A new session of `principal` at `now`: its id, 64 hex digits from the kernel's random
  // source; Unavailable when that fails.
  absl::StatusOr<std::string> SignIn(const std::string& principal, absl::Time now);
  // The principal of session `id` at `now`, unless it expired or was signed out.
  std::optional<std::string> PrincipalOf(absl::string_view id, absl::Time now);
  void SignOut(absl::string_view id);

  absl::Duration ttl() const { return ttl_; }
  size_t size() const;

 private:
  struct Session {
    std::string principal;
    absl::Time expires;
  };

  const absl::Duration ttl_;
  const size_t max_sessions_;
  mutable absl::Mutex mu_;
  std::map<std::string, Session, std::less<>> sessions_ ABSL_GUARDED_BY(mu_);
};

// The value of cookie `name` in a Cookie header; empty when absent.
std::string CookieValue(absl::string_view header, absl::string_view name);

}  // namespace wasserwarp::service::http

#endif  // WASSERWARP_SERVER_HTTP_WEB_SESSIONS_H_
