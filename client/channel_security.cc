#include "channel_security.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "wire/loopback_address.h"

namespace wasserwarp::client {
namespace {

absl::StatusOr<std::string> ReadPem(const char* what, const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot read TLS ", what, " ", path, ": ", std::strerror(errno)));
  }
  std::ostringstream text;
  text << in.rdbuf();
  if (!absl::StrContains(text.str(), "-----BEGIN ")) {
    return absl::InvalidArgumentError(absl::StrCat("TLS ", what, " ", path, " holds no PEM block"));
  }
  return text.str();
}

class AuthorizationInterceptor final : public grpc::experimental::Interceptor {
 public:
  explicit AuthorizationInterceptor(std::string header) : header_(std::move(header)) {}

  void Intercept(grpc::experimental::InterceptorBatchMethods* methods) override {
    if (methods->QueryInterceptionHookPoint(
            grpc::experimental::InterceptionHookPoints::PRE_SEND_INITIAL_METADATA)) {
      methods->GetSendInitialMetadata()->emplace("authorization", header_);
    }
    methods->Proceed();
  }

 private:
  const std::string header_;
};

// One interceptor per call, each with its own copy of the header.
class AuthorizationInterceptorFactory final
    : public grpc::experimental::ClientInterceptorFactoryInterface {
 public:
  explicit AuthorizationInterceptorFactory(std::string header) : header_(std::move(header)) {}

  grpc::experimental::Interceptor* CreateClientInterceptor(
      grpc::experimental::ClientRpcInfo*) override {
    return new AuthorizationInterceptor(header_);
  }

 private:
  const std::string header_;
};

}  // namespace

absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>> ChannelCredentialsFor(
    const std::optional<ClientTls>& tls) {
  if (!tls.has_value()) return grpc::InsecureChannelCredentials();
  if (tls->cert_file.empty() != tls->key_file.empty()) {
    return absl::InvalidArgumentError(tls->cert_file.empty()
                                          ? "a TLS client key needs its certificate"
                                          : "a TLS client certificate needs its key");
  }
  grpc::SslCredentialsOptions options;
  if (!tls->ca_file.empty()) {
    absl::StatusOr<std::string> ca = ReadPem("CA", tls->ca_file);
    if (!ca.ok()) return ca.status();
    options.pem_root_certs = *std::move(ca);
  }
  if (!tls->cert_file.empty()) {
    absl::StatusOr<std::string> cert = ReadPem("certificate", tls->cert_file);
    if (!cert.ok()) return cert.status();
    absl::StatusOr<std::string> key = ReadPem("key", tls->key_file);
    if (!key.ok()) return key.status();
    options.pem_cert_chain = *std::move(cert);
    options.pem_private_key = *std::move(key);
  }
  return grpc::SslCredentials(options);
}

absl::Status PlaintextTokenCheck(absl::string_view target, bool has_tls, absl::string_view token,
                                 bool insecure) {
  if (has_tls || token.empty() || insecure || wire::IsLoopbackAddress(target)) {
    return absl::OkStatus();
  }
  return absl::FailedPreconditionError(absl::StrCat(
      "refusing to send the access token in plaintext to ", wire::HostOfAddress(target),
      ", which is not a loopback address: use TLS (--tls-ca FILE; ClientOptions::tls), or "
      "--insecure (ClientOptions::insecure) if a TLS-terminating proxy or a trusted network "
      "protects the connection"));
}

std::vector<std::unique_ptr<grpc::experimental::ClientInterceptorFactoryInterface>>
BearerTokenInterceptors(const std::string& token) {
  if (token.empty()) return {};
  return AuthorizationInterceptors(absl::StrCat("Bearer ", token));
}

std::vector<std::unique_ptr<grpc::experimental::ClientInterceptorFactoryInterface>>
AuthorizationInterceptors(const std::string& header) {
  std::vector<std::unique_ptr<grpc::experimental::ClientInterceptorFactoryInterface>> factories;
  if (!header.empty())
    factories.push_back(std::make_unique<AuthorizationInterceptorFactory>(header));
  return factories;
}

}  // namespace wasserwarp::client
