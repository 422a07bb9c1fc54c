// The transport security of the listening port, from the --tls_* flags:
// plaintext, TLS, or mutual TLS. The certificate, its key and the client CA
// are re-read while the server runs (gRPC's FileWatcherCertificateProvider,
// over the checked copies of tls_files.h), so that a renewed certificate is
// served without a restart.

#ifndef WASSERWARP_SERVER_OPS_SERVER_CREDENTIALS_H_
#define WASSERWARP_SERVER_OPS_SERVER_CREDENTIALS_H_

#include <grpcpp/security/server_credentials.h>

#include <memory>

#include "absl/time/time.h"
#include "ops/tls_files.h"

namespace wasserwarp::service {

// Insecure credentials without `files` (no --tls_cert); otherwise TLS with
// their certificate and key, requiring and verifying a client certificate
// when they hold a client CA, the copies read again every `refresh` (whole
// seconds, at least one). `files` must outlive the server.
std::shared_ptr<grpc::ServerCredentials> ServerCredentialsFor(const TlsFiles* files,
                                                              absl::Duration refresh);

}  // namespace wasserwarp::service

#endif  // WASSERWARP_SERVER_OPS_SERVER_CREDENTIALS_H_
