// Resource names of the service: `sessions/{session_id}`.

#ifndef WASSERWARP_WIRE_RESOURCE_NAMES_H_
#define WASSERWARP_WIRE_RESOURCE_NAMES_H_

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace wasserwarp::wire {

// InvalidArgument unless `id` matches [a-z0-9][a-z0-9-_.]{0,62}.
absl::Status ValidateSessionId(absl::string_view id);

// `sessions/{session_id}`.
std::string SessionName(absl::string_view id);

// The session id of `sessions/{session_id}`; InvalidArgument naming `field`
// for anything else.
absl::StatusOr<std::string> SessionIdFromName(absl::string_view name, absl::string_view field);

// `sessions/{session_id}/validations/{validation_id}`.
std::string ValidationName(absl::string_view session_id, absl::string_view validation_id);

// The session and validation ids of a validation's name; InvalidArgument naming `field` for
// anything else. Validation ids follow the session ids' rule.
struct ValidationIds {
  std::string session_id;
  std::string validation_id;
};
absl::StatusOr<ValidationIds> ValidationIdsFromName(absl::string_view name,
                                                    absl::string_view field);

// The id in a name the service sent, which is well formed: `name` without its prefix.
absl::string_view SessionIdOf(absl::string_view name);

}  // namespace wasserwarp::wire

#endif  // WASSERWARP_WIRE_RESOURCE_NAMES_H_
