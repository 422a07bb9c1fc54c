#include "sessions/label_bound.h"

#include <cstddef>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "wasserwarp/field_error.h"
#include "wasserwarp/labels.h"

namespace wasserwarp::service {
namespace {

// The label's field, its key escaped: keys of session labels are any text.
std::string LabelField(std::string_view field_path, const std::string& key) {
  return absl::StrCat(absl::string_view(field_path.data(), field_path.size()), "[",
                      absl::CHexEscape(key.substr(0, 64)), key.size() > 64 ? "..." : "", "]");
}

}  // namespace

int64_t LabelBytes(const std::map<std::string, std::string>& labels) {
  int64_t bytes = 0;
  for (const auto& [key, value] : labels) bytes += static_cast<int64_t>(key.size() + value.size());
  return bytes;
}

absl::Status CheckLabelBound(const std::map<std::string, std::string>& labels,
                             std::string_view field_path, const SessionLimits& limits) {
  size_t count = 0;
  int64_t bytes = 0;
  for (const auto& [key, value] : labels) {
    ++count;
    bytes += static_cast<int64_t>(key.size() + value.size());
    if (count > kMaxLabels) {
      return InvalidFieldError(LabelField(field_path, key),
                               absl::StrCat("is label ", count, " of ", labels.size(), "; at most ",
                                            kMaxLabels, " labels are kept"));
    }
    if (bytes > limits.max_label_bytes) {
      return WithLimit(InvalidFieldError(LabelField(field_path, key),
                                         absl::StrCat("brings the labels to ", bytes,
                                                      " bytes (keys and values), over "
                                                      "--max_label_bytes=",
                                                      limits.max_label_bytes)),
                       "--max_label_bytes");
    }
  }
  return absl::OkStatus();
}

}  // namespace wasserwarp::service
