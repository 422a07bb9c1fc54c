#include "wire/resource_names.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "wasserwarp/field_error.h"
#include "wasserwarp/user_text.h"

namespace wasserwarp::wire {
namespace {

constexpr absl::string_view kSessionsPrefix = "sessions/";
constexpr absl::string_view kValidationsInfix = "/validations/";
constexpr size_t kMaxSessionIdLength = 63;

bool IsLowerAlnum(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }

}  // namespace

absl::Status ValidateSessionId(absl::string_view id) {
  bool valid = !id.empty() && id.size() <= kMaxSessionIdLength && IsLowerAlnum(id[0]);
  for (size_t i = 1; valid && i < id.size(); ++i) {
    const char c = id[i];
    valid = IsLowerAlnum(c) || c == '-' || c == '_' || c == '.';
  }
  if (valid) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      "session id ", QuotedText(id), " is malformed: expected [a-z0-9][a-z0-9-_.]{0,62}"));
}

std::string SessionName(absl::string_view id) { return absl::StrCat(kSessionsPrefix, id); }

absl::StatusOr<std::string> SessionIdFromName(absl::string_view name, absl::string_view field) {
  if (absl::Status status = CheckIdCharacters(field, name); !status.ok()) return status;
  if (absl::StartsWith(name, kSessionsPrefix)) {
    const absl::string_view id = name.substr(kSessionsPrefix.size());
    if (ValidateSessionId(id).ok()) return std::string(id);
  }
  if (name.empty()) {
    return WithField(absl::InvalidArgumentError(
                         absl::StrCat(field, " is required: expected sessions/{session_id}")),
                     field);
  }
  return WithField(
      absl::InvalidArgumentError(absl::StrCat(field, " ", QuotedText(name),
                                              " is malformed: expected sessions/{session_id} "
                                              "with an id of [a-z0-9][a-z0-9-_.]{0,62}")),
      field);
}

std::string ValidationName(absl::string_view session_id, absl::string_view validation_id) {
  return absl::StrCat(kSessionsPrefix, session_id, kValidationsInfix, validation_id);
}

absl::StatusOr<ValidationIds> ValidationIdsFromName(absl::string_view name,
                                                    absl::string_view field) {
  if (absl::Status status = CheckIdCharacters(field, name); !status.ok()) return status;
  absl::string_view rest = name;
  if (absl::ConsumePrefix(&rest, kSessionsPrefix)) {
    const size_t infix = rest.find(kValidationsInfix);
    if (infix != absl::string_view::npos) {
      const absl::string_view session_id = rest.substr(0, infix);
      const absl::string_view validation_id = rest.substr(infix + kValidationsInfix.size());
      if (ValidateSessionId(session_id).ok() && ValidateSessionId(validation_id).ok()) {
        return ValidationIds{std::string(session_id), std::string(validation_id)};
      }
    }
  }
  const std::string expected =
      "expected sessions/{session_id}/validations/{validation_id}, each id of "
      "[a-z0-9][a-z0-9-_.]{0,62}";
  return WithField(
      absl::InvalidArgumentError(
          name.empty() ? absl::StrCat(field, " is required: ", expected)
                       : absl::StrCat(field, " ", QuotedText(name), " is malformed: ", expected)),
      field);
}

absl::string_view SessionIdOf(absl::string_view name) {
  absl::ConsumePrefix(&name, kSessionsPrefix);
  return name;
}

}  // namespace wasserwarp::wire
