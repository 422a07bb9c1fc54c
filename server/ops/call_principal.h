// Who a call acts for: the principal its `authorization: Bearer <token>`
// metadata authenticates. Every ValidationService method asks this first;
// the health and reflection services do not, so probes need no token.

#ifndef WASSERWARP_SERVER_OPS_CALL_PRINCIPAL_H_
#define WASSERWARP_SERVER_OPS_CALL_PRINCIPAL_H_

#include <grpcpp/server_context.h>

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "ops/auth_tokens.h"

namespace wasserwarp::service {

// The principal of an `authorization` value, "Bearer <token>" (the scheme in any case), among
// `tokens`; Unauthenticated otherwise. The web view reads its Authorization header with it.
absl::StatusOr<std::string> PrincipalOfAuthorization(absl::string_view value,
                                                     const AuthTokens& tokens);

// With `tokens` null (no --auth_tokens_file) every call is the anonymous
// principal "". Otherwise Unauthenticated for a call without the metadata,
// with another scheme than Bearer, or with a token no principal holds.
absl::StatusOr<std::string> CallPrincipal(const grpc::CallbackServerContext& context,
                                          const AuthTokens* tokens);

}  // namespace wasserwarp::service

#endif  // WASSERWARP_SERVER_OPS_CALL_PRINCIPAL_H_
