#include "server_flags.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace wasserwarp::cli {

absl::StatusOr<std::unique_ptr<client::ValidationClient>> ConnectToServer(
    const ParsedArgs& args, absl::string_view command) {
  const std::string* target = args.Value(kServerFlag.name);
  if (target == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(command, ": --server HOST:PORT is required"));
  }
  if (!absl::StrContains(*target, ':')) {
    return FlagError(kServerFlag.name, absl::StrCat("expected HOST:PORT, got \"", *target, "\""));
  }
  return client::ValidationClient::Connect(*target);
}

absl::StatusOr<std::string> RequiredSession(const ParsedArgs& args, absl::string_view command) {
  const std::string* session = args.Value(kSessionFlag.name);
  if (session == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(command, ": --session ID is required"));
  }
  return *session;
}

}  // namespace wasserwarp::cli
