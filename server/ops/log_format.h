// How wasserwarp-server writes its log to stderr (--log_format, --log_level):
// spdlog's text lines for people, or one JSON object per line for log
// collectors, e.g.
//   {"time":"2024-05-01T12:00:00.123456Z","level":"info","logger":"wasserwarp-server",
//    "thread":4242,"message":"rpc Validate peer=ipv4:10.0.0.7:51234 status=OK ..."}
// (one line). Messages are escaped as JSON strings; bytes that are not UTF-8
// become U+FFFD, so every line parses. In text, control characters and bytes
// that are not UTF-8 are escaped (\n, \xNN), so no message can forge a
// second line whatever user text it quotes. Either way a message is cut after
// kMaxLogMessageBytes.

#ifndef WASSERWARP_SERVER_OPS_LOG_FORMAT_H_
#define WASSERWARP_SERVER_OPS_LOG_FORMAT_H_

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "spdlog/common.h"
#include "spdlog/formatter.h"

namespace wasserwarp::service {

enum class LogFormat { kText, kJson };

// "text" or "json"; InvalidArgument naming --log_format otherwise.
absl::StatusOr<LogFormat> ParseLogFormat(std::string_view name);
// spdlog's names (trace, debug, info, warn, error, critical, off);
// InvalidArgument naming --log_level otherwise.
absl::StatusOr<spdlog::level::level_enum> ParseLogLevel(std::string_view name);

// Of one message; longer ones are cut, their length noted.
inline constexpr size_t kMaxLogMessageBytes = 16 << 10;

class JsonLogFormatter final : public spdlog::formatter {
 public:
  void format(const spdlog::details::log_msg& message, spdlog::memory_buf_t& dest) override;
  std::unique_ptr<spdlog::formatter> clone() const override;
};

// spdlog's text lines, each message on one line.
class TextLogFormatter final : public spdlog::formatter {
 public:
  TextLogFormatter();
  void format(const spdlog::details::log_msg& message, spdlog::memory_buf_t& dest) override;
  std::unique_ptr<spdlog::formatter> clone() const override;

 private:
  std::unique_ptr<spdlog::formatter> pattern_;
};

// Makes `logger_name` on stderr, in `format`, at `level`, the default logger.
void InstallStderrLogger(const std::string& logger_name, LogFormat format,
                         spdlog::level::level_enum level);

}  // namespace wasserwarp::service

#endif  // WASSERWARP_SERVER_OPS_LOG_FORMAT_H_
