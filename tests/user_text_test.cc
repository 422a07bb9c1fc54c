// How user text appears in messages and which ids are refused: the escapes a terminal or a log
// reader needs, the cut and its note, and the id rule's message.

#include "wasserwarp/user_text.h"

#include <gtest/gtest.h>

#include <string>

#include "wasserwarp/field_error.h"

namespace wasserwarp {
namespace {

TEST(QuotedTextTest, PlainTextIsOnlyQuoted) {
  EXPECT_EQ(QuotedText("sim_3"), "\"sim_3\"");
  EXPECT_EQ(QuotedText(""), "\"\"");
  EXPECT_EQ(QuotedText("Überlauf ✓"), "\"Überlauf ✓\"");
}

TEST(QuotedTextTest, ControlsQuotesAndBackslashesAreEscaped) {
  EXPECT_EQ(QuotedText("a\nb\r\tc"), "\"a\\nb\\r\\tc\"");
  EXPECT_EQ(QuotedText(std::string("a\0b", 3)), "\"a\\x00b\"");
  EXPECT_EQ(QuotedText("\x1b[31mred\x7f"), "\"\\x1b[31mred\\x7f\"");
  EXPECT_EQ(QuotedText("say \"hi\" \\"), "\"say \\\"hi\\\" \\\\\"");
  // C1 controls, which some terminals obey, by their bytes.
  EXPECT_EQ(QuotedText("\xc2\x9b"), "\"\\xc2\\x9b\"");
}

TEST(QuotedTextTest, BytesThatAreNotUtf8AreEscaped) {
  EXPECT_EQ(QuotedText("\xff\xfe"), "\"\\xff\\xfe\"");
  EXPECT_EQ(QuotedText("a\xe2\x82"), "\"a\\xe2\\x82\"");         // cut short
  EXPECT_EQ(QuotedText("\xc0\xaf"), "\"\\xc0\\xaf\"");           // overlong '/'
  EXPECT_EQ(QuotedText("\xed\xa0\x80"), "\"\\xed\\xa0\\x80\"");  // a surrogate
}

TEST(QuotedTextTest, LongTextIsCutWithItsLength) {
  const std::string text(1'000'000, 'x');
  const std::string quoted = QuotedText(text);
  EXPECT_EQ(quoted, "\"" + std::string(kMaxQuotedBytes, 'x') + "...\" (1000000 bytes)");
  // Never inside a character.
  EXPECT_EQ(QuotedText("ab✓", 4), "\"ab...\" (5 bytes)");
  EXPECT_EQ(QuotedText("abc", 3), "\"abc\"");
}

TEST(OneLineTest, EscapesControlsOnly) {
  EXPECT_EQ(OneLine("rpc x error=\"a \\\"b\\\"\"\n[info] forged", 1000),
            "rpc x error=\"a \\\"b\\\"\"\\n[info] forged");
  EXPECT_EQ(OneLine("abcdef", 3), "abc... (6 bytes)");
}

TEST(CheckIdCharactersTest, RefusesControlCharactersNamingTheField) {
  EXPECT_TRUE(CheckIdCharacters("header.series_id", "sim_3 ✓ (a/b)").ok());
  const absl::Status nul = CheckIdCharacters("header.series_id", std::string("ab\0c", 4));
  EXPECT_EQ(nul.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(nul.message(),
            "header.series_id: holds the control character \\x00 at byte 2; an id may not hold "
            "control characters");
  EXPECT_EQ(ErrorField(nul), "header.series_id");
  EXPECT_EQ(CheckIdCharacters("name", "a\nb").message(),
            "name: holds the control character \\n at byte 1; an id may not hold control "
            "characters");
  EXPECT_FALSE(CheckIdCharacters("name", "a\xc2\x85").ok());
}

}  // namespace
}  // namespace wasserwarp
