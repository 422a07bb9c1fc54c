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

absl::StatusOr<std::string> CallAuthenticator::PrincipalOf(
    const grpc::CallbackServerContext& context) const {
  const auto& metadata = context.client_metadata();
  const auto [first, last] = metadata.equal_range("authorization");
  if (first == last) {
    if (certificates_ != nullptr && (tokens_ == nullptr || certificates_->has_map())) {
      return certificates_->PrincipalOf(*context.auth_context());
    }
    if (tokens_ == nullptr) return std::string();
    return absl::UnauthenticatedError(
        "this server requires an access token: send \"authorization: Bearer <token>\" metadata "
        "(wasserwarp --token-file FILE or WASSERWARP_TOKEN)");
  }
  if (tokens_ == nullptr) {
    // A token where none is configured proves nothing; the certificate still decides.
    if (certificates_ != nullptr) return certificates_->PrincipalOf(*context.auth_context());
    return std::string();
  }
  if (std::next(first) != last) {
    return absl::UnauthenticatedError("the call carries more than one authorization header");
  }
  return PrincipalOfAuthorization(absl::string_view(first->second.data(), first->second.size()),
                                  *tokens_);
}

absl::StatusOr<std::string> CallPrincipal(const grpc::CallbackServerContext& context,
                                          const CallAuthenticator* authenticator) {
  if (authenticator == nullptr) return std::string();
  return authenticator->PrincipalOf(context);
}

}  // namespace wasserwarp::service
