// --server HOST:PORT and --session ID: which wasserwarp-server does the work, and on which of
// its sessions.

#ifndef WASSERWARP_CLIENT_SERVER_FLAGS_H_
#define WASSERWARP_CLIENT_SERVER_FLAGS_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "args.h"
#include "validation_client.h"

namespace wasserwarp::cli {

inline constexpr FlagSpec kServerFlag = {"--server", Arity::kOne};
inline constexpr FlagSpec kSessionFlag = {"--session", Arity::kOne};

// Connects to the server named by --server; InvalidArgument when the flag is missing or not
// HOST:PORT, Unavailable ("cannot reach server ...") when nobody answers there.
absl::StatusOr<std::unique_ptr<client::ValidationClient>> ConnectToServer(
    const ParsedArgs& args, absl::string_view command);

// The value of --session; InvalidArgument naming `command` without it.
absl::StatusOr<std::string> RequiredSession(const ParsedArgs& args, absl::string_view command);

}  // namespace wasserwarp::cli

#endif  // WASSERWARP_CLIENT_SERVER_FLAGS_H_
