#include "resource_names.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "wasserwarp/field_error.h"

namespace wasserwarp::service {
namespace {

constexpr std::string_view kSessionsPrefix = "sessions/";
constexpr size_t kMaxSessionIdLength = 63;

absl::string_view View(std::string_view s) { return absl::string_view(s.data(), s.size()); }

bool IsLowerAlnum(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }

}  // namespace

absl::Status ValidateSessionId(std::string_view id) {
  bool valid = !id.empty() && id.size() <= kMaxSessionIdLength && IsLowerAlnum(id[0]);
  for (size_t i = 1; valid && i < id.size(); ++i) {
    const char c = id[i];
    valid = IsLowerAlnum(c) || c == '-' || c == '_' || c == '.';
  }
  if (valid) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      "session id \"", View(id), "\" is malformed: expected [a-z0-9][a-z0-9-_.]{0,62}"));
}

std::string SessionName(std::string_view id) {
  return absl::StrCat(View(kSessionsPrefix), View(id));
}

absl::StatusOr<std::string> SessionIdFromName(std::string_view name, std::string_view field) {
  if (name.substr(0, kSessionsPrefix.size()) == kSessionsPrefix) {
    const std::string_view id = name.substr(kSessionsPrefix.size());
    if (ValidateSessionId(id).ok()) return std::string(id);
  }
  if (name.empty()) {
    return WithField(absl::InvalidArgumentError(
                         absl::StrCat(View(field), " is required: expected sessions/{session_id}")),
                     View(field));
  }
  return WithField(
      absl::InvalidArgumentError(absl::StrCat(View(field), " \"", View(name),
                                              "\" is malformed: expected sessions/{session_id} "
                                              "with an id of [a-z0-9][a-z0-9-_.]{0,62}")),
      View(field));
}

}  // namespace wasserwarp::service
