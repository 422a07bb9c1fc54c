// What every page of the HTML reports is built from, so that the validation page and the
// parameter-study pages look, load and stay offline alike: the document around the content
// (inlined style and scripts, the Content-Security-Policy, the data element the charts are
// drawn from), the banner, and the small pieces of markup their sections share.

#ifndef WASSERWARP_SRC_REPORT_HTML_PAGE_H_
#define WASSERWARP_SRC_REPORT_HTML_PAGE_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/string_view.h"
#include "nlohmann/json.hpp"
#include "wasserwarp/html_report.h"

namespace wasserwarp {

// The coloured header: a word in a box, the title, one sentence, the meta line and key figures.
struct Banner {
  std::string cls;       // "verdict-pass", "verdict-fail", "verdict-flag" or "verdict-none"
  std::string word;      // HTML
  std::string title;     // HTML
  std::string sentence;  // HTML
  std::vector<std::string> meta;  // HTML, shown joined by " · "
  std::string figures;            // KeyFigure()s
};

std::string BannerHtml(const Banner& banner);

// options.title escaped, or `fallback` (HTML) when it is empty.
std::string PageTitle(const HtmlReportOptions& options, absl::string_view fallback);

// The banner's meta items that options give: the tool version and when the page was made.
std::vector<std::string> ToolMeta(const HtmlReportOptions& options);

struct Page {
  std::string title;  // HTML, for <title>
  std::string banner;
  std::string main;     // the sections
  nlohmann::json data;  // what the page's script draws from
  // One of html_assets' page scripts; the shared chart helpers are inlined before it.
  std::string_view script;
};

// The whole document.
std::string PageHtml(const Page& page, const HtmlReportOptions& options);

std::string Cell(absl::string_view tag, absl::string_view html, absl::string_view cls = "");
std::string KeyValueRow(absl::string_view key_html, absl::string_view value_html);
std::string KeyFigure(absl::string_view label_html, absl::string_view value_html,
                      absl::string_view detail_html);

// The canvas of one chart: the page's script draws kind's data[index] on it.
std::string ChartDiv(absl::string_view kind, size_t index, absl::string_view cls, int height_px);

std::string Note(absl::string_view html);

// The heat maps' colour scale from `low` to `high`, then `unit_html` and `extra_html`.
std::string ColorBarHtml(double low, double high, absl::string_view unit_html,
                         absl::string_view extra_html = "");

// Text warnings, escaped, as the highlighted list; nothing when there are none.
std::string WarningsHtml(const std::vector<std::string>& warnings);

// Key-value rows of the tool version and when the page was made.
std::string ToolRowsHtml(const HtmlReportOptions& options);

// 1523784780 as "1 523 784 780", with thin spaces.
std::string GroupedDigits(uint64_t value);

}  // namespace wasserwarp

#endif  // WASSERWARP_SRC_REPORT_HTML_PAGE_H_
