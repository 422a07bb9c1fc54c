#include "report/html_page.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"
#include "common/absl_view.h"
#include "report/html_assets.h"
#include "report/html_escape.h"
#include "report/html_text.h"

namespace wasserwarp {
namespace {

// Inline scripts and styles only; nothing may be fetched, not even a favicon.
constexpr char kContentSecurityPolicy[] =
    "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:";

}  // namespace

std::string BannerHtml(const Banner& banner) {
  return absl::StrCat("<header class=\"banner ", banner.cls, "\" id=\"banner\">\n",
                      "<div class=\"verdict-word\" id=\"verdict-word\">", banner.word, "</div>\n",
                      "<div class=\"banner-text\"><h1>", banner.title,
                      "</h1>\n<p class=\"sentence\">", banner.sentence, "</p>\n<p class=\"meta\">",
                      absl::StrJoin(banner.meta, " \u00b7 "), "</p></div>\n<div class=\"figures\">",
                      banner.figures, "</div>\n</header>\n");
}

std::string PageTitle(const HtmlReportOptions& options, absl::string_view fallback) {
  return options.title.empty() ? std::string(fallback) : EscapeHtml(options.title);
}

std::vector<std::string> ToolMeta(const HtmlReportOptions& options) {
  std::vector<std::string> meta;
  if (!options.tool_version.empty()) {
    meta.push_back(absl::StrCat("wasserwarp ", EscapeHtml(options.tool_version)));
  }
  if (!options.generated_at.empty()) {
    meta.push_back(absl::StrCat("generated ", EscapeHtml(options.generated_at)));
  }
  return meta;
}

std::string PageHtml(const Page& page, const HtmlReportOptions& options) {
  std::string html;
  absl::StrAppend(
      &html, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n",
      "<meta http-equiv=\"Content-Security-Policy\" content=\"", kContentSecurityPolicy, "\">\n",
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n",
      "<meta name=\"generator\" content=\"wasserwarp ", EscapeHtml(options.tool_version),
      "\">\n<title>", page.title, "</title>\n<style>\n", AbslView(html_assets::ReportStyle()),
      "</style>\n</head>\n<body>\n");
  absl::StrAppend(&html, page.banner, "<main>\n", page.main, "</main>\n");
  absl::StrAppend(&html, "<footer>wasserwarp ", EscapeHtml(options.tool_version),
                  options.generated_at.empty() ? "" : " \u00b7 ", EscapeHtml(options.generated_at),
                  " \u00b7 charts drawn with Chart.js (MIT licence), inlined</footer>\n");
  absl::StrAppend(&html, "<script type=\"application/json\" id=\"wasserwarp-data\">",
                  JsonForScriptElement(page.data), "</script>\n<script>\n",
                  AbslView(html_assets::ChartJs()), "\n</script>\n<script>\n",
                  AbslView(html_assets::ChartsScript()), "</script>\n<script>\n",
                  AbslView(page.script), "</script>\n</body>\n</html>\n");
  return html;
}

std::string Cell(absl::string_view tag, absl::string_view html, absl::string_view cls) {
  return cls.empty() ? absl::StrCat("<", tag, ">", html, "</", tag, ">")
                     : absl::StrCat("<", tag, " class=\"", cls, "\">", html, "</", tag, ">");
}

std::string KeyValueRow(absl::string_view key_html, absl::string_view value_html) {
  return absl::StrCat("<tr>", Cell("th", key_html), Cell("td", value_html), "</tr>\n");
}

std::string KeyFigure(absl::string_view label_html, absl::string_view value_html,
                      absl::string_view detail_html) {
  return absl::StrCat("<div class=\"figure\"><div class=\"figure-label\">", label_html,
                      "</div><div class=\"figure-value\">", value_html,
                      "</div><div class=\"figure-detail\">", detail_html, "</div></div>");
}

std::string ChartDiv(absl::string_view kind, size_t index, absl::string_view cls, int height_px) {
  return absl::StrCat("<div class=\"chart ", cls, "\" style=\"height:", height_px,
                      "px\"><canvas data-chart=\"", kind, "\" data-index=\"", index,
                      "\"></canvas></div>\n");
}

std::string Note(absl::string_view html) {
  return absl::StrCat("<p class=\"note\">", html, "</p>\n");
}

std::string ColorBarHtml(double low, double high, absl::string_view unit_html,
                         absl::string_view extra_html) {
  return absl::StrCat("<div class=\"colorbar\"><span>", FormatNumber(low, 4),
                      "</span><div class=\"gradient\"></div><span>", FormatNumber(high, 4),
                      "</span><span class=\"unit\">", unit_html, "</span>", extra_html, "</div>\n");
}

std::string WarningsHtml(const std::vector<std::string>& warnings) {
  if (warnings.empty()) return "";
  std::string html = "<ul class=\"warnings\">\n";
  for (const std::string& warning : warnings) {
    absl::StrAppend(&html, "<li>", EscapeHtml(warning), "</li>\n");
  }
  absl::StrAppend(&html, "</ul>\n");
  return html;
}

std::string ToolRowsHtml(const HtmlReportOptions& options) {
  return absl::StrCat(
      KeyValueRow("Tool version",
                  options.tool_version.empty() ? "\u2014" : EscapeHtml(options.tool_version)),
      KeyValueRow("Generated",
                  options.generated_at.empty() ? "\u2014" : EscapeHtml(options.generated_at)));
}

std::string GroupedDigits(uint64_t value) {
  const std::string digits = absl::StrCat(value);
  std::string out;
  for (size_t k = 0; k < digits.size(); ++k) {
    if (k > 0 && (digits.size() - k) % 3 == 0) out += "\u2009";
    out += digits[k];
  }
  return out;
}

}  // namespace wasserwarp
