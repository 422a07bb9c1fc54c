// The web view's HTTP server: one civetweb context, its bounds set from HttpConfig, TLS with the
// server's own certificate and key (reloaded when they rotate), and every request handed to one
// HttpHandler. civetweb is
// already in the server through prometheus-cpp's /metrics endpoint; its C API throws nothing.

#ifndef WASSERWARP_SERVER_HTTP_HTTP_LISTENER_H_
#define WASSERWARP_SERVER_HTTP_HTTP_LISTENER_H_

#include <memory>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "http/http_exchange.h"
#include "http/https_identity.h"
#include "ops/server_config.h"

struct mg_context;
struct mg_connection;

namespace wasserwarp::service::http {

class HttpListener {
 public:
  // Listens on http.listen and answers each request with `handler`, on at most
  // http.max_connections threads at once; with TLS when `identity_pem` names a PEM file of the
  // key and certificate chain (HttpsIdentity), plain HTTP when it is empty.
  static absl::StatusOr<std::unique_ptr<HttpListener>> Start(const HttpConfig& http,
                                                             std::string identity_pem,
                                                             HttpHandler handler);
  // Stops listening and waits for the requests in progress.
  ~HttpListener();

  // Reads `identity_pem` again for the handshakes to come; on an error the pair in use stays.
  // OK without TLS.
  absl::Status ReloadCertificate();

  // host:port with the port actually bound.
  const std::string& address() const { return address_; }

 private:
  explicit HttpListener(HttpHandler handler, int64_t max_body_bytes)
      : handler_(std::move(handler)), max_body_bytes_(max_body_bytes) {}
  static int Serve(mg_connection* connection, void* self);

  const HttpHandler handler_;
  const int64_t max_body_bytes_;
  // Null without TLS; outlives the context, whose SSL_CTX calls it.
  std::unique_ptr<HttpsIdentity> identity_;
  mg_context* context_ = nullptr;
  std::string address_;
};

// The decoded value of `name` in an application/x-www-form-urlencoded `encoded` (a query string
// or a form body); unset when it is not there or does not decode.
std::optional<std::string> FormValue(absl::string_view encoded, absl::string_view name);

// `text` encoded for a query string's value.
std::string UrlEncode(absl::string_view text);

}  // namespace wasserwarp::service::http

#endif  // WASSERWARP_SERVER_HTTP_HTTP_LISTENER_H_
