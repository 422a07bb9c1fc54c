#include "http/web_auth.h"

#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "http/http_listener.h"
#include "ops/call_principal.h"

namespace wasserwarp::service::http {

std::optional<Navigation> WebAuth::CallerOf(const HttpRequest& request, absl::Time now) const {
  if (tokens_ == nullptr) return Navigation{.principal = "", .signed_in = false};
  if (!request.authorization.empty()) {
    absl::StatusOr<std::string> principal =
        PrincipalOfAuthorization(request.authorization, *tokens_);
    if (!principal.ok()) return std::nullopt;
    return Navigation{.principal = *std::move(principal), .signed_in = false};
  }
  const std::string id = CookieValue(request.cookie, kSessionCookie);
  if (id.empty()) return std::nullopt;
  std::optional<std::string> principal = sessions_.PrincipalOf(id, now);
  if (!principal.has_value()) return std::nullopt;
  // A principal whose tokens a reload removed loses its browsers too.
  if (!tokens_->HoldsPrincipal(*principal)) {
    sessions_.SignOut(id);
    return std::nullopt;
  }
  return Navigation{.principal = *std::move(principal), .signed_in = true};
}

HttpResponse WebAuth::Unauthenticated(const HttpRequest& request) {
  HttpResponse response;
  const bool page = (request.method == "GET" || request.method == "HEAD") &&
                    !absl::EndsWith(request.path, ".json");
  if (page) {
    const std::string back =
        request.query.empty() ? request.path : absl::StrCat(request.path, "?", request.query);
    response.status = 303;
    response.headers.emplace_back("Location", absl::StrCat("/signin?next=", UrlEncode(back)));
    response.body = "sign in first\n";
    response.content_type = "text/plain; charset=utf-8";
    return response;
  }
  response.status = 401;
  response.headers.emplace_back("WWW-Authenticate", "Bearer realm=\"wasserwarp\"");
  response.content_type = "text/plain; charset=utf-8";
  response.body =
      "this server requires an access token: send \"Authorization: Bearer <token>\" or sign in "
      "at /signin\n";
  return response;
}

std::string SameOriginPath(const std::string& next) {
  if (!absl::StartsWith(next, "/") || absl::StartsWith(next, "//") ||
      absl::StartsWith(next, "/\\")) {
    return "/";
  }
  for (const char c : next) {
    if (!absl::ascii_isgraph(static_cast<unsigned char>(c)) || c == '\\') return "/";
  }
  return next;
}

}  // namespace wasserwarp::service::http
