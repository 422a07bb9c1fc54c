#include "http/web_html.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "wasserwarp/html_escape.h"

namespace wasserwarp::service::http {
namespace {

constexpr char kStyle[] = R"css(
body { font: 14px/1.4 system-ui, sans-serif; margin: 0; color: #1d232a; background: #f7f8fa; }
nav { display: flex; gap: 1.2em; align-items: center; padding: .6em 1.2em; background: #1d3557;
  color: #fff; }
nav a { color: #fff; text-decoration: none; font-weight: 600; }
nav .who { margin-left: auto; opacity: .8; }
nav form { margin: 0; }
nav button { background: none; border: 1px solid #fff8; color: #fff; border-radius: 4px;
  cursor: pointer; }
main { padding: 1em 1.2em; }
h1 { font-size: 1.3em; margin: .2em 0 .8em; }
form.filter { display: flex; gap: .5em; margin-bottom: 1em; }
form.filter input[name=filter] { flex: 1; font: 13px monospace; padding: .3em; }
table { border-collapse: collapse; width: 100%; background: #fff; }
th, td { text-align: left; padding: .3em .6em; border-bottom: 1px solid #e3e6ea; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
.badge { display: inline-block; min-width: 3em; text-align: center; border-radius: 3px;
  font-weight: 700; font-size: 12px; padding: 0 .4em; }
.badge.pass { background: #2a9d8f; color: #fff; }
.badge.fail { background: #e63946; color: #fff; }
.badge.none { background: #ced4da; }
.label { font: 12px monospace; background: #eef1f4; border-radius: 3px; padding: 0 .3em;
  margin-right: .3em; }
.error { color: #b00020; font-weight: 600; }
.signin { max-width: 24em; margin: 3em auto; background: #fff; padding: 1.5em;
  border-radius: 6px; box-shadow: 0 1px 4px #0002; }
.signin input { width: 100%; box-sizing: border-box; padding: .4em; margin: .5em 0 1em; }
)css";

}  // namespace

std::string Escape(absl::string_view text) {
  return EscapeHtml(std::string_view(text.data(), text.size()));
}

std::string ViewPage(absl::string_view title, const Navigation& navigation,
                     absl::string_view body) {
  std::string nav = "<nav><a href=\"/\">Records</a><a href=\"/history\">History</a>";
  if (!navigation.principal.empty()) {
    absl::StrAppend(&nav, "<span class=\"who\" id=\"principal\">", Escape(navigation.principal),
                    "</span>");
  }
  if (navigation.signed_in) {
    absl::StrAppend(&nav,
                    "<form method=\"post\" action=\"/signout\"><button type=\"submit\" "
                    "id=\"signout\">Sign out</button></form>");
  }
  absl::StrAppend(&nav, "</nav>\n");
  return absl::StrCat(
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
      // No favicon to fetch: the policy allows none.
      "<link rel=\"icon\" href=\"data:,\">\n<title>",
      Escape(title), " \u00b7 wasserwarp</title>\n<style>", kStyle, "</style>\n</head>\n<body>\n",
      nav, "<main>\n<h1>", Escape(title), "</h1>\n", body, "</main>\n</body>\n</html>\n");
}

HtmlReportOptions CorePageOptions() {
  HtmlReportOptions options;
  options.tool_version = WASSERWARP_VERSION;
  options.generated_at = absl::FormatTime(absl::RFC3339_sec, absl::Now(), absl::UTCTimeZone());
  return options;
}

HttpResponse MessagePage(int status, absl::string_view title, absl::string_view message,
                         const Navigation& navigation) {
  HttpResponse response;
  response.status = status;
  response.body =
      ViewPage(title, navigation, absl::StrCat("<p id=\"message\">", Escape(message), "</p>\n"));
  return response;
}

HttpResponse ErrorPage(const absl::Status& status, const Navigation& navigation) {
  switch (status.code()) {
    case absl::StatusCode::kInvalidArgument:
    case absl::StatusCode::kOutOfRange:
    case absl::StatusCode::kFailedPrecondition:
      return MessagePage(400, "Bad request", status.message(), navigation);
    // Another principal's record is as unknown as one that never was.
    case absl::StatusCode::kNotFound:
    case absl::StatusCode::kPermissionDenied:
      return MessagePage(404, "Not found", status.message(), navigation);
    case absl::StatusCode::kResourceExhausted:
      return MessagePage(429, "Too many requests", status.message(), navigation);
    case absl::StatusCode::kUnavailable:
    case absl::StatusCode::kDeadlineExceeded:
      return MessagePage(503, "Unavailable", status.message(), navigation);
    default:
      return MessagePage(500, "Server error", status.message(), navigation);
  }
}

}  // namespace wasserwarp::service::http
