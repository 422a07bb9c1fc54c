// --server HOST:PORT and --session ID: which wasserwarp-server does the work, and on which of
// its sessions; --tls-ca, --tls-cert, --tls-key and --token-file (or the WASSERWARP_TOKEN
// environment variable): how the connection is secured and the caller authenticated.

#ifndef WASSERWARP_CLIENT_SERVER_FLAGS_H_
#define WASSERWARP_CLIENT_SERVER_FLAGS_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "args.h"
#include "flag_definition.h"
#include "validation_client.h"

namespace wasserwarp::cli {

// A command that means something particular by --server or --session describes it itself
// (DescribedAs).
inline constexpr DocumentedFlag kServerFlag = {"--server", Arity::kOne, "HOST:PORT",
                                               "the wasserwarp-server (required)"};
inline constexpr DocumentedFlag kSessionFlag = {
    "--session", Arity::kOne, "ID", "the session: lower-case letters, digits, '-', '_' and '.'"};
// Read when --token-file is not given: an explicit flag wins over the environment.
inline constexpr absl::string_view kTokenEnvironmentVariable = "WASSERWARP_TOKEN";

// --tls-ca, --tls-cert, --tls-key, --token-file, --insecure: the flags that secure the
// connection, for every command that takes --server.
std::vector<DocumentedFlag> SecurityFlags();
bool IsSecurityFlag(absl::string_view flag);

// The security the connection flags ask for: TLS when any --tls-* flag is given, and the
// token of --token-file, else of WASSERWARP_TOKEN, else none. Errors name the flag.
absl::StatusOr<client::ClientOptions> ConnectionOptions(const ParsedArgs& args);

// Connects to the server named by --server, as ConnectionOptions says; InvalidArgument when
// the flag is missing or not HOST:PORT, Unavailable ("cannot reach server ...") when nobody
// answers there.
absl::StatusOr<std::unique_ptr<client::ValidationClient>> ConnectToServer(
    const ParsedArgs& args, absl::string_view command);

// The value of --session; InvalidArgument naming `command` without it.
absl::StatusOr<std::string> RequiredSession(const ParsedArgs& args, absl::string_view command);

}  // namespace wasserwarp::cli

#endif  // WASSERWARP_CLIENT_SERVER_FLAGS_H_
