// Who a call acts for: the principal its `authorization: Bearer <token>`
// metadata authenticates, or its client certificate (certificate_principal.h).
// Every ValidationService method asks this first; the health and reflection
// services do not, so probes need no token.
//
// The rule, with tokens (T) and mutual TLS (M) configured:
//   neither: every call is the anonymous principal "".
//   T only:  a call needs a valid token, which gives the principal.
//   M only:  the client certificate gives the principal.
//   T and M: a token, when sent, must be valid and gives the principal; a call without one
//            is admitted by its certificate only when --tls_principal_map lists it (without
//            a map every call needs a token, the certificate only admits the connection).

#ifndef WASSERWARP_SERVER_OPS_CALL_PRINCIPAL_H_
#define WASSERWARP_SERVER_OPS_CALL_PRINCIPAL_H_

#include <grpcpp/server_context.h>

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "ops/auth_tokens.h"
#include "ops/certificate_principal.h"

namespace wasserwarp::service {

// The principal of an `authorization` value, "Bearer <token>" (the scheme in any case), among
// `tokens`; Unauthenticated otherwise. The web view reads its Authorization header with it.
absl::StatusOr<std::string> PrincipalOfAuthorization(absl::string_view value,
                                                     const AuthTokens& tokens);

// The rule above over the tokens and certificate principals in use (either may be null:
// not configured). Thread-safe; the tokens reload underneath.
class CallAuthenticator {
 public:
  CallAuthenticator(const AuthTokens* tokens, const CertificatePrincipals* certificates)
      : tokens_(tokens), certificates_(certificates) {}

  absl::StatusOr<std::string> PrincipalOf(const grpc::CallbackServerContext& context) const;

 private:
  const AuthTokens* const tokens_;
  const CertificatePrincipals* const certificates_;
};

// `authenticator`'s principal of the call; the anonymous principal "" for a null one.
// Unauthenticated, saying why, otherwise.
absl::StatusOr<std::string> CallPrincipal(const grpc::CallbackServerContext& context,
                                          const CallAuthenticator* authenticator);

}  // namespace wasserwarp::service

#endif  // WASSERWARP_SERVER_OPS_CALL_PRINCIPAL_H_
