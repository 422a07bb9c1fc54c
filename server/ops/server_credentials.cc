#include "ops/server_credentials.h"

#include <grpc/grpc_security_constants.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace wasserwarp::service {
namespace {

// gRPC reports a bad PEM file only as a failure to listen, without naming
// it; this names the flag and the path.
absl::StatusOr<std::string> ReadPem(const char* flag, const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return absl::InvalidArgumentError(
        absl::StrCat("--", flag, ": cannot read ", path, ": ", std::strerror(errno)));
  }
  std::ostringstream text;
  text << in.rdbuf();
  if (!absl::StrContains(text.str(), "-----BEGIN ")) {
    return absl::InvalidArgumentError(absl::StrCat("--", flag, ": ", path, " holds no PEM block"));
  }
  return text.str();
}

}  // namespace

absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> ServerCredentialsFor(
    const TlsConfig& tls) {
  if (tls.cert_file.empty()) return grpc::InsecureServerCredentials();
  absl::StatusOr<std::string> cert = ReadPem("tls_cert", tls.cert_file);
  if (!cert.ok()) return cert.status();
  absl::StatusOr<std::string> key = ReadPem("tls_key", tls.key_file);
  if (!key.ok()) return key.status();
  grpc::SslServerCredentialsOptions options(GRPC_SSL_DONT_REQUEST_CLIENT_CERTIFICATE);
  options.pem_key_cert_pairs.push_back({*std::move(key), *std::move(cert)});
  if (!tls.client_ca_file.empty()) {
    absl::StatusOr<std::string> client_ca = ReadPem("tls_client_ca", tls.client_ca_file);
    if (!client_ca.ok()) return client_ca.status();
    options.pem_root_certs = *std::move(client_ca);
    options.client_certificate_request = GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY;
  }
  return grpc::SslServerCredentials(options);
}

}  // namespace wasserwarp::service
