// Who a request to the web view acts for: the same principals as the gRPC side's
// (ops/auth_tokens.h), from an `Authorization: Bearer TOKEN` header, as CallPrincipal reads
// gRPC metadata, or from a browser's sign-in cookie (web_sessions.h). Without
// --auth_tokens_file every request is the anonymous principal, as every call is.

#ifndef WASSERWARP_SERVER_HTTP_WEB_AUTH_H_
#define WASSERWARP_SERVER_HTTP_WEB_AUTH_H_

#include <optional>
#include <string>

#include "absl/time/time.h"
#include "http/http_exchange.h"
#include "http/web_html.h"
#include "http/web_sessions.h"
#include "ops/auth_tokens.h"

namespace wasserwarp::service::http {

class WebAuth {
 public:
  // `tokens` null: no access control. Both must outlive this.
  WebAuth(const AuthTokens* tokens, WebSessions& sessions) : tokens_(tokens), sessions_(sessions) {}

  // The caller, unset when access control is on and the request carries no valid token and no
  // live sign-in. A bearer header wins over a cookie; one that is not valid is not overruled by
  // a cookie.
  std::optional<Navigation> CallerOf(const HttpRequest& request, absl::Time now) const;

  // The answer to a request without a caller: a page redirects to the sign-in form, which comes
  // back to it; anything else (report.json, a POST) is 401 with a Bearer challenge.
  static HttpResponse Unauthenticated(const HttpRequest& request);

  const AuthTokens* tokens() const { return tokens_; }
  WebSessions& sessions() const { return sessions_; }

 private:
  const AuthTokens* const tokens_;
  WebSessions& sessions_;
};

// `next` when it is a path of this server (one leading slash, no scheme, no host, nothing a
// header cannot carry), else "/": the sign-in form never sends a browser elsewhere.
std::string SameOriginPath(const std::string& next);

}  // namespace wasserwarp::service::http

#endif  // WASSERWARP_SERVER_HTTP_WEB_AUTH_H_
