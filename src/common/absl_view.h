// Debian 12's Abseil is built with its own absl::string_view, and its string
// functions (StrCat, StrSplit, ...) do not take a std::string_view.

#ifndef WASSERWARP_SRC_COMMON_ABSL_VIEW_H_
#define WASSERWARP_SRC_COMMON_ABSL_VIEW_H_

#include <string_view>

#include "absl/strings/string_view.h"

namespace wasserwarp {

inline absl::string_view AbslView(std::string_view s) {
  return absl::string_view(s.data(), s.size());
}

}  // namespace wasserwarp

#endif  // WASSERWARP_SRC_COMMON_ABSL_VIEW_H_
