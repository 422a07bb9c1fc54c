// The headers every answer of the web view carries: a Content-Security-Policy that lets a page
// run only the inline scripts and styles it was served with (by their SHA-256), fetch nothing,
// sit in no frame and post forms only to this server; no content sniffing; no referrer; and for
// whatever is behind a principal, no caching.

#ifndef WASSERWARP_SERVER_HTTP_WEB_HEADERS_H_
#define WASSERWARP_SERVER_HTTP_WEB_HEADERS_H_

#include <string>

#include "absl/strings/string_view.h"
#include "http/http_exchange.h"

namespace wasserwarp::service::http {

// The policy of an HTML document: script-src and style-src list the hashes of its inline
// <script> (data blocks such as application/json aside) and <style> elements and of its style
// attributes (with 'unsafe-hashes'), nothing else.
std::string ContentSecurityPolicy(absl::string_view html);

// Adds the headers to `response`, its policy from its body when it is HTML; `private_answer`:
// it was made for a principal, so no cache may keep it.
void AddSecurityHeaders(HttpResponse& response, bool private_answer);

}  // namespace wasserwarp::service::http

#endif  // WASSERWARP_SERVER_HTTP_WEB_HEADERS_H_
