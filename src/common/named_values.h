// The names of an enum's values for flags, JSON and errors, in one table per enum: the name
// of a value, and the value of a name with an error listing the accepted ones.

#ifndef WASSERWARP_SRC_COMMON_NAMED_VALUES_H_
#define WASSERWARP_SRC_COMMON_NAMED_VALUES_H_

#include <cstddef>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"
#include "common/absl_view.h"

namespace wasserwarp {

template <typename Enum>
struct NamedValue {
  Enum value;
  std::string_view name;
};

// True when `value` is in the table: false only for an integer cast into the enum.
template <typename Enum, size_t N>
bool IsNamed(const NamedValue<Enum> (&names)[N], Enum value) {
  for (const NamedValue<Enum>& named : names) {
    if (named.value == value) return true;
  }
  return false;
}

template <typename Enum, size_t N>
std::string_view NameOf(const NamedValue<Enum> (&names)[N], Enum value) {
  for (const NamedValue<Enum>& named : names) {
    if (named.value == value) return named.name;
  }
  // Only an integer cast into the enum gets here.
  return "unknown";
}

// InvalidArgument "unknown <what> "<name>"; accepted: a, b" for a name not in the table.
template <typename Enum, size_t N>
absl::StatusOr<Enum> ParseNamed(const NamedValue<Enum> (&names)[N], absl::string_view what,
                                std::string_view name) {
  for (const NamedValue<Enum>& named : names) {
    if (named.name == name) return named.value;
  }
  return absl::InvalidArgumentError(
      absl::StrCat("unknown ", what, " \"", AbslView(name), "\"; accepted: ",
                   absl::StrJoin(names, ", ", [](std::string* out, const NamedValue<Enum>& named) {
                     absl::StrAppend(out, AbslView(named.name));
                   })));
}

}  // namespace wasserwarp

#endif  // WASSERWARP_SRC_COMMON_NAMED_VALUES_H_
