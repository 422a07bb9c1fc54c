// How a client proves itself to a wasserwarp-server and checks the server:
// TLS or mutual TLS for the channel, and the bearer token sent with every
// call for the server's access control.

#ifndef WASSERWARP_CLIENT_CHANNEL_SECURITY_H_
#define WASSERWARP_CLIENT_CHANNEL_SECURITY_H_

#include <grpcpp/security/credentials.h>
#include <grpcpp/support/client_interceptor.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace wasserwarp::client {

// Paths of PEM files.
struct ClientTls {
  // The CA that signed the server's certificate; empty: the system's roots.
  std::string ca_file;
  // Both or neither: the client certificate a mutual-TLS server requires.
  std::string cert_file;
  std::string key_file;
};

// Insecure credentials without `tls`, TLS credentials otherwise.
// InvalidArgument naming the file for one that cannot be read or holds no
// PEM block, or for a certificate without its key.
absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>> ChannelCredentialsFor(
    const std::optional<ClientTls>& tls);

// FailedPrecondition, naming `target`'s host and what to do, when a `token` would go in
// plaintext (no `tls`) to a host that is not loopback (wire/loopback_address.h) and the
// caller did not say `insecure`: anyone on the path could read it. Checked before any
// connection is made.
absl::Status PlaintextTokenCheck(absl::string_view target, bool has_tls, absl::string_view token,
                                 bool insecure);

// Interceptors that send `authorization: Bearer <token>` with every call of a
// channel; none for an empty token. Per-call metadata rather than call
// credentials, because gRPC sends call credentials over TLS only and a
// token also works on a plaintext channel (behind a TLS-terminating proxy).
std::vector<std::unique_ptr<grpc::experimental::ClientInterceptorFactoryInterface>>
BearerTokenInterceptors(const std::string& token);

// Interceptors that send `authorization: <header>` with every call, the value as it stands
// (whatever its scheme or spelling); none for an empty header.
std::vector<std::unique_ptr<grpc::experimental::ClientInterceptorFactoryInterface>>
AuthorizationInterceptors(const std::string& header);

}  // namespace wasserwarp::client

#endif  // WASSERWARP_CLIENT_CHANNEL_SECURITY_H_
