#include "http/http_listener.h"

#include <civetweb.h>

#include <mutex>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "http/civetweb_openssl3.h"
#include "http/https_identity.h"
#include "spdlog/spdlog.h"

namespace wasserwarp::service::http {
namespace {

// An idle kept-alive connection holds one of the few threads, so it is let go soon.
constexpr int kKeepAliveMilliseconds = 2000;
// Connections that wait for a thread.
constexpr int kListenBacklog = 64;

std::string Header(mg_connection* connection, const char* name) {
  const char* value = mg_get_header(connection, name);
  return value != nullptr ? value : "";
}

// civetweb's log lines (a refused TLS handshake, a request too large) go to the server's log.
int LogMessage(const mg_connection*, const char* message) {
  spdlog::debug("http: {}", message);
  return 1;
}

}  // namespace

absl::StatusOr<std::unique_ptr<HttpListener>> HttpListener::Start(const HttpConfig& http,
                                                                  std::string identity_pem,
                                                                  HttpHandler handler) {
  if (http.listen.starts_with('[')) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--http_listen: ", http.listen,
        " is an IPv6 address; civetweb as Debian builds it takes IPv4 addresses and host names "
        "only"));
  }
  const bool https = !identity_pem.empty();
  if (https && !PeerCertificateLookupWorks()) {
    return absl::FailedPreconditionError(
        "--http_listen with --tls_cert: civetweb cannot find OpenSSL's "
        "SSL_get_peer_certificate, and would crash at the first HTTPS request");
  }
  static std::once_flag library;
  std::call_once(library, [] { mg_init_library(MG_FEATURES_TLS); });
  std::unique_ptr<HttpListener> listener(
      new HttpListener(std::move(handler), http.max_request_bytes));
  if (https) {
    listener->identity_ = std::make_unique<HttpsIdentity>(std::move(identity_pem));
    if (absl::Status loaded = listener->identity_->Load(); !loaded.ok()) return loaded;
  }
  const std::string ports = absl::StrCat(http.listen, https ? "s" : "");
  const std::string threads = absl::StrCat(http.max_connections);
  const std::string timeout = absl::StrCat(absl::ToInt64Milliseconds(http.request_timeout));
  const std::string keep_alive = absl::StrCat(kKeepAliveMilliseconds);
  const std::string backlog = absl::StrCat(kListenBacklog);
  const std::string request_size = absl::StrCat(http.max_request_bytes);
  std::vector<const char*> options = {"listening_ports",
                                      ports.c_str(),
                                      "num_threads",
                                      threads.c_str(),
                                      "request_timeout_ms",
                                      timeout.c_str(),
                                      "enable_keep_alive",
                                      "yes",
                                      "keep_alive_timeout_ms",
                                      keep_alive.c_str(),
                                      "listen_backlog",
                                      backlog.c_str(),
                                      "max_request_size",
                                      request_size.c_str(),
                                      "enable_directory_listing",
                                      "no"};
  if (https) {
    options.insert(options.end(), {"ssl_certificate", listener->identity_->pem_path().c_str(),
                                   "ssl_protocol_version", "4"});
  }
  options.push_back(nullptr);

  mg_callbacks callbacks = {};
  callbacks.log_message = &LogMessage;
  // civetweb still loads ssl_certificate into its SSL_CTX (the 0); each handshake then takes the
  // pair loaded last (https_identity.h).
  callbacks.init_ssl = [](void* ssl_ctx, void* self) {
    static_cast<HttpListener*>(self)->identity_->ServeFrom(static_cast<SSL_CTX*>(ssl_ctx));
    return 0;
  };
  mg_init_data init = {.callbacks = &callbacks,
                       .user_data = listener.get(),
                       .configuration_options = options.data()};
  char error_text[256] = {};
  unsigned error_code = 0;
  mg_error_data error = {
      .code = &error_code, .text = error_text, .text_buffer_size = sizeof error_text};
  listener->context_ = mg_start2(&init, &error);
  if (listener->context_ == nullptr) {
    return absl::UnavailableError(
        absl::StrCat("--http_listen: cannot listen on ", http.listen, ": ", error_text));
  }
  mg_set_request_handler(listener->context_, "/", &HttpListener::Serve, listener.get());
  mg_server_port bound[4] = {};
  const int count = mg_get_server_ports(listener->context_, 4, bound);
  if (count < 1) {
    return absl::UnavailableError(absl::StrCat("--http_listen: cannot listen on ", http.listen));
  }
  listener->address_ =
      absl::StrCat(http.listen.substr(0, http.listen.rfind(':')), ":", bound[0].port);
  return listener;
}

HttpListener::~HttpListener() {
  if (context_ != nullptr) mg_stop(context_);
}

absl::Status HttpListener::ReloadCertificate() {
  return identity_ != nullptr ? identity_->Load() : absl::OkStatus();
}

int HttpListener::Serve(mg_connection* connection, void* self) {
  const HttpListener& listener = *static_cast<const HttpListener*>(self);
  const mg_request_info* info = mg_get_request_info(connection);
  HttpRequest request;
  request.method = info->request_method != nullptr ? info->request_method : "";
  request.path = info->local_uri != nullptr ? info->local_uri : "";
  request.query = info->query_string != nullptr ? info->query_string : "";
  request.remote_ip = info->remote_addr;
  request.authorization = Header(connection, "Authorization");
  request.cookie = Header(connection, "Cookie");
  request.content_type = Header(connection, "Content-Type");
  request.host = Header(connection, "Host");
  request.origin = Header(connection, "Origin");
  request.fetch_site = Header(connection, "Sec-Fetch-Site");
  request.body_too_large = info->content_length > listener.max_body_bytes_;
  if (info->content_length > 0 && !request.body_too_large) {
    request.body.resize(static_cast<size_t>(info->content_length));
    size_t got = 0;
    while (got < request.body.size()) {
      const int n = mg_read(connection, request.body.data() + got, request.body.size() - got);
      if (n <= 0) break;
      got += static_cast<size_t>(n);
    }
    request.body.resize(got);
  }
  const HttpResponse response = listener.handler_(request);
  mg_response_header_start(connection, response.status);
  mg_response_header_add(connection, "Content-Type", response.content_type.c_str(), -1);
  for (const auto& [name, value] : response.headers) {
    mg_response_header_add(connection, name.c_str(), value.c_str(), -1);
  }
  mg_response_header_add(connection, "Content-Length", absl::StrCat(response.body.size()).c_str(),
                         -1);
  mg_response_header_send(connection);
  if (request.method != "HEAD") mg_write(connection, response.body.data(), response.body.size());
  return response.status;
}

std::optional<std::string> FormValue(absl::string_view encoded, absl::string_view name) {
  // A decoded value is never longer than its encoding.
  std::string value(encoded.size() + 1, '\0');
  const std::string data(encoded);
  const std::string key(name);
  const int length =
      mg_get_var2(data.c_str(), data.size(), key.c_str(), value.data(), value.size(), 0);
  if (length < 0) return std::nullopt;
  value.resize(static_cast<size_t>(length));
  return value;
}

std::string UrlEncode(absl::string_view text) {
  std::string out;
  for (const char c : text) {
    const unsigned char u = static_cast<unsigned char>(c);
    if (absl::ascii_isalnum(u) || c == '-' || c == '_' || c == '.' || c == '~' || c == '/') {
      out.push_back(c);
    } else {
      absl::StrAppend(&out, "%", absl::Hex(u, absl::kZeroPad2));
    }
  }
  return out;
}

}  // namespace wasserwarp::service::http
