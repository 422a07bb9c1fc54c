// The column records that the lane kernels read: up to `lanes` series side by side, per column j
// one record of the lanes' channel values, times and deletion costs, each a vector of `lanes`
// elements of T. Shorter series are padded with zeros after their end, which only columns past
// their own length read. One layout for the double lanes (LaneBatch, twed_batch.h) and the float
// ones (SingleLaneBatch, twed_single.h), as the strips of twed_strip-inl.h read both.

#ifndef WASSERWARP_SRC_TWED_LANE_RECORDS_H_
#define WASSERWARP_SRC_TWED_LANE_RECORDS_H_

#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <memory>
#include <span>
#include <vector>

namespace wasserwarp::twed_internal {

template <class T>
class LaneRecords {
 public:
  size_t lanes() const { return lanes_; }
  size_t size() const { return lengths_.size(); }
  size_t channels() const { return channels_; }
  ptrdiff_t longest() const { return longest_; }
  std::span<const ptrdiff_t> lengths() const { return lengths_; }
  // The record of column 0 (the virtual sample); columns from -kBatchPad to longest() + kBatchPad
  // exist.
  const T* column_zero() const { return records_.get() + kBatchPad * record_size(); }
  size_t record_size() const { return (channels_ + 2) * lanes_; }

  // Columns the skewed strip kernel reads beyond either end of the batch.
  static constexpr ptrdiff_t kBatchPad = 3;

 protected:
  LaneRecords(size_t lanes, size_t channels) : lanes_(lanes), channels_(channels) {}

  // The next lane's series has `length` samples.
  void AddLane(ptrdiff_t length) {
    lengths_.push_back(length);
    longest_ = std::max(longest_, length);
  }

  // The zeroed records, once every lane is added.
  void Allocate() {
    const size_t columns = longest_ + 1 + 2 * kBatchPad;
    constexpr size_t kAlign = 64;  // the widest vector: loads never split a cache line
    const size_t bytes = (columns * record_size() * sizeof(T) + kAlign - 1) / kAlign * kAlign;
    records_.reset(static_cast<T*>(std::aligned_alloc(kAlign, bytes)));
    std::fill_n(records_.get(), columns * record_size(), T{0});
  }

  // Sample j (1-based) of lane `lane`: its channel values, time and deletion cost.
  void SetSample(size_t lane, ptrdiff_t j, const T* values, T time, T del) {
    T* r = records_.get() + (j + kBatchPad) * record_size();
    for (size_t k = 0; k < channels_; ++k) r[k * lanes_ + lane] = values[k];
    r[channels_ * lanes_ + lane] = time;
    r[(channels_ + 1) * lanes_ + lane] = del;
  }

 private:
  size_t lanes_;
  size_t channels_;
  ptrdiff_t longest_ = 0;
  std::vector<ptrdiff_t> lengths_;
  std::unique_ptr<T[], decltype(&std::free)> records_{nullptr, &std::free};
};

}  // namespace wasserwarp::twed_internal

#endif  // WASSERWARP_SRC_TWED_LANE_RECORDS_H_
