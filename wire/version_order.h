// The order of the values a label such as `version` takes across validation records, so that a
// model's history reads oldest to newest: 4.10.0 comes after 4.9.2, which a plain string order
// gets wrong.

#ifndef WASSERWARP_WIRE_VERSION_ORDER_H_
#define WASSERWARP_WIRE_VERSION_ORDER_H_

#include "absl/strings/string_view.h"

namespace wasserwarp::wire {

// Negative when `a` comes before `b`, zero when they are equal, positive after. Each value is
// split into runs of digits and runs of other characters; digit runs compare as numbers (any
// length, leading zeros ignored), other runs byte by byte, and a digit run comes before a
// non-digit run at the same position. A pre-release suffix ('-' or '~' and a letter: 4.2.0-rc1,
// 4.2.0~beta) comes before its release and before whatever else may follow the release there
// (4.2.0.1, 4.2.0-1); a value that is the start of the other otherwise comes first (4.2 before
// 4.2.1). RFC 3339 dates and times come out in time order, as their
// digits are zero-padded.
int CompareVersions(absl::string_view a, absl::string_view b);

}  // namespace wasserwarp::wire

#endif  // WASSERWARP_WIRE_VERSION_ORDER_H_
