#include "wasserwarp/large_buffer.h"

#include <sys/mman.h>

#include <cstdlib>

namespace wasserwarp {
namespace {

constexpr size_t kHugePageBytes = size_t{2} << 20;

}  // namespace

void* AllocateLargeBuffer(size_t bytes) {
  if (bytes < kLargeBufferBytes) return ::operator new(bytes);
  // aligned_alloc wants a multiple of the alignment; the rounding is under 2 MiB of at least 4.
  const size_t rounded = (bytes + kHugePageBytes - 1) / kHugePageBytes * kHugePageBytes;
  void* buffer = std::aligned_alloc(kHugePageBytes, rounded);
  if (buffer == nullptr) throw std::bad_alloc();
  // Advice: where the kernel has no huge pages to give, the array keeps small ones.
  madvise(buffer, rounded, MADV_HUGEPAGE);
  return buffer;
}

void FreeLargeBuffer(void* buffer, size_t bytes) noexcept {
  if (bytes < kLargeBufferBytes) {
    ::operator delete(buffer);
  } else {
    std::free(buffer);
  }
}

}  // namespace wasserwarp
