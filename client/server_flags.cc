#include "server_flags.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <optional>
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

absl::StatusOr<std::string> TokenFromFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return FlagError(kTokenFileFlag.name,
                     absl::StrCat("cannot read ", path, ": ", std::strerror(errno)));
  }
  std::ostringstream text;
  text << in.rdbuf();
  const std::string content = text.str();
  // Editors end a file with a line break; it is not part of the token.
  const absl::string_view token = absl::StripAsciiWhitespace(content);
  if (!IsTokenText(token)) {
    return FlagError(kTokenFileFlag.name,
                     absl::StrCat(path, " must hold one token: printable ASCII without spaces"));
  }
  return std::string(token);
}

// The token to send: --token-file's, else WASSERWARP_TOKEN's, else none.
absl::StatusOr<std::string> Token(const ParsedArgs& args) {
  if (const std::string* path = args.Value(kTokenFileFlag.name)) return TokenFromFile(*path);
  const char* environment = std::getenv(std::string(kTokenEnvironmentVariable).c_str());
  if (environment == nullptr || *environment == '\0') return std::string();
  const absl::string_view token = absl::StripAsciiWhitespace(environment);
  if (!IsTokenText(token)) {
    return absl::InvalidArgumentError(absl::StrCat(
        kTokenEnvironmentVariable, " must hold one token: printable ASCII without spaces"));
  }
  return std::string(token);
}

std::optional<client::ClientTls> Tls(const ParsedArgs& args) {
  const std::string* ca = args.Value(kTlsCaFlag.name);
  const std::string* cert = args.Value(kTlsCertFlag.name);
  const std::string* key = args.Value(kTlsKeyFlag.name);
  if (ca == nullptr && cert == nullptr && key == nullptr) return std::nullopt;
  client::ClientTls tls;
  if (ca != nullptr) tls.ca_file = *ca;
  if (cert != nullptr) tls.cert_file = *cert;
  if (key != nullptr) tls.key_file = *key;
  return tls;
}

}  // namespace

bool IsSecurityFlag(absl::string_view flag) {
  for (const FlagSpec& spec : kSecurityFlags) {
    if (spec.name == flag) return true;
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
  options.tls = Tls(args);
  absl::StatusOr<std::string> token = Token(args);
  if (!token.ok()) return token.status();
  options.token = *std::move(token);
  return options;
}

absl::StatusOr<std::unique_ptr<client::ValidationClient>> ConnectToServer(
    const ParsedArgs& args, absl::string_view command) {
  const std::string* target = args.Value(kServerFlag.name);
  if (target == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(command, ": --server HOST:PORT is required"));
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
    return absl::InvalidArgumentError(absl::StrCat(command, ": --session ID is required"));
  }
  return *session;
}

}  // namespace wasserwarp::cli
