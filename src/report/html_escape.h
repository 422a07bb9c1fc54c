// Putting untrusted text (run ids, channel names, file names) into an HTML
// page: as element text or attribute values (wasserwarp/html_escape.h), and as
// JSON inside a <script> element, where the only way out is a "</script" or
// "<!--" sequence.

#ifndef WASSERWARP_SRC_REPORT_HTML_ESCAPE_H_
#define WASSERWARP_SRC_REPORT_HTML_ESCAPE_H_

#include <string>
#include <string_view>

#include "nlohmann/json.hpp"
#include "wasserwarp/html_escape.h"

namespace wasserwarp {

// `data` as JSON text safe inside <script type="application/json">: every
// < > & is written \u003c \u003e \u0026 (they can only occur inside JSON
// strings, where the escapes mean the same), and invalid UTF-8 becomes U+FFFD.
std::string JsonForScriptElement(const nlohmann::json& data);

}  // namespace wasserwarp

#endif  // WASSERWARP_SRC_REPORT_HTML_ESCAPE_H_
