// Reading back what an HTML report page holds, for the page tests: the JSON data element the
// charts draw from, and how often a piece of markup occurs.

#ifndef WASSERWARP_TESTS_HTML_PAGE_DATA_H_
#define WASSERWARP_TESTS_HTML_PAGE_DATA_H_

#include <gtest/gtest.h>

#include <cstddef>
#include <string>

#include "nlohmann/json.hpp"

namespace wasserwarp {

// The page's <script id="wasserwarp-data"> element, parsed.
inline nlohmann::json PageData(const std::string& page) {
  const std::string open = "<script type=\"application/json\" id=\"wasserwarp-data\">";
  const size_t begin = page.find(open);
  EXPECT_NE(begin, std::string::npos);
  const size_t text = begin + open.size();
  return nlohmann::json::parse(page.substr(text, page.find("</script>", text) - text));
}

// Occurrences of `what` in `text`, overlapping ones included.
inline size_t Count(const std::string& text, const std::string& what) {
  size_t count = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++count;
  return count;
}

}  // namespace wasserwarp

#endif  // WASSERWARP_TESTS_HTML_PAGE_DATA_H_
