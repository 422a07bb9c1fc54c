// The TLS files of the gRPC port as gRPC reads them: checked copies in memory. gRPC's
// FileWatcherCertificateProvider re-reads its files on its own, but takes any new content,
// and a certificate that does not parse, or that its key does not match, stops every
// handshake. So it reads these copies instead (/proc/self/fd paths of memfds), and a copy
// takes new content only once OpenSSL has parsed it and matched the key to the certificate:
// a bad new file keeps the credentials in use.

#ifndef WASSERWARP_SERVER_OPS_TLS_FILES_H_
#define WASSERWARP_SERVER_OPS_TLS_FILES_H_

#include <memory>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "ops/server_config.h"

namespace wasserwarp::service {

class TlsFiles {
 public:
  // Reads and checks tls.cert_file, key_file and client_ca_file (when set); InvalidArgument
  // naming the flag and file for one that cannot be read, holds no PEM block, does not parse,
  // or a key that is not the certificate's.
  static absl::StatusOr<std::unique_ptr<TlsFiles>> Open(const TlsConfig& tls);
  ~TlsFiles();

  TlsFiles(const TlsFiles&) = delete;
  TlsFiles& operator=(const TlsFiles&) = delete;

  // The checked key and certificate chain, in one file so that gRPC never reads a key of one
  // version with the certificate of another; and the client CA's ("" without one).
  std::string identity_path() const;
  std::string client_ca_path() const;

  // Reads the files again; when their content changed and checks out, the copies take it (gRPC
  // serves it after its next read). True when they did; an error, the copies unchanged, naming
  // the file and what is wrong, reported once until the content changes again.
  absl::StatusOr<bool> RefreshIfChanged();

 private:
  struct Contents {
    std::string cert;
    std::string key;
    std::string client_ca;
    bool operator==(const Contents& other) const = default;
  };

  TlsFiles(TlsConfig tls, Contents contents, int identity_fd, int client_ca_fd);
  // The files' content, read and checked.
  static absl::StatusOr<Contents> Read(const TlsConfig& tls);
  static absl::StatusOr<Contents> Check(Contents contents, const TlsConfig& tls);

  const TlsConfig tls_;
  absl::Mutex mu_;
  // The content last read, checked or refused.
  Contents last_ ABSL_GUARDED_BY(mu_);
  // memfds; -1 for none. Their numbers never change: a refresh dup2s a new memfd onto them.
  const int identity_fd_;
  const int client_ca_fd_;
};

}  // namespace wasserwarp::service

#endif  // WASSERWARP_SERVER_OPS_TLS_FILES_H_
