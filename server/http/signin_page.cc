#include "http/signin_page.h"

#include <optional>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "http/http_listener.h"
#include "http/web_html.h"
#include "http/web_sessions.h"

namespace wasserwarp::service::http {
namespace {

HttpResponse FormPage(int status, const std::string& next, absl::string_view error) {
  HttpResponse response;
  response.status = status;
  const std::string message =
      error.empty() ? ""
                    : absl::StrCat("<p class=\"error\" id=\"error\">", Escape(error), "</p>\n");
  response.body = ViewPage(
      "Sign in", Navigation{},
      absl::StrCat("<div class=\"signin\">\n", message,
                   "<form method=\"post\" action=\"/signin\">\n"
                   "<label for=\"token\">Access token</label>\n"
                   "<input type=\"password\" name=\"token\" id=\"token\" autocomplete=\"off\" "
                   "required autofocus>\n"
                   "<input type=\"hidden\" name=\"next\" value=\"",
                   Escape(next),
                   "\">\n<button type=\"submit\" id=\"signin\">Sign in</button>\n</form>\n"
                   "<p>The token is one of the server's --auth_tokens_file, as the CLI's "
                   "--token-file holds it. The browser keeps a session cookie, never the "
                   "token.</p>\n</div>\n"));
  return response;
}

HttpResponse SeeOther(const std::string& location) {
  HttpResponse response;
  response.status = 303;
  response.content_type = "text/plain; charset=utf-8";
  response.headers.emplace_back("Location", location);
  response.body = absl::StrCat("see ", location, "\n");
  return response;
}

// A form posted from another site's page: the session cookie is SameSite=Strict, but a sign-in
// needs none, and no other site may sign a browser in as its own principal. Browsers say where
// a request comes from in Sec-Fetch-Site; under Referrer-Policy: no-referrer their Origin is
// "null", so Origin only counts when it names one. Clients that send neither (scripts, curl)
// are not browsers on another site's page.
bool CrossOrigin(const HttpRequest& request) {
  if (!request.fetch_site.empty()) {
    return request.fetch_site != "same-origin" && request.fetch_site != "none";
  }
  if (request.origin.empty() || request.origin == "null") return false;
  const size_t scheme = request.origin.find("://");
  return scheme == std::string::npos || request.origin.substr(scheme + 3) != request.host;
}

}  // namespace

HttpResponse SignInForm(const HttpRequest& request, const WebAuth& auth) {
  const std::string next = SameOriginPath(FormValue(request.query, "next").value_or("/"));
  if (auth.tokens() == nullptr) return SeeOther(next);
  return FormPage(200, next, "");
}

HttpResponse SignIn(const HttpRequest& request, const WebAuth& auth, SignInThrottle& throttle,
                    absl::Time now) {
  const std::string next = SameOriginPath(FormValue(request.body, "next").value_or("/"));
  if (auth.tokens() == nullptr) return SeeOther(next);
  if (CrossOrigin(request)) {
    return FormPage(403, next, "the sign-in form was posted from another site");
  }
  if (!throttle.Allowed(request.remote_ip, now)) {
    HttpResponse refused =
        FormPage(429, next, "too many failed sign-ins from this address; wait a minute");
    refused.headers.emplace_back("Retry-After",
                                 absl::StrCat(absl::ToInt64Seconds(SignInThrottle::kWindow)));
    return refused;
  }
  const std::optional<std::string> token = FormValue(request.body, "token");
  const std::optional<std::string> principal =
      token.has_value() && !token->empty() ? auth.tokens()->PrincipalOf(*token) : std::nullopt;
  if (!principal.has_value()) {
    throttle.Failed(request.remote_ip, now);
    // Says nothing about how close the token came, as the gRPC side does not.
    return FormPage(401, next, "the access token is not valid");
  }
  absl::StatusOr<std::string> id = auth.sessions().SignIn(*principal, now);
  if (!id.ok()) return FormPage(503, next, id.status().message());
  HttpResponse response = SeeOther(next);
  response.headers.emplace_back(
      "Set-Cookie", absl::StrCat(kSessionCookie, "=", *id,
                                 "; HttpOnly; Secure; SameSite=Strict; Path=/; Max-Age=",
                                 absl::ToInt64Seconds(auth.sessions().ttl())));
  return response;
}

HttpResponse SignOut(const HttpRequest& request, const WebAuth& auth) {
  if (const std::string id = CookieValue(request.cookie, kSessionCookie); !id.empty()) {
    auth.sessions().SignOut(id);
  }
  HttpResponse response = SeeOther(auth.tokens() == nullptr ? "/" : "/signin");
  response.headers.emplace_back(
      "Set-Cookie",
      absl::StrCat(kSessionCookie, "=; HttpOnly; Secure; SameSite=Strict; Path=/; Max-Age=0"));
  return response;
}

}  // namespace wasserwarp::service::http
