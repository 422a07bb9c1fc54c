// The runs a computation reads and does not keep: those of a std::vector<Series>, or series held
// elsewhere, such as the server's stored runs, which sessions and jobs share by pointer, so that
// a job computes on them without copying their samples. It holds pointers only: the series must
// outlive it, and it is meant to live no longer than the call it is passed to.

#ifndef WASSERWARP_RUNS_VIEW_H_
#define WASSERWARP_RUNS_VIEW_H_

#include <cstddef>
#include <initializer_list>
#include <iterator>
#include <utility>
#include <vector>

#include "wasserwarp/series.h"

namespace wasserwarp {

class RunsView {
 public:
  class Iterator {
   public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = Series;
    using difference_type = std::ptrdiff_t;
    using pointer = const Series*;
    using reference = const Series&;

    Iterator() = default;
    explicit Iterator(std::vector<const Series*>::const_iterator at) : at_(at) {}
    const Series& operator*() const { return **at_; }
    const Series* operator->() const { return *at_; }
    Iterator& operator++() {
      ++at_;
      return *this;
    }
    Iterator operator++(int) { return Iterator(at_++); }
    friend bool operator==(const Iterator& a, const Iterator& b) = default;

   private:
    std::vector<const Series*>::const_iterator at_;
  };

  RunsView() = default;
  // Implicit, so that whoever holds a vector of runs, or lists them in braces as for a vector,
  // passes them as they are.
  RunsView(const std::vector<Series>& runs) {  // NOLINT(google-explicit-constructor)
    runs_.reserve(runs.size());
    for (const Series& run : runs) runs_.push_back(&run);
  }
  RunsView(std::initializer_list<Series> runs) {  // NOLINT(google-explicit-constructor)
    runs_.reserve(runs.size());
    for (const Series& run : runs) runs_.push_back(&run);
  }
  explicit RunsView(std::vector<const Series*> runs) : runs_(std::move(runs)) {}

  size_t size() const { return runs_.size(); }
  bool empty() const { return runs_.empty(); }
  const Series& operator[](size_t i) const { return *runs_[i]; }
  const Series& front() const { return *runs_.front(); }
  Iterator begin() const { return Iterator(runs_.begin()); }
  Iterator end() const { return Iterator(runs_.end()); }

 private:
  std::vector<const Series*> runs_;
};

}  // namespace wasserwarp

#endif  // WASSERWARP_RUNS_VIEW_H_
