// Untrusted text (run ids, channel names, labels, error messages) in an HTML page, as element
// text or a quoted attribute value: the core's pages and the service's web view escape it alike.

#ifndef WASSERWARP_HTML_ESCAPE_H_
#define WASSERWARP_HTML_ESCAPE_H_

#include <string>
#include <string_view>

namespace wasserwarp {

// & < > " ' as character references: safe in element text and in quoted attribute values.
std::string EscapeHtml(std::string_view text);

}  // namespace wasserwarp

#endif  // WASSERWARP_HTML_ESCAPE_H_
