// The web view's own pages (the records, sign-in, a message): one small document each around
// the content, styled by one inline style block, which the Content-Security-Policy admits by its
// hash, and no script at all. The report and history pages are the core's, as --report writes
// them.

#ifndef WASSERWARP_SERVER_HTTP_WEB_HTML_H_
#define WASSERWARP_SERVER_HTTP_WEB_HTML_H_

#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "http/http_exchange.h"
#include "wasserwarp/html_report.h"

namespace wasserwarp::service::http {

// `text` with &, <, >, " and ' as character references, for text and attribute values.
std::string Escape(absl::string_view text);

// What the page's navigation shows: the records, the history, and signing out when the browser
// signed in with the form.
struct Navigation {
  std::string principal;  // shown; empty: anonymous
  bool signed_in = false;
};

// The document: `title` (text) and `body` (HTML) under the navigation.
std::string ViewPage(absl::string_view title, const Navigation& navigation, absl::string_view body);

// The options of the core's pages (report, history) served now: this build's version and time.
HtmlReportOptions CorePageOptions();

// An answer of `status` whose page says `message` (text).
HttpResponse MessagePage(int status, absl::string_view title, absl::string_view message,
                         const Navigation& navigation);

// The page of a failed call: 400 for what the request got wrong (a bad filter, page size or
// token), 404 for what is not the caller's, 503 when the store is unavailable, else 500; the
// message is the status's.
HttpResponse ErrorPage(const absl::Status& status, const Navigation& navigation);

}  // namespace wasserwarp::service::http

#endif  // WASSERWARP_SERVER_HTTP_WEB_HTML_H_
