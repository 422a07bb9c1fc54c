// Scratch arrays of the lane kernels, on the stack while small.
//
// Why: a batch of short runs is a DP of a few hundred cells, and one-sample runs are eight pairs
// a batch. Ten heap allocations a batch (the DP rows, the per-lane results, the row's deletion
// costs) then cost more than the DP itself; on 2000 x 2000 one-sample runs they were about a
// third of the cost matrix's time.

#ifndef WASSERWARP_SRC_TWED_LANE_SCRATCH_H_
#define WASSERWARP_SRC_TWED_LANE_SCRATCH_H_

#include <cstddef>

#include "hwy/aligned_allocator.h"

namespace wasserwarp::twed_internal {

// `size` elements of T aligned for any vector load, uninitialized: in the object while size <=
// kInline, on the heap beyond.
template <class T, size_t kInline>
class AlignedScratch {
 public:
  explicit AlignedScratch(size_t size) {
    if (size > kInline) {
      heap_ = hwy::AllocateAligned<T>(size);
      data_ = heap_.get();
    }
  }
  AlignedScratch(const AlignedScratch&) = delete;
  AlignedScratch& operator=(const AlignedScratch&) = delete;

  T* get() { return data_; }
  const T* get() const { return data_; }

 private:
  alignas(HWY_ALIGNMENT) T inline_[kInline];
  hwy::AlignedFreeUniquePtr<T[]> heap_;
  T* data_ = inline_;
};

// DP rows of runs up to about a hundred samples (2 KiB elements: 16 KiB of doubles, 8 lanes of
// two values per column on AVX-512); a thread's stack holds two with room to spare.
inline constexpr size_t kInlineDpCells = 2048;
// Per-lane values: a vector's lanes of the narrowest type a kernel uses.
inline constexpr size_t kInlineLanes = 64;

}  // namespace wasserwarp::twed_internal

#endif  // WASSERWARP_SRC_TWED_LANE_SCRATCH_H_
