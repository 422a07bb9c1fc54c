// Text a user chose (ids, names, page tokens, label keys, file fields) as it may appear in an
// error message or a log line, and the rule for the characters an id may hold. Messages are
// logged and shown on terminals, so user text in them must not start a line, move the cursor or
// fill a disk: it is quoted, escaped and cut, by this one function wherever it appears.

#ifndef WASSERWARP_USER_TEXT_H_
#define WASSERWARP_USER_TEXT_H_

#include <cstddef>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace wasserwarp {

// Of the user text one message quotes; longer text is cut there.
inline constexpr size_t kMaxQuotedBytes = 96;

// `text` in double quotes, `"` and `\` escaped with a backslash, control characters as \n, \r,
// \t or \xNN, bytes that are not UTF-8 as \xNN; text over `max_bytes` bytes cut at a character
// boundary and followed by `..." (N bytes)` with its full length, e.g.
//   QuotedText("a\nb") == "\"a\\nb\""
//   QuotedText(std::string(1000, 'x')) == "\"xxx...xxx...\" (1000 bytes)"
std::string QuotedText(absl::string_view text, size_t max_bytes = kMaxQuotedBytes);

// `text` with control characters and bytes that are not UTF-8 escaped as QuotedText does, and
// nothing else: a whole message, so that it takes exactly one line. Quotes and backslashes stay
// (user text in it was quoted already); text over `max_bytes` is cut as QuotedText cuts.
std::string OneLine(absl::string_view text, size_t max_bytes);

// The id rule: Ok unless `id` holds a control character (NUL, newline, ESC, DEL...), which no
// id may hold, since ids are stored as C strings, printed and logged; InvalidArgument naming
// `field` and the first such character's position otherwise. Checked before anything else about
// an id, so that no other error quotes it with such characters.
absl::Status CheckIdCharacters(absl::string_view field, absl::string_view id);

// The same rule for other stored names (`what`: "a unit"): the message says that `what` may not
// hold control characters.
absl::Status CheckNoControlCharacters(absl::string_view field, absl::string_view text,
                                      absl::string_view what);

}  // namespace wasserwarp

#endif  // WASSERWARP_USER_TEXT_H_
