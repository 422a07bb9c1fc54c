// --log_format and --log_level: the flag values, and JSON lines that parse
// whatever the message holds.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <sstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "nlohmann/json.hpp"
#include "ops/log_format.h"
#include "spdlog/details/log_msg.h"
#include "spdlog/logger.h"
#include "spdlog/sinks/ostream_sink.h"

namespace wasserwarp::service {
namespace {

using ::testing::HasSubstr;

std::string Format(const spdlog::details::log_msg& message) {
  JsonLogFormatter formatter;
  spdlog::memory_buf_t buffer;
  formatter.format(message, buffer);
  return std::string(buffer.data(), buffer.size());
}

TEST(LogFormatTest, FlagValues) {
  EXPECT_EQ(*ParseLogFormat("text"), LogFormat::kText);
  EXPECT_EQ(*ParseLogFormat("json"), LogFormat::kJson);
  const absl::StatusOr<LogFormat> bad = ParseLogFormat("xml");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(bad.status().message()), HasSubstr("--log_format"));
  EXPECT_THAT(std::string(bad.status().message()), HasSubstr("\"xml\""));

  EXPECT_EQ(*ParseLogLevel("warn"), spdlog::level::warn);
  EXPECT_EQ(*ParseLogLevel("off"), spdlog::level::off);
  const absl::StatusOr<spdlog::level::level_enum> level = ParseLogLevel("verbose");
  ASSERT_FALSE(level.ok());
  EXPECT_THAT(std::string(level.status().message()), HasSubstr("--log_level"));
}

TEST(JsonLogFormatterTest, OneObjectPerLineWithEveryField) {
  // 2024-05-01T12:00:00.123456Z
  const auto time = std::chrono::system_clock::time_point(std::chrono::seconds(1714564800) +
                                                          std::chrono::microseconds(123456));
  spdlog::details::log_msg message(time, spdlog::source_loc{}, "wasserwarp-server",
                                   spdlog::level::warn, "rpc Validate status=OK");
  message.thread_id = 42;
  const std::string line = Format(message);
  EXPECT_EQ(line,
            "{\"time\":\"2024-05-01T12:00:00.123456Z\",\"level\":\"warning\","
            "\"logger\":\"wasserwarp-server\",\"thread\":42,"
            "\"message\":\"rpc Validate status=OK\"}\n");
}

TEST(JsonLogFormatterTest, MessagesAreEscapedAndAlwaysParse) {
  const std::string text = "quote \" backslash \\ newline \n tab \t bell \x07 delta \xce\x94 end";
  spdlog::details::log_msg message("wasserwarp-server", spdlog::level::info, text);
  const std::string line = Format(message);
  ASSERT_FALSE(line.empty());
  EXPECT_EQ(line.back(), '\n');
  EXPECT_EQ(line.find('\n'), line.size() - 1) << "one line per message";
  EXPECT_THAT(line, HasSubstr(R"(quote \" backslash \\ newline \n tab \t bell \u0007 delta)"));
  const nlohmann::json parsed = nlohmann::json::parse(line);
  EXPECT_EQ(parsed["message"], text);
  EXPECT_EQ(parsed["level"], "info");
}

TEST(JsonLogFormatterTest, BytesThatAreNotUtf8BecomeReplacementCharacters) {
  spdlog::details::log_msg message("wasserwarp-server", spdlog::level::err, "run \xff\xfe id");
  const nlohmann::json parsed = nlohmann::json::parse(Format(message));
  EXPECT_EQ(parsed["message"], "run \xef\xbf\xbd\xef\xbf\xbd id");
}

TEST(JsonLogFormatterTest, ALoggerWritesOneParsableLinePerCall) {
  std::ostringstream out;
  auto sink = std::make_shared<spdlog::sinks::ostream_sink_mt>(out);
  spdlog::logger logger("test", sink);
  logger.set_formatter(std::make_unique<JsonLogFormatter>());
  logger.info("first {}", 1);
  logger.error("second \"{}\"", "quoted");
  std::istringstream lines(out.str());
  std::string line;
  std::vector<nlohmann::json> parsed;
  while (std::getline(lines, line)) parsed.push_back(nlohmann::json::parse(line));
  ASSERT_EQ(parsed.size(), 2u);
  EXPECT_EQ(parsed[0]["message"], "first 1");
  EXPECT_EQ(parsed[1]["message"], "second \"quoted\"");
  EXPECT_EQ(parsed[1]["level"], "error");
  EXPECT_EQ(parsed[1]["logger"], "test");
}

TEST(JsonLogFormatterTest, LongMessagesAreCutWithTheirLength) {
  const std::string text(kMaxLogMessageBytes + 10, 'x');
  spdlog::details::log_msg message("wasserwarp-server", spdlog::level::info, text);
  const nlohmann::json parsed = nlohmann::json::parse(Format(message));
  EXPECT_EQ(parsed["message"],
            absl::StrCat(std::string(kMaxLogMessageBytes, 'x'), "... (", text.size(), " bytes)"));
}

// What a logger with the text format writes for `text`.
std::string TextLines(const std::string& text) {
  std::ostringstream out;
  auto sink = std::make_shared<spdlog::sinks::ostream_sink_mt>(out);
  spdlog::logger logger("test", sink);
  logger.set_formatter(std::make_unique<TextLogFormatter>());
  logger.info("rpc GetSession error={}", text);
  return out.str();
}

TEST(TextLogFormatterTest, NoMessageForgesASecondLine) {
  const std::string lines = TextLines("token\n\n[info] forged\r\x1b[2K\xff end");
  EXPECT_EQ(lines.find('\n'), lines.size() - 1) << lines;
  EXPECT_THAT(
      lines,
      HasSubstr("[info] rpc GetSession error=token\\n\\n[info] forged\\r\\x1b[2K\\xff end\n"));
}

TEST(TextLogFormatterTest, LongMessagesAreCutWithTheirLength) {
  const std::string lines = TextLines(std::string(kMaxLogMessageBytes, 'y'));
  EXPECT_EQ(lines.find('\n'), lines.size() - 1);
  EXPECT_LT(lines.size(), kMaxLogMessageBytes + 200);
  EXPECT_THAT(
      lines, HasSubstr(absl::StrCat(
                 "... (", kMaxLogMessageBytes + sizeof("rpc GetSession error=") - 1, " bytes)\n")));
}

}  // namespace
}  // namespace wasserwarp::service
