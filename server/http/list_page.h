// GET /: the caller's validation records across its sessions, as ListValidations with parent
// sessions/- lists them: the same filter language, order and page tokens, one table row each.

#ifndef WASSERWARP_SERVER_HTTP_LIST_PAGE_H_
#define WASSERWARP_SERVER_HTTP_LIST_PAGE_H_

#include "http/http_exchange.h"
#include "http/web_html.h"
#include "rpc/validation_resources.h"

namespace wasserwarp::service::http {

// Query parameters: filter, page_size (1 to 1000; 50 when absent), page_token.
HttpResponse ListPage(const HttpRequest& request, const Navigation& caller,
                      ValidationResources& resources);

}  // namespace wasserwarp::service::http

#endif  // WASSERWARP_SERVER_HTTP_LIST_PAGE_H_
