// The web view over the validation records (--http_listen): the records list, each record's
// report and JSON, the history page, and signing in; for the same principals, through the same
// stores and rules as the RPCs (ValidationResources, SessionStore). It only translates HTTP to
// those calls and their answers back.

#ifndef WASSERWARP_SERVER_HTTP_WEB_VIEW_H_
#define WASSERWARP_SERVER_HTTP_WEB_VIEW_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "http/http_exchange.h"
#include "http/http_listener.h"
#include "http/sign_in_throttle.h"
#include "http/web_auth.h"
#include "http/web_sessions.h"
#include "ops/auth_tokens.h"
#include "ops/server_config.h"
#include "ops/tls_files.h"
#include "rpc/validation_resources.h"
#include "sessions/session_store.h"

namespace wasserwarp::service::http {

class WebView {
 public:
  // Listens on config.http.listen, with TLS when `tls` (the gRPC port's checked files; null
  // without --tls_cert) is given. `tokens` (null without access control), `resources`,
  // `sessions` and `tls` must outlive this.
  static absl::StatusOr<std::unique_ptr<WebView>> Start(const ServerConfig& config,
                                                        const AuthTokens* tokens,
                                                        ValidationResources& resources,
                                                        SessionStore& sessions,
                                                        const TlsFiles* tls);

  // After TlsFiles took a rotated certificate and key: new connections are served with them.
  absl::Status ReloadCertificate() { return listener_->ReloadCertificate(); }

  // host:port with the port bound.
  const std::string& address() const { return listener_->address(); }

  // Every request: its method, then its caller, then its page, then the headers of every answer.
  HttpResponse Handle(const HttpRequest& request);

 private:
  WebView(const HttpConfig& http, const AuthTokens* tokens, ValidationResources& resources,
          SessionStore& sessions)
      : web_sessions_(http.session_ttl, http.max_sessions),
        auth_(tokens, web_sessions_),
        resources_(resources),
        sessions_(sessions) {}

  // The page `request` asks `caller` for.
  HttpResponse Page(const HttpRequest& request, const Navigation& caller);

  WebSessions web_sessions_;
  SignInThrottle throttle_;
  WebAuth auth_;
  ValidationResources& resources_;
  SessionStore& sessions_;
  // Last, so that it stops, and its threads end, before what they use goes.
  std::unique_ptr<HttpListener> listener_;
};

}  // namespace wasserwarp::service::http

#endif  // WASSERWARP_SERVER_HTTP_WEB_VIEW_H_
