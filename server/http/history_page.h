// GET /history?filter=...&by=labels.KEY: the history page of `validations history --report`,
// from the caller's records that the filter finds; without `by`, a form that asks for it.

#ifndef WASSERWARP_SERVER_HTTP_HISTORY_PAGE_H_
#define WASSERWARP_SERVER_HTTP_HISTORY_PAGE_H_

#include "http/http_exchange.h"
#include "http/web_html.h"
#include "rpc/validation_resources.h"

namespace wasserwarp::service::http {

// At most kMaxHistoryRecords records are read, the first in ListValidations' order; the page
// says so when more matched.
inline constexpr int kMaxHistoryRecords = 5000;

HttpResponse HistoryPage(const HttpRequest& request, const Navigation& caller,
                         ValidationResources& resources);

}  // namespace wasserwarp::service::http

#endif  // WASSERWARP_SERVER_HTTP_HISTORY_PAGE_H_
