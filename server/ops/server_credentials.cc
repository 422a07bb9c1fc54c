#include "ops/server_credentials.h"

#include <grpc/grpc_security_constants.h>
#include <grpcpp/security/tls_certificate_provider.h>
#include <grpcpp/security/tls_credentials_options.h>

#include <algorithm>
#include <cstdint>
#include <string>

namespace wasserwarp::service {

std::shared_ptr<grpc::ServerCredentials> ServerCredentialsFor(const TlsFiles* files,
                                                              absl::Duration refresh) {
  if (files == nullptr) return grpc::InsecureServerCredentials();
  const std::string client_ca = files->client_ca_path();
  // The identity file holds the key and the chain: OpenSSL finds each by its PEM label.
  auto provider = std::make_shared<grpc::experimental::FileWatcherCertificateProvider>(
      files->identity_path(), files->identity_path(), client_ca,
      static_cast<unsigned int>(std::max<int64_t>(1, absl::ToInt64Seconds(refresh))));
  grpc::experimental::TlsServerCredentialsOptions options(provider);
  options.watch_identity_key_cert_pairs();
  if (client_ca.empty()) {
    options.set_cert_request_type(GRPC_SSL_DONT_REQUEST_CLIENT_CERTIFICATE);
  } else {
    options.watch_root_certs();
    options.set_cert_request_type(GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY);
  }
  return grpc::experimental::TlsServerCredentials(options);
}

}  // namespace wasserwarp::service
