// Resource names of the service: `sessions/{session_id}`.

#ifndef WASSERWARP_SERVER_RESOURCE_NAMES_H_
#define WASSERWARP_SERVER_RESOURCE_NAMES_H_

#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace wasserwarp::service {

// InvalidArgument unless `id` matches [a-z0-9][a-z0-9-_.]{0,62}.
absl::Status ValidateSessionId(std::string_view id);

std::string SessionName(std::string_view id);

// The session id of `sessions/{session_id}`; InvalidArgument naming `field`
// for anything else.
absl::StatusOr<std::string> SessionIdFromName(std::string_view name, std::string_view field);

}  // namespace wasserwarp::service

#endif  // WASSERWARP_SERVER_RESOURCE_NAMES_H_
