#include "http/web_sessions.h"

#include <sys/random.h>

#include <algorithm>
#include <array>
#include <string>

#include "absl/strings/escaping.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace wasserwarp::service::http {

absl::StatusOr<std::string> WebSessions::SignIn(const std::string& principal, absl::Time now) {
  std::array<char, 32> bytes;
  if (getrandom(bytes.data(), bytes.size(), 0) != static_cast<ssize_t>(bytes.size())) {
    return absl::UnavailableError("no random bytes for a session id");
  }
  std::string id = absl::BytesToHexString(absl::string_view(bytes.data(), bytes.size()));
  absl::MutexLock lock(&mu_);
  // Expired ones first; then, when every place is held, the one that expires soonest, which is
  // the oldest sign-in.
  for (auto it = sessions_.begin(); it != sessions_.end();) {
    it = it->second.expires <= now ? sessions_.erase(it) : std::next(it);
  }
  if (sessions_.size() >= max_sessions_) {
    sessions_.erase(std::min_element(
        sessions_.begin(), sessions_.end(),
        [](const auto& a, const auto& b) { return a.second.expires < b.second.expires; }));
  }
  sessions_[id] = Session{.principal = principal, .expires = now + ttl_};
  return id;
}

std::optional<std::string> WebSessions::PrincipalOf(absl::string_view id, absl::Time now) {
  absl::MutexLock lock(&mu_);
  const auto it = sessions_.find(id);
  if (it == sessions_.end()) return std::nullopt;
  if (it->second.expires <= now) {
    sessions_.erase(it);
    return std::nullopt;
  }
  return it->second.principal;
}

void WebSessions::SignOut(absl::string_view id) {
  absl::MutexLock lock(&mu_);
  if (const auto it = sessions_.find(id); it != sessions_.end()) sessions_.erase(it);
}

size_t WebSessions::size() const {
  absl::MutexLock lock(&mu_);
  return sessions_.size();
}

std::string CookieValue(absl::string_view header, absl::string_view name) {
  for (absl::string_view pair : absl::StrSplit(header, ';')) {
    pair = absl::StripAsciiWhitespace(pair);
    if (absl::ConsumePrefix(&pair, name) && absl::ConsumePrefix(&pair, "=")) {
      return std::string(pair);
    }
  }
  return "";
}

}  // namespace wasserwarp::service::http
