// --server HOST:PORT and --session ID: which wasserwarp-server does the work, and on which of
// its sessions; --tls-ca, --tls-cert, --tls-key and --token-file (or the WASSERWARP_TOKEN
// environment variable): how the connection is secured and the caller authenticated.

#ifndef WASSERWARP_CLIENT_SERVER_FLAGS_H_
#define WASSERWARP_CLIENT_SERVER_FLAGS_H_

#include <array>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "args.h"
#include "validation_client.h"

namespace wasserwarp::cli {

inline constexpr FlagSpec kServerFlag = {"--server", Arity::kOne};
inline constexpr FlagSpec kSessionFlag = {"--session", Arity::kOne};
inline constexpr FlagSpec kTlsCaFlag = {"--tls-ca", Arity::kOne};
inline constexpr FlagSpec kTlsCertFlag = {"--tls-cert", Arity::kOne};
inline constexpr FlagSpec kTlsKeyFlag = {"--tls-key", Arity::kOne};
inline constexpr FlagSpec kTokenFileFlag = {"--token-file", Arity::kOne};
// Read when --token-file is not given: an explicit flag wins over the environment.
inline constexpr absl::string_view kTokenEnvironmentVariable = "WASSERWARP_TOKEN";

// The flags that secure the connection, for every command that takes --server.
inline constexpr std::array<FlagSpec, 4> kSecurityFlags = {kTlsCaFlag, kTlsCertFlag, kTlsKeyFlag,
                                                           kTokenFileFlag};
bool IsSecurityFlag(absl::string_view flag);
inline constexpr absl::string_view kSecurityFlagsUsage =
    "  --tls-ca FILE        use TLS, trusting the server's certificate if this CA (PEM)\n"
    "                       signed it (without it, TLS trusts the system's CAs)\n"
    "  --tls-cert FILE      use TLS and present this client certificate (PEM), for a\n"
    "                       server that requires one; with --tls-key\n"
    "  --tls-key FILE       the private key (PEM) of --tls-cert\n"
    "  --token-file FILE    the access token for a server with access control (default:\n"
    "                       the WASSERWARP_TOKEN environment variable)\n";

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
