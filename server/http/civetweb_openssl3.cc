#include "http/civetweb_openssl3.h"

#include <dlfcn.h>

namespace {

using DlsymFunction = void* (*)(void*, const char*) noexcept;

// Sanitizer runtimes call dlsym while they start, before their shadow memory or their
// bookkeeping of atomics and guard variables exists: what runs here must not be instrumented,
// nor call what is (no std::atomic, no function-local static, no libc string function).
// Clang's no_sanitize("thread") still traces function entries; disable_sanitizer_instrumentation
// leaves nothing, but clang 14's AddressSanitizer reads only no_sanitize.
#if defined(__clang__)
#define WASSERWARP_UNINSTRUMENTED \
  __attribute__((no_sanitize("address", "thread", "undefined"), disable_sanitizer_instrumentation))
#else
#define WASSERWARP_UNINSTRUMENTED __attribute__((no_sanitize("address", "thread", "undefined")))
#endif

DlsymFunction real_dlsym = nullptr;

// glibc's dlsym, found by version so that this dlsym is not found again.
WASSERWARP_UNINSTRUMENTED DlsymFunction RealDlsym() {
  DlsymFunction found = __atomic_load_n(&real_dlsym, __ATOMIC_ACQUIRE);
  if (found != nullptr) return found;
  void* symbol = dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.34");
  if (symbol == nullptr) symbol = dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.2.5");
  found = reinterpret_cast<DlsymFunction>(symbol);
  __atomic_store_n(&real_dlsym, found, __ATOMIC_RELEASE);
  return found;
}

WASSERWARP_UNINSTRUMENTED bool Equal(const char* a, const char* b) {
  while (*a != '\0' && *a == *b) {
    ++a;
    ++b;
  }
  return *a == *b;
}

}  // namespace

// Every library's dlsym resolves here, the executable's definition coming first. glibc answers
// RTLD_NEXT relative to the code that called dlsym, so every other lookup is a tail call (GCC and
// clang make it one from -O1; glibc's dlsym is taken as noexcept, so no cleanup stands in the
// way): glibc then sees this call's caller, as if this function were not there.
extern "C" WASSERWARP_UNINSTRUMENTED void* dlsym(void* __restrict handle,
                                                 const char* __restrict name) noexcept {
  const DlsymFunction real = RealDlsym();
  if (Equal(name, "SSL_get_peer_certificate")) {
    void* found = real(handle, name);
    return found != nullptr ? found : real(handle, "SSL_get1_peer_certificate");
  }
  return real(handle, name);
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
