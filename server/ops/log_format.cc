#include "ops/log_format.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "nlohmann/json.hpp"
#include "spdlog/details/log_msg.h"
#include "spdlog/pattern_formatter.h"
#include "spdlog/sinks/stdout_color_sinks.h"
#include "spdlog/sinks/stdout_sinks.h"
#include "spdlog/spdlog.h"
#include "wasserwarp/user_text.h"

namespace wasserwarp::service {
namespace {

absl::string_view PayloadOf(const spdlog::details::log_msg& message) {
  return absl::string_view(message.payload.data(), message.payload.size());
}

// The message cut after kMaxLogMessageBytes; JSON's escaping does the rest.
std::string Bounded(absl::string_view payload) {
  if (payload.size() <= kMaxLogMessageBytes) return std::string(payload);
  return absl::StrCat(payload.substr(0, kMaxLogMessageBytes), "... (", payload.size(), " bytes)");
}

}  // namespace

absl::StatusOr<LogFormat> ParseLogFormat(std::string_view name) {
  if (name == "text") return LogFormat::kText;
  if (name == "json") return LogFormat::kJson;
  return absl::InvalidArgumentError(
      absl::StrCat("--log_format must be text or json, got \"", std::string(name), "\""));
}

absl::StatusOr<spdlog::level::level_enum> ParseLogLevel(std::string_view name) {
  const spdlog::level::level_enum level = spdlog::level::from_str(std::string(name));
  // from_str answers "off" for names it does not know.
  if (level == spdlog::level::off && name != "off") {
    return absl::InvalidArgumentError(
        absl::StrCat("--log_level must be trace, debug, info, warn, error, critical or off, got \"",
                     std::string(name), "\""));
  }
  return level;
}

void JsonLogFormatter::format(const spdlog::details::log_msg& message, spdlog::memory_buf_t& dest) {
  const spdlog::string_view_t level = spdlog::level::to_string_view(message.level);
  nlohmann::ordered_json line;
  line["time"] =
      absl::FormatTime("%Y-%m-%dT%H:%M:%E6SZ", absl::FromChrono(message.time), absl::UTCTimeZone());
  line["level"] = std::string(level.data(), level.size());
  line["logger"] = std::string(message.logger_name.data(), message.logger_name.size());
  line["thread"] = message.thread_id;
  line["message"] = Bounded(PayloadOf(message));
  const std::string text =
      line.dump(-1, ' ', /*ensure_ascii=*/false, nlohmann::json::error_handler_t::replace);
  dest.append(text.data(), text.data() + text.size());
  dest.push_back('\n');
}

std::unique_ptr<spdlog::formatter> JsonLogFormatter::clone() const {
  return std::make_unique<JsonLogFormatter>();
}

TextLogFormatter::TextLogFormatter() : pattern_(std::make_unique<spdlog::pattern_formatter>()) {}

void TextLogFormatter::format(const spdlog::details::log_msg& message, spdlog::memory_buf_t& dest) {
  const std::string payload = OneLine(PayloadOf(message), kMaxLogMessageBytes);
  spdlog::details::log_msg escaped = message;
  escaped.payload = spdlog::string_view_t(payload.data(), payload.size());
  pattern_->format(escaped, dest);
  // The colour sink reads where the level's colour goes from the message it handed over.
  message.color_range_start = escaped.color_range_start;
  message.color_range_end = escaped.color_range_end;
}

std::unique_ptr<spdlog::formatter> TextLogFormatter::clone() const {
  return std::make_unique<TextLogFormatter>();
}

void InstallStderrLogger(const std::string& logger_name, LogFormat format,
                         spdlog::level::level_enum level) {
  std::shared_ptr<spdlog::logger> logger;
  if (format == LogFormat::kJson) {
    logger = spdlog::stderr_logger_mt(logger_name);
    logger->set_formatter(std::make_unique<JsonLogFormatter>());
  } else {
    logger = spdlog::stderr_color_mt(logger_name);
    logger->set_formatter(std::make_unique<TextLogFormatter>());
  }
  spdlog::set_default_logger(std::move(logger));
  spdlog::set_level(level);
}

}  // namespace wasserwarp::service
