#include "http/list_page.h"

#include <map>
#include <string>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/time.h"
#include "http/http_listener.h"
#include "wire/convert.h"
#include "wire/state_word.h"

namespace wasserwarp::service::http {
namespace {

std::string Badge(const v1::Validation& record) {
  if (!record.outcome().has_passed()) return "<span class=\"badge none\">none</span>";
  return record.outcome().passed() ? "<span class=\"badge pass\">PASS</span>"
                                   : "<span class=\"badge fail\">FAIL</span>";
}

std::string Labels(const v1::Validation& record) {
  // Sorted, so that equal records read alike.
  const std::map<std::string, std::string> sorted(record.labels().begin(), record.labels().end());
  std::string html;
  for (const auto& [key, value] : sorted) {
    absl::StrAppend(&html, "<span class=\"label\">", Escape(key), "=", Escape(value), "</span>");
  }
  return html;
}

std::string Row(const v1::Validation& record) {
  const v1::ValidationOutcome& outcome = record.outcome();
  const std::string state = wire::StateWord(record.state());
  return absl::StrCat(
      "<tr class=\"record\" data-name=\"", Escape(record.name()), "\"><td><a href=\"/",
      Escape(record.name()), "\">", Escape(record.name()), "</a></td><td>", state, "</td><td>",
      Badge(record), "</td><td>", Labels(record), "</td><td class=\"num\">",
      record.has_outcome() ? absl::StrFormat("%.6g", outcome.distance()) : "-",
      "</td><td class=\"num\">",
      outcome.has_ratio() ? absl::StrFormat("%.4g", outcome.ratio()) : "-", "</td><td>",
      absl::FormatTime("%Y-%m-%d %H:%M:%SZ", wire::FromProtoTime(record.create_time()),
                       absl::UTCTimeZone()),
      "</td></tr>\n");
}

std::string FilterForm(const std::string& filter) {
  return absl::StrCat(
      "<form class=\"filter\" method=\"get\" action=\"/\">"
      "<input name=\"filter\" id=\"filter\" value=\"",
      Escape(filter),
      "\" placeholder=\"labels.model = &quot;brake&quot; AND outcome.passed = false\">"
      "<button type=\"submit\" id=\"apply\">Filter</button></form>\n");
}

}  // namespace

HttpResponse ListPage(const HttpRequest& request, const Navigation& caller,
                      ValidationResources& resources) {
  const std::string filter = FormValue(request.query, "filter").value_or("");
  v1::ListValidationsRequest list;
  list.set_parent("sessions/-");
  list.set_filter(filter);
  list.set_page_token(FormValue(request.query, "page_token").value_or(""));
  int page_size = kDefaultPageSize;
  if (const std::optional<std::string> size = FormValue(request.query, "page_size");
      size.has_value() &&
      (!absl::SimpleAtoi(*size, &page_size) || page_size < 1 || page_size > kMaxPageSize)) {
    return MessagePage(400, "Bad request",
                       absl::StrCat("page_size must be a number from 1 to ", kMaxPageSize,
                                    ", got \"", *size, "\""),
                       caller);
  }
  list.set_page_size(page_size);
  absl::StatusOr<v1::ListValidationsResponse> page = resources.List(list, caller.principal);
  if (!page.ok()) {
    HttpResponse response = ErrorPage(page.status(), caller);
    // The form stays, so that a bad filter is corrected where it was typed.
    response.body = ViewPage("Validation records", caller,
                             absl::StrCat(FilterForm(filter), "<p class=\"error\" id=\"error\">",
                                          Escape(page.status().message()), "</p>\n"));
    return response;
  }
  std::string body = FilterForm(filter);
  if (page->validations().empty()) {
    absl::StrAppend(&body, "<p id=\"empty\">No validation records", filter.empty() ? "" : " match",
                    ".</p>\n");
  } else {
    absl::StrAppend(&body,
                    "<table id=\"records\"><thead><tr><th>Record</th><th>State</th>"
                    "<th>Verdict</th><th>Labels</th><th>W</th><th>Ratio</th><th>Created</th>"
                    "</tr></thead><tbody>\n");
    for (const v1::Validation& record : page->validations()) absl::StrAppend(&body, Row(record));
    absl::StrAppend(&body, "</tbody></table>\n");
  }
  if (!page->next_page_token().empty()) {
    absl::StrAppend(&body, "<p><a id=\"next\" href=\"/?filter=", UrlEncode(filter),
                    "&amp;page_size=", page_size,
                    "&amp;page_token=", UrlEncode(page->next_page_token()),
                    "\">Next page</a></p>\n");
  }
  HttpResponse response;
  response.body = ViewPage("Validation records", caller, body);
  return response;
}

}  // namespace wasserwarp::service::http
