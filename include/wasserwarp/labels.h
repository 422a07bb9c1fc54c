// Labels that say what a validation was of ("release": "2.4", "vehicle/variant": "sport"), set
// when it is created and used to find it again. One rule, so that every front end refuses the
// same labels with the same words.

#ifndef WASSERWARP_LABELS_H_
#define WASSERWARP_LABELS_H_

#include <cstddef>
#include <map>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace wasserwarp {

inline constexpr size_t kMaxLabels = 64;
inline constexpr size_t kMaxLabelValueLength = 256;
// Of the key's name, and of its domain prefix, each: [a-z][a-z0-9_.-]{0,62}.
inline constexpr size_t kMaxLabelNameLength = 63;

// Ok when there are at most kMaxLabels labels, each key is a name [a-z][a-z0-9_.-]{0,62} with an
// optional `domain/` prefix of the same form, and each value has at most kMaxLabelValueLength
// characters (bytes). Otherwise InvalidArgument on the field `<field_path>[<key>]` of the first
// offending label in key order, saying what is wrong; too many labels name the first one past
// kMaxLabels. A key with control characters breaks the id rule (user_text.h) first, and such
// a key, or one longer than any label's, is quoted in the field path.
absl::Status CheckLabels(const std::map<std::string, std::string>& labels,
                         absl::string_view field_path);

}  // namespace wasserwarp

#endif  // WASSERWARP_LABELS_H_
