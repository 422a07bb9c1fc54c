#include "wasserwarp/user_text.h"

#include <cstdint>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "wasserwarp/field_error.h"

namespace wasserwarp {
namespace {

// The code point of the UTF-8 character at `text[i]` and its length in bytes; length 0 where the
// bytes there are not a character (a stray continuation byte, a sequence cut short, an overlong
// or surrogate encoding).
struct Character {
  uint32_t code_point = 0;
  size_t length = 0;
};

Character CharacterAt(absl::string_view text, size_t i) {
  const auto byte = [&](size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char lead = byte(i);
  if (lead < 0x80) return {lead, 1};
  size_t length = 0;
  uint32_t code_point = 0;
  uint32_t smallest = 0;
  if ((lead & 0xE0) == 0xC0) {
    length = 2, code_point = lead & 0x1F, smallest = 0x80;
  } else if ((lead & 0xF0) == 0xE0) {
    length = 3, code_point = lead & 0x0F, smallest = 0x800;
  } else if ((lead & 0xF8) == 0xF0) {
    length = 4, code_point = lead & 0x07, smallest = 0x10000;
  } else {
    return {};
  }
  if (i + length > text.size()) return {};
  for (size_t k = 1; k < length; ++k) {
    if ((byte(i + k) & 0xC0) != 0x80) return {};
    code_point = (code_point << 6) | (byte(i + k) & 0x3F);
  }
  if (code_point < smallest || code_point > 0x10FFFF ||
      (code_point >= 0xD800 && code_point <= 0xDFFF)) {
    return {};
  }
  return {code_point, length};
}

// C0 and C1 controls and DEL: what moves a terminal's cursor or ends a log line.
bool IsControl(uint32_t code_point) {
  return code_point < 0x20 || (code_point >= 0x7F && code_point <= 0x9F);
}

void AppendByteEscape(unsigned char c, std::string& out) {
  switch (c) {
    case '\n':
      out += "\\n";
      return;
    case '\r':
      out += "\\r";
      return;
    case '\t':
      out += "\\t";
      return;
    default:
      absl::StrAppendFormat(&out, "\\x%02x", c);
  }
}

// Appends `text` escaped to `out` until the next character would take the input past
// `max_bytes`; returns the bytes of `text` it took. `quotes` escapes `"` and `\` as well.
size_t AppendEscaped(absl::string_view text, size_t max_bytes, bool quotes, std::string& out) {
  size_t i = 0;
  while (i < text.size()) {
    const Character character = CharacterAt(text, i);
    const size_t length = character.length == 0 ? 1 : character.length;
    if (i + length > max_bytes) break;
    if (character.length == 0 || IsControl(character.code_point)) {
      for (size_t k = 0; k < length; ++k) AppendByteEscape(text[i + k], out);
    } else if (quotes && (text[i] == '"' || text[i] == '\\')) {
      out += '\\';
      out += text[i];
    } else {
      out.append(text.data() + i, length);
    }
    i += length;
  }
  return i;
}

}  // namespace

std::string QuotedText(absl::string_view text, size_t max_bytes) {
  std::string out = "\"";
  const size_t taken = AppendEscaped(text, max_bytes, /*quotes=*/true, out);
  if (taken == text.size()) return absl::StrCat(out, "\"");
  return absl::StrCat(out, "...\" (", text.size(), " bytes)");
}

std::string OneLine(absl::string_view text, size_t max_bytes) {
  std::string out;
  const size_t taken = AppendEscaped(text, max_bytes, /*quotes=*/false, out);
  if (taken == text.size()) return out;
  return absl::StrCat(out, "... (", text.size(), " bytes)");
}

absl::Status CheckIdCharacters(absl::string_view field, absl::string_view id) {
  return CheckNoControlCharacters(field, id, "an id");
}

absl::Status CheckNoControlCharacters(absl::string_view field, absl::string_view text,
                                      absl::string_view what) {
  for (size_t i = 0; i < text.size();) {
    const Character character = CharacterAt(text, i);
    if (character.length != 0 && IsControl(character.code_point)) {
      std::string escaped;
      AppendEscaped(text.substr(i, character.length), character.length, /*quotes=*/false, escaped);
      return InvalidFieldError(
          field, absl::StrCat("holds the control character ", escaped, " at byte ", i, "; ", what,
                              " may not hold control characters"));
    }
    i += character.length == 0 ? 1 : character.length;
  }
  return absl::OkStatus();
}

}  // namespace wasserwarp
