// Text from users (labels, messages, run ids) in formats that must be valid UTF-8 and may forbid
// some characters (XML 1.0 forbids most control characters), so that one odd byte cannot make a
// whole report unreadable.

#ifndef WASSERWARP_SRC_REPORT_UTF8_TEXT_H_
#define WASSERWARP_SRC_REPORT_UTF8_TEXT_H_

#include <cstdint>
#include <string>

#include "absl/strings/string_view.h"

namespace wasserwarp {

// `text` with each invalid UTF-8 byte (overlong forms and surrogates included) and each code
// point `allowed` refuses replaced by U+FFFD.
std::string ReplaceInvalidUtf8(absl::string_view text, bool (*allowed)(uint32_t) = nullptr);

}  // namespace wasserwarp

#endif  // WASSERWARP_SRC_REPORT_UTF8_TEXT_H_
