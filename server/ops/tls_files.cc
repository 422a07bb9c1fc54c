#include "ops/tls_files.h"

#include <openssl/bio.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <tuple>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "ops/flag_file.h"

namespace wasserwarp::service {
namespace {

// gRPC reports a bad PEM file only as a failure to listen, without naming
// it; this names the flag and the path.
absl::StatusOr<std::string> ReadPem(const char* flag, const std::string& path) {
  absl::StatusOr<std::string> text = ReadFlagFile(flag, path);
  if (!text.ok()) return text.status();
  if (!absl::StrContains(*text, "-----BEGIN ")) {
    return absl::InvalidArgumentError(absl::StrCat("--", flag, ": ", path, " holds no PEM block"));
  }
  return text;
}

struct BioFree {
  void operator()(BIO* bio) const { BIO_free(bio); }
};
struct X509Free {
  void operator()(X509* cert) const { X509_free(cert); }
};
struct KeyFree {
  void operator()(EVP_PKEY* key) const { EVP_PKEY_free(key); }
};

std::unique_ptr<BIO, BioFree> Bio(const std::string& pem) {
  return std::unique_ptr<BIO, BioFree>(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
}

// The first certificate of `pem`, as gRPC's OpenSSL reads it.
std::unique_ptr<X509, X509Free> FirstCertificate(const std::string& pem) {
  return std::unique_ptr<X509, X509Free>(
      PEM_read_bio_X509(Bio(pem).get(), nullptr, nullptr, nullptr));
}

// A memfd holding `content`; -1 with errno set on failure.
int MemoryFile(const char* name, const std::string& content) {
  const int fd = memfd_create(name, MFD_CLOEXEC);
  if (fd < 0) return -1;
  size_t written = 0;
  while (written < content.size()) {
    const ssize_t n = write(fd, content.data() + written, content.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      close(fd);
      return -1;
    }
    written += static_cast<size_t>(n);
  }
  return fd;
}

// `content` into the memfd numbered `fd`, replaced whole (dup2), so that a reader sees the old
// content or the new, never a part of either.
absl::Status Replace(int fd, const char* name, const std::string& content) {
  const int fresh = MemoryFile(name, content);
  if (fresh < 0 || dup2(fresh, fd) < 0) {
    const absl::Status error =
        absl::InternalError(absl::StrCat("cannot hold TLS ", name, ": ", std::strerror(errno)));
    if (fresh >= 0) close(fresh);
    return error;
  }
  close(fresh);
  return absl::OkStatus();
}

std::string FdPath(int fd) { return fd < 0 ? "" : absl::StrCat("/proc/self/fd/", fd); }

}  // namespace

absl::StatusOr<TlsFiles::Contents> TlsFiles::Read(const TlsConfig& tls) {
  Contents contents;
  for (auto [flag, path, text] :
       {std::tuple{"tls_cert", &tls.cert_file, &contents.cert},
        std::tuple{"tls_key", &tls.key_file, &contents.key},
        std::tuple{"tls_client_ca", &tls.client_ca_file, &contents.client_ca}}) {
    if (path->empty()) continue;
    absl::StatusOr<std::string> pem = ReadPem(flag, *path);
    if (!pem.ok()) return pem.status();
    *text = *std::move(pem);
  }
  return contents;
}

absl::StatusOr<TlsFiles::Contents> TlsFiles::Check(Contents contents, const TlsConfig& tls) {
  const std::unique_ptr<X509, X509Free> cert = FirstCertificate(contents.cert);
  if (cert == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("--tls_cert: ", tls.cert_file, " holds no certificate OpenSSL can read"));
  }
  const std::unique_ptr<EVP_PKEY, KeyFree> key(
      PEM_read_bio_PrivateKey(Bio(contents.key).get(), nullptr, nullptr, nullptr));
  if (key == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("--tls_key: ", tls.key_file, " holds no private key OpenSSL can read"));
  }
  if (X509_check_private_key(cert.get(), key.get()) != 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("--tls_key: ", tls.key_file, " is not the key of --tls_cert ", tls.cert_file));
  }
  if (!tls.client_ca_file.empty() && FirstCertificate(contents.client_ca) == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat("--tls_client_ca: ", tls.client_ca_file,
                                                   " holds no certificate OpenSSL can read"));
  }
  return contents;
}

absl::StatusOr<std::unique_ptr<TlsFiles>> TlsFiles::Open(const TlsConfig& tls) {
  absl::StatusOr<Contents> read = Read(tls);
  if (!read.ok()) return read.status();
  absl::StatusOr<Contents> contents = Check(*std::move(read), tls);
  if (!contents.ok()) return contents.status();
  const int identity = MemoryFile("tls-identity", contents->key + "\n" + contents->cert);
  const int client_ca =
      tls.client_ca_file.empty() ? -1 : MemoryFile("tls-client-ca", contents->client_ca);
  if (identity < 0 || (!tls.client_ca_file.empty() && client_ca < 0)) {
    const absl::Status error =
        absl::InternalError(absl::StrCat("cannot hold the TLS files: ", std::strerror(errno)));
    if (identity >= 0) close(identity);
    if (client_ca >= 0) close(client_ca);
    return error;
  }
  return std::unique_ptr<TlsFiles>(new TlsFiles(tls, *std::move(contents), identity, client_ca));
}

TlsFiles::TlsFiles(TlsConfig tls, Contents contents, int identity_fd, int client_ca_fd)
    : tls_(std::move(tls)),
      last_(std::move(contents)),
      identity_fd_(identity_fd),
      client_ca_fd_(client_ca_fd) {}

TlsFiles::~TlsFiles() {
  close(identity_fd_);
  if (client_ca_fd_ >= 0) close(client_ca_fd_);
}

std::string TlsFiles::identity_path() const { return FdPath(identity_fd_); }
std::string TlsFiles::client_ca_path() const { return FdPath(client_ca_fd_); }

absl::StatusOr<bool> TlsFiles::RefreshIfChanged() {
  absl::MutexLock lock(&mu_);
  absl::StatusOr<Contents> read = Read(tls_);
  if (!read.ok()) return read.status();
  if (*read == last_) return false;
  last_ = *read;
  absl::StatusOr<Contents> contents = Check(*std::move(read), tls_);
  if (!contents.ok()) return contents.status();
  if (absl::Status status =
          Replace(identity_fd_, "tls-identity", contents->key + "\n" + contents->cert);
      !status.ok()) {
    return status;
  }
  if (client_ca_fd_ >= 0) {
    if (absl::Status status = Replace(client_ca_fd_, "tls-client-ca", contents->client_ca);
        !status.ok()) {
      return status;
    }
  }
  return true;
}

}  // namespace wasserwarp::service
