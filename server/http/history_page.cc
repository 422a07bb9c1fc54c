#include "http/history_page.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "http/http_listener.h"
#include "wasserwarp/history_html.h"
#include "wire/validation_history.h"

namespace wasserwarp::service::http {
namespace {

std::string AskForm(const std::string& filter, const std::string& by) {
  return absl::StrCat(
      "<form class=\"filter\" method=\"get\" action=\"/history\">"
      "<input name=\"filter\" id=\"filter\" value=\"",
      Escape(filter),
      "\" placeholder=\"labels.model = &quot;brake&quot;\">"
      "<input name=\"by\" id=\"by\" value=\"",
      Escape(by),
      "\" placeholder=\"labels.version\" required>"
      "<button type=\"submit\" id=\"draw\">Draw</button></form>\n"
      "<p>The records the filter finds, in the order of the <code>by</code> label's values "
      "(versions as versions, dates in time order), as <code>wasserwarp validations history "
      "--report</code> draws them.</p>\n");
}

// The caller's records that `filter` finds, at most kMaxHistoryRecords; `more` says whether
// there were more.
absl::StatusOr<std::vector<v1::Validation>> Records(const std::string& filter,
                                                    const std::string& principal,
                                                    ValidationResources& resources, bool& more) {
  std::vector<v1::Validation> records;
  v1::ListValidationsRequest list;
  list.set_parent("sessions/-");
  list.set_filter(filter);
  list.set_page_size(kMaxPageSize);
  more = false;
  for (;;) {
    absl::StatusOr<v1::ListValidationsResponse> page = resources.List(list, principal);
    if (!page.ok()) return page.status();
    for (v1::Validation& record : *page->mutable_validations()) {
      records.push_back(std::move(record));
    }
    if (page->next_page_token().empty()) return records;
    if (records.size() >= static_cast<size_t>(kMaxHistoryRecords)) {
      more = true;
      return records;
    }
    list.set_page_token(page->next_page_token());
  }
}

}  // namespace

HttpResponse HistoryPage(const HttpRequest& request, const Navigation& caller,
                         ValidationResources& resources) {
  const std::string filter = FormValue(request.query, "filter").value_or("");
  const std::string by = FormValue(request.query, "by").value_or("");
  HttpResponse response;
  if (by.empty()) {
    response.body = ViewPage("History", caller, AskForm(filter, by));
    return response;
  }
  absl::StatusOr<std::string> key = wire::HistoryLabelKey(by);
  bool more = false;
  absl::StatusOr<std::vector<v1::Validation>> records =
      key.ok() ? Records(filter, caller.principal, resources, more)
               : absl::StatusOr<std::vector<v1::Validation>>(key.status());
  if (!records.ok()) {
    response = ErrorPage(records.status(), caller);
    response.body = ViewPage("History", caller,
                             absl::StrCat(AskForm(filter, by), "<p class=\"error\" id=\"error\">",
                                          Escape(records.status().message()), "</p>\n"));
    return response;
  }
  const ValidationHistory history = wire::HistoryOf(*records, *key, filter);
  HtmlReportOptions options = CorePageOptions();
  if (more) {
    options.title = absl::StrCat("Validation history (the first ", kMaxHistoryRecords,
                                 " matching records; narrow the filter for the rest)");
  }
  response.body = RenderHistoryHtml(history, options);
  return response;
}

}  // namespace wasserwarp::service::http
