#include "http/web_view.h"

#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "http/history_page.h"
#include "http/list_page.h"
#include "http/record_pages.h"
#include "http/signin_page.h"
#include "http/web_headers.h"
#include "spdlog/spdlog.h"
#include "wasserwarp/user_text.h"

namespace wasserwarp::service::http {
namespace {

bool IsRead(const HttpRequest& request) {
  return request.method == "GET" || request.method == "HEAD";
}

HttpResponse MethodNotAllowed(const char* allowed) {
  HttpResponse response =
      MessagePage(405, "Method not allowed", "This address takes other methods.", Navigation{});
  response.headers.emplace_back("Allow", allowed);
  return response;
}

}  // namespace

absl::StatusOr<std::unique_ptr<WebView>> WebView::Start(const ServerConfig& config,
                                                        const AuthTokens* tokens,
                                                        ValidationResources& resources,
                                                        SessionStore& sessions,
                                                        const TlsFiles* tls) {
  std::unique_ptr<WebView> view(new WebView(config.http, tokens, resources, sessions));
  absl::StatusOr<std::unique_ptr<HttpListener>> listener = HttpListener::Start(
      config.http, tls != nullptr ? tls->identity_path() : std::string(),
      [raw = view.get()](const HttpRequest& request) { return raw->Handle(request); });
  if (!listener.ok()) return listener.status();
  view->listener_ = *std::move(listener);
  return view;
}

HttpResponse WebView::Handle(const HttpRequest& request) {
  const absl::Time now = absl::Now();
  HttpResponse response;
  std::string principal = "-";
  // The sign-in form is the one page anyone may see; everything else is behind a principal.
  bool private_answer = true;
  if (request.body_too_large) {
    response =
        MessagePage(413, "Request too large",
                    "This server takes small forms only (--http_max_request_bytes).", Navigation{});
  } else if (request.path == "/signin") {
    if (IsRead(request)) {
      response = SignInForm(request, auth_);
      private_answer = false;
    } else if (request.method == "POST") {
      response = SignIn(request, auth_, throttle_, now);
    } else {
      response = MethodNotAllowed("GET, HEAD, POST");
    }
  } else if (request.path == "/signout") {
    response = request.method == "POST" ? SignOut(request, auth_) : MethodNotAllowed("POST");
  } else if (!IsRead(request)) {
    response = MethodNotAllowed("GET, HEAD");
  } else if (std::optional<Navigation> caller = auth_.CallerOf(request, now)) {
    principal = caller->principal;
    response = Page(request, *caller);
  } else {
    response = WebAuth::Unauthenticated(request);
  }
  AddSecurityHeaders(response, private_answer);
  spdlog::info("http {} {} peer={} principal={} status={} sent={}B", QuotedText(request.method),
               QuotedText(request.path), request.remote_ip, QuotedText(principal), response.status,
               response.body.size());
  return response;
}

HttpResponse WebView::Page(const HttpRequest& request, const Navigation& caller) {
  if (request.path == "/") return ListPage(request, caller, resources_);
  if (request.path == "/history") return HistoryPage(request, caller, resources_);
  // sessions/{s}/validations/{v}, and its report.json.
  const std::vector<std::string> parts = absl::StrSplit(request.path, '/');
  const bool record = (parts.size() == 5 || (parts.size() == 6 && parts[5] == "report.json")) &&
                      parts[0].empty() && parts[1] == "sessions" && !parts[2].empty() &&
                      parts[3] == "validations" && !parts[4].empty();
  if (record) {
    const std::string name = absl::StrCat("sessions/", parts[2], "/validations/", parts[4]);
    return parts.size() == 5 ? ReportPage(name, caller, resources_, sessions_)
                             : ReportJson(name, caller, resources_);
  }
  return MessagePage(404, "Not found", "There is no page at this address.", caller);
}

}  // namespace wasserwarp::service::http
