// One validation record: GET /sessions/{s}/validations/{v} is its HTML report, the page
// `--report` writes, and .../report.json its JSON report, the document `validations show --json`
// writes. Both find the record as GetValidation does: another principal's is not found.

#ifndef WASSERWARP_SERVER_HTTP_RECORD_PAGES_H_
#define WASSERWARP_SERVER_HTTP_RECORD_PAGES_H_

#include <string>

#include "http/http_exchange.h"
#include "http/web_html.h"
#include "rpc/validation_resources.h"
#include "sessions/session_store.h"

namespace wasserwarp::service::http {

// The page the record stored when its request asked for one; else the page drawn from its
// stored report, with the session's runs while the session holds them and without the runs'
// charts once it is gone. A record that has not succeeded gets a page saying how it stands.
HttpResponse ReportPage(const std::string& name, const Navigation& caller,
                        ValidationResources& resources, SessionStore& sessions);

// The JSON report of a SUCCEEDED record, without its cost matrices; 409 for one that has not
// succeeded (it has no report).
HttpResponse ReportJson(const std::string& name, const Navigation& caller,
                        ValidationResources& resources);

}  // namespace wasserwarp::service::http

#endif  // WASSERWARP_SERVER_HTTP_RECORD_PAGES_H_
