// The web view's certificate and key, swappable while civetweb serves. civetweb reads its
// ssl_certificate file once, when it starts; the gRPC port's files are reloaded when they change
// (TlsFiles, --credentials_refresh_interval). So civetweb's SSL_CTX gets a certificate callback
// that hands each new handshake the pair loaded last: a rotated pair is served from the next
// connection on, while connections already open keep theirs.

#ifndef WASSERWARP_SERVER_HTTP_HTTPS_IDENTITY_H_
#define WASSERWARP_SERVER_HTTP_HTTPS_IDENTITY_H_

#include <memory>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"

typedef struct ssl_ctx_st SSL_CTX;
typedef struct ssl_st SSL;

namespace wasserwarp::service::http {

class HttpsIdentity {
 public:
  // `pem_path`: the private key and the certificate chain in one PEM file (TlsFiles'
  // identity_path(), whose content is checked before it changes).
  explicit HttpsIdentity(std::string pem_path) : pem_path_(std::move(pem_path)) {}

  const std::string& pem_path() const { return pem_path_; }

  // Reads the file; on an error, naming the file and what is wrong, the pair in use stays.
  absl::Status Load();

  // Makes `ssl_ctx` (civetweb's, which must not outlive this) serve the pair loaded last.
  void ServeFrom(SSL_CTX* ssl_ctx);

 private:
  struct Pair;

  static int SelectCertificate(SSL* ssl, void* self);

  const std::string pem_path_;
  absl::Mutex mu_;
  // Shared so that a handshake keeps the pair it took while a reload replaces it.
  std::shared_ptr<const Pair> pair_ ABSL_GUARDED_BY(mu_);
};

}  // namespace wasserwarp::service::http

#endif  // WASSERWARP_SERVER_HTTP_HTTPS_IDENTITY_H_
