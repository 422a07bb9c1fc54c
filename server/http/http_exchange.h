// One HTTP request and its answer as plain values, so that the web view's handlers know nothing
// of civetweb (http_listener.h moves them in and out of it) and tests can call them directly.

#ifndef WASSERWARP_SERVER_HTTP_HTTP_EXCHANGE_H_
#define WASSERWARP_SERVER_HTTP_HTTP_EXCHANGE_H_

#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace wasserwarp::service::http {

struct HttpRequest {
  std::string method;  // GET, HEAD, POST, ...
  // URL-decoded and normalised by civetweb: no query, no dot segments.
  std::string path;
  // As sent, still encoded (FormValue decodes it).
  std::string query;
  std::string remote_ip;
  // Header values, empty when absent.
  std::string authorization;
  std::string cookie;
  std::string content_type;
  std::string host;
  std::string origin;
  // Sec-Fetch-Site, which browsers send whatever the referrer policy.
  std::string fetch_site;
  // A POST's form, at most --http_max_request_bytes; a longer one is not read.
  std::string body;
  bool body_too_large = false;
};

struct HttpResponse {
  int status = 200;
  std::string content_type = "text/html; charset=utf-8";
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
};

using HttpHandler = std::function<HttpResponse(const HttpRequest&)>;

}  // namespace wasserwarp::service::http

#endif  // WASSERWARP_SERVER_HTTP_HTTP_EXCHANGE_H_
