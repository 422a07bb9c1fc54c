#include "server_flags.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace wasserwarp::cli {
namespace {

// What gRPC can send after "Bearer ": printable ASCII without spaces.
bool IsTokenText(absl::string_view token) {
  for (const char c : token) {
    if (c <= ' ' || c > '~') return false;
  }
  return !token.empty();
}

absl::StatusOr<std::string> TokenFromFile(absl::string_view flag, const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return FlagError(flag, absl::StrCat("cannot read ", path, ": ", std::strerror(errno)));
  std::ostringstream text;
  text << in.rdbuf();
  const std::string content = text.str();
  // Editors end a file with a line break; it is not part of the token.
  const absl::string_view token = absl::StripAsciiWhitespace(content);
  if (!IsTokenText(token)) {
    return FlagError(flag,
                     absl::StrCat(path, " must hold one token: printable ASCII without spaces"));
  }
  return std::string(token);
}

absl::StatusOr<std::string> TokenFromEnvironment() {
  const char* environment = std::getenv(std::string(kTokenEnvironmentVariable).c_str());
  if (environment == nullptr || *environment == '\0') return std::string();
  const absl::string_view token = absl::StripAsciiWhitespace(environment);
  if (!IsTokenText(token)) {
    return absl::InvalidArgumentError(absl::StrCat(
        kTokenEnvironmentVariable, " must hold one token: printable ASCII without spaces"));
  }
  return std::string(token);
}

// Any of the --tls-* flags asks for TLS; the files are read when the channel is made.
template <std::string client::ClientTls::*file>
absl::Status ReadTlsFile(absl::string_view flag, const ParsedArgs& args,
                         client::ClientOptions& options) {
  if (!options.tls.has_value()) options.tls.emplace();
  (*options.tls).*file = *args.Value(flag);
  return absl::OkStatus();
}

absl::Status ReadTokenFile(absl::string_view flag, const ParsedArgs& args,
                           client::ClientOptions& options) {
  absl::StatusOr<std::string> token = TokenFromFile(flag, *args.Value(flag));
  if (!token.ok()) return token.status();
  options.token = *std::move(token);
  return absl::OkStatus();
}

constexpr FlagDefinition<client::ClientOptions> kTlsCaFlag = {
    "--tls-ca", Arity::kOne, "FILE",
    "use TLS, trusting the server's certificate if this CA (PEM)\n"
    "signed it (without it, TLS trusts the system's CAs)",
    &ReadTlsFile<&client::ClientTls::ca_file>};
constexpr FlagDefinition<client::ClientOptions> kTlsCertFlag = {
    "--tls-cert", Arity::kOne, "FILE",
    "use TLS and present this client certificate (PEM), for a\n"
    "server that requires one; with --tls-key",
    &ReadTlsFile<&client::ClientTls::cert_file>};
constexpr FlagDefinition<client::ClientOptions> kTlsKeyFlag = {
    "--tls-key", Arity::kOne, "FILE", "the private key (PEM) of --tls-cert",
    &ReadTlsFile<&client::ClientTls::key_file>};
constexpr FlagDefinition<client::ClientOptions> kTokenFileFlag = {
    "--token-file", Arity::kOne, "FILE",
    "the access token for a server with access control (default:\n"
    "the WASSERWARP_TOKEN environment variable)",
    &ReadTokenFile};

absl::Status ReadInsecure(absl::string_view /*flag*/, const ParsedArgs& /*args*/,
                          client::ClientOptions& options) {
  options.insecure = true;
  return absl::OkStatus();
}

constexpr FlagDefinition<client::ClientOptions> kInsecureFlag = {
    "--insecure", Arity::kSwitch, "",
    "send the access token over plaintext to a host that is not\n"
    "loopback (behind a TLS-terminating proxy, on a trusted network)",
    &ReadInsecure};

constexpr FlagDefinition<client::ClientOptions> kSecurityFlags[] = {
    kTlsCaFlag, kTlsCertFlag, kTlsKeyFlag, kTokenFileFlag, kInsecureFlag};

}  // namespace

std::vector<DocumentedFlag> SecurityFlags() {
  return Documented<client::ClientOptions>(kSecurityFlags);
}

bool IsSecurityFlag(absl::string_view flag) {
  for (const DocumentedFlag& security : kSecurityFlags) {
    if (security.name == flag) return true;
  }
  return false;
}

absl::StatusOr<client::ClientOptions> ConnectionOptions(const ParsedArgs& args) {
  if (args.Has(kTlsCertFlag.name) != args.Has(kTlsKeyFlag.name)) {
    return args.Has(kTlsCertFlag.name)
               ? FlagError(kTlsCertFlag.name, "needs --tls-key, the certificate's private key")
               : FlagError(kTlsKeyFlag.name, "needs --tls-cert, the key's certificate");
  }
  client::ClientOptions options;
  if (absl::Status status = ReadFlags<client::ClientOptions>(kSecurityFlags, args, options);
      !status.ok()) {
    return status;
  }
  if (!args.Has(kTokenFileFlag.name)) {
    absl::StatusOr<std::string> token = TokenFromEnvironment();
    if (!token.ok()) return token.status();
    options.token = *std::move(token);
  }
  return options;
}

absl::StatusOr<std::unique_ptr<client::ValidationClient>> ConnectToServer(
    const ParsedArgs& args, absl::string_view command) {
  const std::string* target = args.Value(kServerFlag.name);
  if (target == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat(command, ": ", kServerFlag.name, " ", kServerFlag.value_name, " is required"));
  }
  if (!absl::StrContains(*target, ':')) {
    return FlagError(kServerFlag.name, absl::StrCat("expected HOST:PORT, got \"", *target, "\""));
  }
  absl::StatusOr<client::ClientOptions> options = ConnectionOptions(args);
  if (!options.ok()) return options.status();
  return client::ValidationClient::Connect(*target, *options);
}

absl::StatusOr<std::string> RequiredSession(const ParsedArgs& args, absl::string_view command) {
  const std::string* session = args.Value(kSessionFlag.name);
  if (session == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(command, ": ", kSessionFlag.name, " ",
                                                   kSessionFlag.value_name, " is required"));
  }
  return *session;
}

}  // namespace wasserwarp::cli
