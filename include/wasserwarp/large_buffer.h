// Storage for the large numeric arrays (cost matrices): an allocator that backs
// arrays of several megabytes with transparent huge pages where the kernel offers
// them on request (`madvise` mode, Debian's default).
//
// Why: a 2000 x 2000 matrix is 32 MB, 7800 pages of 4 KiB, each faulted in on
// first touch. On the 2-core VM the project measures on, that cost 85 ms, as much
// as every TWED of those pairs; with 2 MiB pages it is 16 faults and 3 ms.

#ifndef WASSERWARP_LARGE_BUFFER_H_
#define WASSERWARP_LARGE_BUFFER_H_

#include <cstddef>
#include <new>

namespace wasserwarp {

// Bytes from which an array is aligned to, and advised into, huge pages: below
// this the 4 KiB pages it may waste outweigh the faults it saves.
inline constexpr size_t kLargeBufferBytes = size_t{4} << 20;

// Behaves as ::operator new and delete below kLargeBufferBytes; above, aligns the
// array to 2 MiB and asks for huge pages (advice only: without them, the usual
// pages). Throws std::bad_alloc as std::allocator does.
void* AllocateLargeBuffer(size_t bytes);
void FreeLargeBuffer(void* buffer, size_t bytes) noexcept;

template <class T>
struct LargeBufferAllocator {
  using value_type = T;

  LargeBufferAllocator() = default;
  template <class U>
  LargeBufferAllocator(const LargeBufferAllocator<U>&) noexcept {}

  T* allocate(size_t n) {
    if (n > static_cast<size_t>(-1) / sizeof(T)) throw std::bad_array_new_length();
    return static_cast<T*>(AllocateLargeBuffer(n * sizeof(T)));
  }
  void deallocate(T* p, size_t n) noexcept { FreeLargeBuffer(p, n * sizeof(T)); }

  template <class U>
  bool operator==(const LargeBufferAllocator<U>&) const noexcept {
    return true;
  }
};

}  // namespace wasserwarp

#endif  // WASSERWARP_LARGE_BUFFER_H_
