#include "wasserwarp/sha256.h"

#include <openssl/evp.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace wasserwarp {
namespace {

struct DigestContextDeleter {
  void operator()(EVP_MD_CTX* context) const { EVP_MD_CTX_free(context); }
};
using DigestContext = std::unique_ptr<EVP_MD_CTX, DigestContextDeleter>;

struct FileCloser {
  void operator()(std::FILE* file) const { std::fclose(file); }
};

// EVP fails only when it cannot allocate or the algorithm is missing, which is no input's fault.
absl::Status DigestFailed() { return absl::InternalError("SHA-256 with OpenSSL's EVP API failed"); }

// OpenSSL 3 looks EVP_sha256() up among its providers on every EVP_DigestInit_ex, under a lock;
// fetched once, the algorithm serves every digest (a folder of 4000 run files is 4000 digests).
const EVP_MD* Sha256Algorithm() {
  static const EVP_MD* const algorithm = EVP_MD_fetch(nullptr, "SHA256", nullptr);
  return algorithm;
}

absl::StatusOr<DigestContext> NewSha256() {
  const EVP_MD* algorithm = Sha256Algorithm();
  DigestContext context(EVP_MD_CTX_new());
  if (context == nullptr || algorithm == nullptr ||
      EVP_DigestInit_ex(context.get(), algorithm, nullptr) != 1) {
    return DigestFailed();
  }
  return context;
}

absl::StatusOr<std::string> FinishHex(EVP_MD_CTX* context) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  if (EVP_DigestFinal_ex(context, digest, &size) != 1) return DigestFailed();
  static constexpr char kHex[] = "0123456789abcdef";
  std::string hex;
  hex.reserve(2 * size);
  for (unsigned int i = 0; i < size; ++i) {
    hex.push_back(kHex[digest[i] >> 4]);
    hex.push_back(kHex[digest[i] & 0xf]);
  }
  return hex;
}

}  // namespace

std::string Sha256Hex(std::string_view bytes) {
  absl::StatusOr<DigestContext> context = NewSha256();
  absl::StatusOr<std::string> hex = DigestFailed();
  if (context.ok() && EVP_DigestUpdate(context->get(), bytes.data(), bytes.size()) == 1) {
    hex = FinishHex(context->get());
  }
  // Only an OpenSSL without SHA-256, or out of memory: nothing a caller could handle.
  if (!hex.ok()) std::abort();
  return *std::move(hex);
}

absl::StatusOr<std::string> FileSha256(const std::string& path) {
  std::unique_ptr<std::FILE, FileCloser> file(std::fopen(path.c_str(), "rb"));
  if (file == nullptr) {
    return absl::ErrnoToStatus(errno, absl::StrCat(path, ": cannot open"));
  }
  absl::StatusOr<DigestContext> context = NewSha256();
  if (!context.ok()) return context.status();
  char buffer[1 << 16];
  for (;;) {
    const size_t read = std::fread(buffer, 1, sizeof(buffer), file.get());
    if (read > 0 && EVP_DigestUpdate(context->get(), buffer, read) != 1) return DigestFailed();
    if (read < sizeof(buffer)) break;
  }
  if (std::ferror(file.get())) {
    return absl::ErrnoToStatus(errno, absl::StrCat(path, ": cannot read"));
  }
  return FinishHex(context->get());
}

bool IsSha256Hex(std::string_view text) {
  if (text.size() != 64) return false;
  for (char c : text) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

}  // namespace wasserwarp
