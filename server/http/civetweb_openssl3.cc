#include "http/civetweb_openssl3.h"

#include <dlfcn.h>

#include <atomic>
#include <cstring>

namespace {

using DlsymFunction = void* (*)(void*, const char*);

// glibc's dlsym, found by version so that this dlsym is not found again. No function-local
// static: sanitizer runtimes call dlsym while they start, before guard variables may be used.
DlsymFunction RealDlsym() {
  static std::atomic<DlsymFunction> real{nullptr};
  DlsymFunction found = real.load(std::memory_order_acquire);
  if (found != nullptr) return found;
  void* symbol = dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.34");
  if (symbol == nullptr) symbol = dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.2.5");
  found = reinterpret_cast<DlsymFunction>(symbol);
  real.store(found, std::memory_order_release);
  return found;
}

}  // namespace

// Every library's dlsym resolves here, the executable's definition coming first. A lookup with
// RTLD_NEXT is answered relative to the server's executable rather than to its caller's library,
// which is the same for every library the server loads: none of them interposes another's
// symbols.
extern "C" void* dlsym(void* __restrict handle, const char* __restrict name) noexcept {
  const DlsymFunction real = RealDlsym();
  if (real == nullptr) return nullptr;
  void* found = real(handle, name);
  if (found == nullptr && std::strcmp(name, "SSL_get_peer_certificate") == 0) {
    found = real(handle, "SSL_get1_peer_certificate");
  }
  return found;
}

namespace wasserwarp::service::http {

bool PeerCertificateLookupWorks() {
  void* ssl = dlopen("libssl.so", RTLD_LAZY);
  if (ssl == nullptr) ssl = dlopen("libssl.so.3", RTLD_LAZY);
  if (ssl == nullptr) return false;
  const bool works = dlsym(ssl, "SSL_get_peer_certificate") != nullptr;
  dlclose(ssl);
  return works;
}

}  // namespace wasserwarp::service::http
