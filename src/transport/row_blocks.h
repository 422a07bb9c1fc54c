// The O(n m) passes of a transport solve (checking the costs, powering them, their maximum, the
// duals' refinement and certificate, the corner rule's Monge check) over blocks of a matrix's rows
// or columns: in parallel on large matrices, in one call on small ones, where the verdict's
// thousands of solves of a few dozen runs would pay more for the scheduling than for the pass. The
// blocks' results combine by min or max, exact in any order, so the result never depends on the
// thread count.

#ifndef WASSERWARP_SRC_TRANSPORT_ROW_BLOCKS_H_
#define WASSERWARP_SRC_TRANSPORT_ROW_BLOCKS_H_

#include <algorithm>
#include <cstddef>

#include "tbb/blocked_range.h"
#include "tbb/parallel_for.h"
#include "tbb/parallel_reduce.h"

namespace wasserwarp::row_blocks {

// Entries from which a pass runs in parallel: a pass over 2^16 entries takes tens of
// microseconds, what scheduling its blocks costs.
inline constexpr size_t kParallelEntries = size_t{1} << 16;

// Entries of one block.
inline constexpr size_t kEntriesPerBlock = size_t{1} << 14;

// Indices of one block, where each stands for `other` entries.
inline size_t Grain(size_t other) {
  return std::max<size_t>(1, kEntriesPerBlock / std::max<size_t>(1, other));
}

// body(begin, end) over blocks [begin, end) of 0..count-1, where each index stands for `other`
// entries (a row's columns, or a column's rows).
template <class Body>
void ForBlocks(size_t count, size_t other, const Body& body) {
  if (count * other < kParallelEntries) {
    body(size_t{0}, count);
    return;
  }
  tbb::parallel_for(
      tbb::blocked_range<size_t>(0, count, Grain(other)),
      [&](const tbb::blocked_range<size_t>& block) { body(block.begin(), block.end()); });
}

// The maximum of body(begin, end) over the blocks, as ForBlocks cuts them; `lowest` for none.
template <class Body>
double MaxOverBlocks(size_t count, size_t other, double lowest, const Body& body) {
  if (count * other < kParallelEntries) return std::max(lowest, body(size_t{0}, count));
  return tbb::parallel_reduce(
      tbb::blocked_range<size_t>(0, count, Grain(other)), lowest,
      [&](const tbb::blocked_range<size_t>& block, double max) {
        return std::max(max, body(block.begin(), block.end()));
      },
      [](double a, double b) { return std::max(a, b); });
}

}  // namespace wasserwarp::row_blocks

#endif  // WASSERWARP_SRC_TRANSPORT_ROW_BLOCKS_H_
