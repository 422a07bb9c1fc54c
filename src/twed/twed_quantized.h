// A lower bound on TWED from the DP over integers: each pair's samples and times scaled to the
// finest grid of 15-bit integers that holds them and rounded down, the TWED of those integer runs
// computed exactly on 16-bit lanes as differences between neighbouring cells (the deletion costs
// bound them, so they fit), and the rounding's worst case subtracted once at the end. Four times
// the lanes of the double kernel per vector, and within 1e-2 to 2e-2 of the TWED on runs of
// thousands of samples, so that the lazy transport can price most pairs out before the
// single-precision bound (twed_single.h) or the TWED itself. The proof is in docs/twed_bounds.md
// ("The 16-bit bound").

#ifndef WASSERWARP_SRC_TWED_TWED_QUANTIZED_H_
#define WASSERWARP_SRC_TWED_TWED_QUANTIZED_H_

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <span>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "wasserwarp/cancellation.h"
#include "wasserwarp/series.h"
#include "wasserwarp/twed.h"

namespace wasserwarp::twed_internal {

// Lanes per 16-bit vector of the SIMD target dispatched to on this CPU; 0 when that target is the
// portable scalar one (then there is no 16-bit bound).
size_t QuantizedLanes();

// Whether the 16-bit bound takes pairs of `channels`-channel series under `params`: one channel
// (where every Lp norm is |u - v|) or the L1 norm, no time window, and QuantizedLanes() > 0.
bool QuantizedSupports(size_t channels, const TwedParams& params);

// One pair on the integer grid: a TWED instance of its own over 16-bit integers whose exact
// distance G satisfies G <= scale * TWED + rounding_per_term * (n + m - 1) (the proof).
struct QuantizedPair {
  // Grid units per unit of value (and per nu second); 0 where the pair does not fit the grid (its
  // bound is then 0).
  double scale = 0.0;
  // The largest excess of one quantized term (a match's L or a deletion's cost) over scale times
  // its exact value: 1 per rounded quantity, with slack for the double roundings before it.
  double rounding_per_term = 0.0;
  size_t channels = 0;
  // lambda on the grid: scale * lambda, an integer where that is at least 1 (so that rounding
  // the deletions' lambda leaves no bias), else 0.
  int lambda = 0;
  // Per run: samples 1..n as value (channels each), time and deletion cost, 0-based here; the
  // first deletion cost is 0 (it is never added). Values and times lie in [-16383, 16383], and
  // the largest deletion cost of each run together stay below kQuantizedDeletionLimit.
  std::vector<int16_t> a_values, a_times, a_dels;
  std::vector<int16_t> b_values, b_times, b_dels;
};

// The largest sum of one deletion cost of each run: the difference form of the DP stays within
// 16 bits below it (docs/twed_bounds.md).
inline constexpr int kQuantizedDeletionLimit = 32766;

// A and B on their common grid. Both valid with the same channel count, QuantizedSupports true.
QuantizedPair QuantizePair(const Series& a, const Series& b, const TwedParams& params);

// What the 16-bit DP gives for one pair.
struct QuantizedBound {
  double bound = 0.0;         // <= TWED as the double kernels compute it
  double estimate = 0.0;      // G / scale: no bound, but near the TWED (about 1e-4 on long runs)
  int64_t grid_distance = 0;  // G, the exact TWED of the quantized pair (0 where scale is 0)
};

// Up to `lanes` pairs side by side, one per lane, each quantized on its own grid: per row and
// per column a record of the lanes' values, times and deletion costs. Shorter runs are padded
// with copies of their last sample at deletion cost 0, which leaves their distance alone where
// the grid's lambda is 0 and may lower it otherwise (a bound still): pairs of one length lose
// nothing.
class QuantizedLaneBatch {
 public:
  // rows[k] against cols[k]; every series valid with one channel count, QuantizedSupports true,
  // rows.size() == cols.size() <= lanes.
  QuantizedLaneBatch(std::span<const Series* const> rows, std::span<const Series* const> cols,
                     const TwedParams& params, size_t lanes);

  size_t lanes() const { return lanes_; }
  size_t size() const { return pairs_.size(); }
  size_t channels() const { return channels_; }
  bool timed() const { return timed_; }
  // Rows 1..rows() and columns 1..columns(): the longest runs.
  ptrdiff_t rows() const { return rows_; }
  ptrdiff_t columns() const { return columns_; }
  const int16_t* row_zero() const { return row_records_.get(); }
  const int16_t* column_zero() const { return column_records_.get(); }
  size_t record_size() const { return (channels_ + 2) * lanes_; }
  // Per lane D(1, columns()) of its grid: L(1, 1) and the column run's deletion costs.
  std::span<const int64_t> first_rows() const { return first_rows_; }

  // What the kernel's G of lane k means.
  QuantizedBound Finish(size_t k, int64_t grid_distance) const;

 private:
  // What Finish needs of a lane's pair once its records are filled.
  struct Lane {
    double scale = 0.0;
    double rounding_per_term = 0.0;
    size_t n = 0;
    size_t m = 0;
  };
  size_t lanes_;
  size_t channels_;
  bool timed_;
  ptrdiff_t rows_ = 1;
  ptrdiff_t columns_ = 1;
  std::vector<Lane> pairs_;
  std::vector<int64_t> first_rows_;
  std::unique_ptr<int16_t[], decltype(&std::free)> row_records_{nullptr, &std::free};
  std::unique_ptr<int16_t[], decltype(&std::free)> column_records_{nullptr, &std::free};
};

// out[k] for the batch's k-th pair, k < batch.size(); QuantizedLanes() still batch.lanes().
// Cancelled, with `out` unspecified, once `cancel` is found cancelled (polled once per strip).
absl::Status QuantizedTwedBound(const QuantizedLaneBatch& batch, std::span<QuantizedBound> out,
                                const CancellationToken* cancel = nullptr);

// The same for one pair, on lanes of which one is used: for tests.
absl::StatusOr<QuantizedBound> QuantizedTwedBoundOfPair(const Series& a, const Series& b,
                                                        const TwedParams& params);

}  // namespace wasserwarp::twed_internal

#endif  // WASSERWARP_SRC_TWED_TWED_QUANTIZED_H_
