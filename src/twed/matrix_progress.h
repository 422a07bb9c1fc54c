// Progress towards a cost matrix, counted from many worker threads: pairs settled and DP cells
// evaluated, of all pairs and all their cells, reported through CostMatrixOptions::progress at
// most once per interval. The full matrix counts every pair it computes; the lazy transport
// counts the pairs it computes exactly and every cell it spends, against the full matrix's
// totals, so that its cells stay below the total where it pays.

#ifndef WASSERWARP_SRC_TWED_MATRIX_PROGRESS_H_
#define WASSERWARP_SRC_TWED_MATRIX_PROGRESS_H_

#include <algorithm>
#include <atomic>
#include <cstdint>

#include "common/progress_throttle.h"
#include "wasserwarp/cost_matrix.h"

namespace wasserwarp {

class MatrixProgress {
 public:
  MatrixProgress(const CostMatrixOptions& options, uint64_t pairs_total, uint64_t cells_total)
      : callback_(options.progress),
        throttle_(options.progress_interval_ms),
        pairs_total_(pairs_total),
        cells_total_(cells_total) {}

  // `pairs` more settled and `cells` more evaluated; reported unless the interval is not over.
  void Add(uint64_t pairs, uint64_t cells) {
    pairs_done_.fetch_add(pairs, std::memory_order_relaxed);
    cells_done_.fetch_add(cells, std::memory_order_relaxed);
    if (callback_) throttle_.MaybeReport([&] { callback_(Snapshot(0, 0)); });
  }

  // The callback for a whole matrix computed after what was counted so far: its cells add to
  // those, its pairs replace them.
  CostMatrixProgressCallback Continued() {
    if (!callback_) return nullptr;
    return [this](const CostMatrixProgress& whole) {
      callback_(Snapshot(whole.pairs_done, whole.cells_done));
    };
  }

  // Every pair settled, reported whatever the interval: the last report.
  void Finish() {
    pairs_done_.store(pairs_total_, std::memory_order_relaxed);
    if (callback_) throttle_.ReportNow([&] { callback_(Snapshot(0, 0)); });
  }

 private:
  CostMatrixProgress Snapshot(uint64_t other_pairs, uint64_t more_cells) const {
    const uint64_t pairs = pairs_done_.load(std::memory_order_relaxed);
    const uint64_t cells = cells_done_.load(std::memory_order_relaxed) + more_cells;
    return {std::max(pairs, other_pairs), pairs_total_, std::min(cells, cells_total_),
            cells_total_};
  }

  const CostMatrixProgressCallback& callback_;
  ProgressThrottle throttle_;
  const uint64_t pairs_total_;
  const uint64_t cells_total_;
  std::atomic<uint64_t> pairs_done_{0};
  std::atomic<uint64_t> cells_done_{0};
};

}  // namespace wasserwarp

#endif  // WASSERWARP_SRC_TWED_MATRIX_PROGRESS_H_
