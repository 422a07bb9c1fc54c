#include "wasserwarp/cost_matrix.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <limits>
#include <mutex>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "tbb/blocked_range.h"
#include "tbb/parallel_for.h"
#include "tbb/partitioner.h"
#include "tbb/task_arena.h"

namespace wasserwarp {
namespace {

// Below this many DP cells a range of pairs is one task: a few milliseconds
// of work, small against scheduling cost and short enough for cancellation.
constexpr uint64_t kGrainCells = uint64_t{1} << 21;

// A half-open range of pair indices that splits where its DP cells divide
// evenly, so a few long pairs balance against many short ones.
class CellBalancedRange {
 public:
  CellBalancedRange(const std::vector<uint64_t>& cell_prefix, size_t begin, size_t end)
      : cell_prefix_(&cell_prefix), begin_(begin), end_(end) {}

  CellBalancedRange(CellBalancedRange& other, tbb::split)
      : cell_prefix_(other.cell_prefix_), end_(other.end_) {
    const std::vector<uint64_t>& prefix = *cell_prefix_;
    const uint64_t middle = prefix[other.begin_] + other.cells() / 2;
    size_t split =
        std::upper_bound(prefix.begin() + other.begin_ + 1, prefix.begin() + other.end_, middle) -
        prefix.begin();
    split = std::clamp(split, other.begin_ + 1, other.end_ - 1);
    begin_ = split;
    other.end_ = split;
  }

  bool empty() const { return begin_ >= end_; }
  bool is_divisible() const { return end_ - begin_ > 1 && cells() > kGrainCells; }
  size_t begin() const { return begin_; }
  size_t end() const { return end_; }

 private:
  uint64_t cells() const { return (*cell_prefix_)[end_] - (*cell_prefix_)[begin_]; }

  const std::vector<uint64_t>* cell_prefix_;
  size_t begin_;
  size_t end_;
};

// Serialises and rate-limits progress reports coming from worker threads.
class ProgressReporter {
 public:
  ProgressReporter(const CostMatrixOptions& options, uint64_t pairs_total, uint64_t cells_total)
      : callback_(options.progress),
        interval_(std::chrono::milliseconds(std::max(0, options.progress_interval_ms))),
        pairs_total_(pairs_total),
        cells_total_(cells_total),
        last_report_(std::chrono::steady_clock::now()) {}

  void PairDone(uint64_t cells) {
    pairs_done_.fetch_add(1, std::memory_order_relaxed);
    cells_done_.fetch_add(cells, std::memory_order_relaxed);
    if (!callback_) return;
    std::unique_lock lock(mutex_, std::try_to_lock);
    if (!lock.owns_lock()) return;
    const auto now = std::chrono::steady_clock::now();
    if (now - last_report_ < interval_) return;
    last_report_ = now;
    callback_(Snapshot());
  }

  void Finish() {
    if (!callback_) return;
    std::lock_guard lock(mutex_);
    callback_(Snapshot());
  }

 private:
  CostMatrixProgress Snapshot() const {
    return {pairs_done_.load(std::memory_order_relaxed), pairs_total_,
            cells_done_.load(std::memory_order_relaxed), cells_total_};
  }

  const CostMatrixProgressCallback& callback_;
  const std::chrono::steady_clock::duration interval_;
  const uint64_t pairs_total_;
  const uint64_t cells_total_;
  std::atomic<uint64_t> pairs_done_{0};
  std::atomic<uint64_t> cells_done_{0};
  std::mutex mutex_;
  std::chrono::steady_clock::time_point last_report_;
};

// Keeps the error of the lowest failing pair index, so the error reported
// does not depend on which thread fails first.
class FirstError {
 public:
  bool SkipsPair(size_t pair) const { return pair > index_.load(std::memory_order_relaxed); }

  void Record(size_t pair, absl::Status status) {
    std::lock_guard lock(mutex_);
    if (pair < index_.load(std::memory_order_relaxed)) {
      index_.store(pair, std::memory_order_relaxed);
      status_ = std::move(status);
    }
  }

  absl::Status status() const { return status_; }

 private:
  std::atomic<size_t> index_{std::numeric_limits<size_t>::max()};
  std::mutex mutex_;
  absl::Status status_;
};

}  // namespace

absl::StatusOr<CostMatrix> ComputeCostMatrix(const std::vector<Series>& rows,
                                             const std::vector<Series>& cols,
                                             const TwedParams& params,
                                             const CostMatrixOptions& options) {
  if (absl::Status status = ValidateTwedParams(params); !status.ok()) return status;
  if (options.max_threads < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("max_threads must be >= 0 (0: all cores), got ", options.max_threads));
  }

  const size_t n = rows.size();
  const size_t m = cols.size();
  CostMatrix result(n, m);
  std::vector<uint64_t> cell_prefix(n * m + 1, 0);
  for (size_t pair = 0; pair < n * m; ++pair) {
    cell_prefix[pair + 1] = cell_prefix[pair] + TwedCells(rows[pair / m], cols[pair % m]);
  }

  ProgressReporter progress(options, n * m, cell_prefix.back());
  FirstError first_error;
  const CancellationToken* cancel = options.cancel;

  const auto compute_range = [&](const CellBalancedRange& range) {
    for (size_t pair = range.begin(); pair < range.end(); ++pair) {
      if ((cancel != nullptr && cancel->cancelled()) || first_error.SkipsPair(pair)) return;
      const size_t i = pair / m;
      const size_t j = pair % m;
      absl::StatusOr<double> distance = Twed(rows[i], cols[j], params);
      if (!distance.ok()) {
        first_error.Record(pair, std::move(distance).status());
        return;
      }
      result.values[pair] = *distance;
      progress.PairDone(cell_prefix[pair + 1] - cell_prefix[pair]);
    }
  };

  if (n * m > 0) {
    tbb::task_arena arena(options.max_threads > 0 ? options.max_threads
                                                  : tbb::task_arena::automatic);
    arena.execute([&] {
      tbb::parallel_for(CellBalancedRange(cell_prefix, 0, n * m), compute_range,
                        tbb::simple_partitioner());
    });
  }

  if (cancel != nullptr && cancel->cancelled()) {
    return absl::CancelledError("cost matrix computation cancelled");
  }
  if (absl::Status status = first_error.status(); !status.ok()) return status;
  progress.Finish();
  return result;
}

}  // namespace wasserwarp
