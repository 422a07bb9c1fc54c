// The transport security of the listening port, from the --tls_* flags:
// plaintext, TLS, or mutual TLS.

#ifndef WASSERWARP_SERVER_OPS_SERVER_CREDENTIALS_H_
#define WASSERWARP_SERVER_OPS_SERVER_CREDENTIALS_H_

#include <grpcpp/security/server_credentials.h>

#include <memory>

#include "absl/status/statusor.h"
#include "ops/server_config.h"

namespace wasserwarp::service {

// Insecure credentials without a certificate; otherwise TLS with the
// certificate and key, requiring and verifying a client certificate when a
// client CA is set. InvalidArgument naming the flag and file for a file that
// cannot be read or holds no PEM block.
absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> ServerCredentialsFor(const TlsConfig& tls);

}  // namespace wasserwarp::service

#endif  // WASSERWARP_SERVER_OPS_SERVER_CREDENTIALS_H_
