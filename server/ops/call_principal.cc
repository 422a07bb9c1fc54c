#include "ops/call_principal.h"

#include <optional>
#include <string_view>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/string_view.h"

namespace wasserwarp::service {

absl::StatusOr<std::string> PrincipalOfAuthorization(absl::string_view value,
                                                     const AuthTokens& tokens) {
  constexpr absl::string_view kScheme = "bearer ";
  // The scheme is case-insensitive (RFC 7235).
  if (!absl::StartsWithIgnoreCase(value, kScheme)) {
    return absl::UnauthenticatedError("the authorization is not \"Bearer <token>\"");
  }
  value = absl::StripAsciiWhitespace(value.substr(kScheme.size()));
  std::optional<std::string> principal =
      tokens.PrincipalOf(std::string_view(value.data(), value.size()));
  // Says nothing about how close the token came, or whether it ever existed.
  if (!principal.has_value()) return absl::UnauthenticatedError("the access token is not valid");
  return *std::move(principal);
}

absl::StatusOr<std::string> CallPrincipal(const grpc::CallbackServerContext& context,
                                          const AuthTokens* tokens) {
  if (tokens == nullptr) return std::string();
  const auto& metadata = context.client_metadata();
  const auto [first, last] = metadata.equal_range("authorization");
  if (first == last) {
    return absl::UnauthenticatedError(
        "this server requires an access token: send \"authorization: Bearer <token>\" metadata "
        "(wasserwarp --token-file FILE or WASSERWARP_TOKEN)");
  }
  if (std::next(first) != last) {
    return absl::UnauthenticatedError("the call carries more than one authorization header");
  }
  return PrincipalOfAuthorization(absl::string_view(first->second.data(), first->second.size()),
                                  *tokens);
}

}  // namespace wasserwarp::service
