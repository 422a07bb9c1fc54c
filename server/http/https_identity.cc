#include "http/https_identity.h"

#include <openssl/bio.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include <utility>

#include "absl/strings/str_cat.h"

namespace wasserwarp::service::http {

struct HttpsIdentity::Pair {
  X509* cert = nullptr;
  STACK_OF(X509) * chain = sk_X509_new_null();
  EVP_PKEY* key = nullptr;

  Pair() = default;
  Pair(const Pair&) = delete;
  Pair& operator=(const Pair&) = delete;
  ~Pair() {
    X509_free(cert);
    sk_X509_pop_free(chain, X509_free);
    EVP_PKEY_free(key);
  }
};

absl::Status HttpsIdentity::Load() {
  const auto error = [this](const char* what) {
    return absl::InvalidArgumentError(
        absl::StrCat("the web view's certificate and key (", pem_path_, "): ", what));
  };
  auto pair = std::make_shared<Pair>();
  // The PEM readers skip the blocks of other kinds: one pass for the key, one for the chain.
  BIO* in = BIO_new_file(pem_path_.c_str(), "r");
  if (in == nullptr) return error("cannot be read");
  pair->key = PEM_read_bio_PrivateKey(in, nullptr, nullptr, nullptr);
  BIO_free(in);
  in = BIO_new_file(pem_path_.c_str(), "r");
  if (in == nullptr) return error("cannot be read");
  pair->cert = PEM_read_bio_X509(in, nullptr, nullptr, nullptr);
  while (pair->cert != nullptr) {
    X509* next = PEM_read_bio_X509(in, nullptr, nullptr, nullptr);
    if (next == nullptr) break;
    sk_X509_push(pair->chain, next);
  }
  BIO_free(in);
  if (pair->key == nullptr) return error("holds no private key that parses");
  if (pair->cert == nullptr) return error("holds no certificate that parses");
  if (X509_check_private_key(pair->cert, pair->key) != 1) {
    return error("the key is not the certificate's");
  }
  absl::MutexLock lock(&mu_);
  pair_ = std::move(pair);
  return absl::OkStatus();
}

void HttpsIdentity::ServeFrom(SSL_CTX* ssl_ctx) {
  SSL_CTX_set_cert_cb(ssl_ctx, &HttpsIdentity::SelectCertificate, this);
}

int HttpsIdentity::SelectCertificate(SSL* ssl, void* self) {
  HttpsIdentity& identity = *static_cast<HttpsIdentity*>(self);
  std::shared_ptr<const Pair> pair;
  {
    absl::MutexLock lock(&identity.mu_);
    pair = identity.pair_;
  }
  // Without a pair the context's own (civetweb's ssl_certificate) serves.
  if (pair == nullptr) return 1;
  // The connection takes references of its own: the pair may go before the connection does.
  return SSL_use_cert_and_key(ssl, pair->cert, pair->key, pair->chain, /*override=*/1);
}

}  // namespace wasserwarp::service::http
