#include "wasserwarp/labels.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "wasserwarp/field_error.h"
#include "wasserwarp/user_text.h"

namespace wasserwarp {
namespace {

bool IsLabelName(std::string_view name) {
  if (name.empty() || name.size() > kMaxLabelNameLength) return false;
  if (name[0] < 'a' || name[0] > 'z') return false;
  for (char c : name) {
    const bool allowed =
        (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-';
    if (!allowed) return false;
  }
  return true;
}

bool IsLabelKey(std::string_view key) {
  const size_t slash = key.find('/');
  if (slash == std::string_view::npos) return IsLabelName(key);
  return IsLabelName(key.substr(0, slash)) && IsLabelName(key.substr(slash + 1));
}

// `<field_path>[<key>]`; a key that no label could have (too long, or with control characters)
// quoted as user text, so that the path stays one bounded line.
std::string LabelField(absl::string_view field_path, const std::string& key) {
  const bool plain = key.size() <= 2 * kMaxLabelNameLength + 1 && CheckIdCharacters("", key).ok();
  return absl::StrCat(field_path, "[", plain ? key : QuotedText(key), "]");
}

}  // namespace

absl::Status CheckLabels(const std::map<std::string, std::string>& labels,
                         absl::string_view field_path) {
  size_t count = 0;
  for (const auto& [key, value] : labels) {
    const std::string field = LabelField(field_path, key);
    if (absl::Status status = CheckIdCharacters(field, key); !status.ok()) return status;
    if (++count > kMaxLabels) {
      return InvalidFieldError(field, absl::StrCat("is label ", count, " of ", labels.size(),
                                                   "; at most ", kMaxLabels, " labels allowed"));
    }
    if (!IsLabelKey(key)) {
      return InvalidFieldError(field,
                               absl::StrCat("label key ", QuotedText(key),
                                            " is not [a-z][a-z0-9_.-]{0,62} with an optional "
                                            "domain/ prefix of the same form"));
    }
    if (value.size() > kMaxLabelValueLength) {
      return InvalidFieldError(
          field, absl::StrCat("label ", QuotedText(key), " has a value of ", value.size(),
                              " characters; at most ", kMaxLabelValueLength, " allowed"));
    }
  }
  return absl::OkStatus();
}

}  // namespace wasserwarp
