#include "wasserwarp/run_source.h"

#include "absl/strings/str_cat.h"
#include "wasserwarp/field_error.h"
#include "wasserwarp/sha256.h"

namespace wasserwarp {

absl::Status CheckRunSource(const RunSource& source, absl::string_view field_path) {
  if (source.file.size() > kMaxRunSourceFileLength) {
    return InvalidFieldError(absl::StrCat(field_path, ".file"),
                             absl::StrCat("has ", source.file.size(), " characters; at most ",
                                          kMaxRunSourceFileLength, " allowed"));
  }
  if (!source.sha256.empty() && !IsSha256Hex(source.sha256)) {
    return InvalidFieldError(absl::StrCat(field_path, ".sha256"),
                             "is not 64 lowercase hexadecimal digits");
  }
  return absl::OkStatus();
}

}  // namespace wasserwarp
