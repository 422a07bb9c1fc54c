#include "wasserwarp/cost_matrix.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <optional>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/arena_pool.h"
#include "common/first_error.h"
#include "tbb/blocked_range.h"
#include "tbb/parallel_for.h"
#include "tbb/partitioner.h"
#include "twed/matrix_progress.h"
#include "twed/twed_batch.h"
#include "twed/twed_kernel.h"

namespace wasserwarp {
namespace {

// Below this many DP cells a range of units is one task: a few milliseconds
// of work, small against scheduling cost and short enough for cancellation.
constexpr uint64_t kGrainCells = uint64_t{1} << 21;

// The matrix is computed in units of one row series against one column
// batch: up to BatchLanes() columns in the lanes of the SIMD kernel, or a
// single column on the scalar kernel (windowed pairs, Lp norms other than 1
// and 2, CPUs without SIMD target, invalid inputs: Twed() then reports
// their errors as it always has).
struct ColumnBatch {
  std::vector<size_t> cols;
  std::optional<twed_internal::LaneBatch> lanes;
  uint64_t width = 0;  // DP cells per row sample the kernel computes, padding included
};

// Columns sorted by length fill the lanes of a batch with series of nearly
// the same length, so that little of the padding to the longest is computed.
std::vector<ColumnBatch> BatchColumns(const std::vector<Series>& rows,
                                      const std::vector<Series>& cols, const TwedParams& params) {
  std::vector<ColumnBatch> batches;
  const size_t lanes = twed_internal::BatchLanes();
  if (lanes < 2 || cols.empty() || rows.empty() ||
      !twed_internal::BatchSupports(cols.front().num_channels(), params) ||
      !twed_internal::AllValidAndAlike(rows, cols)) {
    for (size_t c = 0; c < cols.size(); ++c) {
      batches.push_back({{c}, std::nullopt, cols[c].samples()});
    }
    return batches;
  }
  std::vector<size_t> order(cols.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t x, size_t y) { return cols[x].samples() < cols[y].samples(); });
  for (size_t begin = 0; begin < order.size(); begin += lanes) {
    const size_t end = std::min(order.size(), begin + lanes);
    ColumnBatch batch;
    batch.cols.assign(order.begin() + begin, order.begin() + end);
    if (batch.cols.size() == 1) {
      batch.width = cols[batch.cols.front()].samples();
    } else {
      std::vector<const Series*> series;
      for (size_t c : batch.cols) series.push_back(&cols[c]);
      batch.lanes.emplace(series, params, lanes);
      batch.width = lanes * static_cast<uint64_t>(batch.lanes->longest());
    }
    batches.push_back(std::move(batch));
  }
  return batches;
}

// The DP cells of units (row r, batch g), numbered u = r * batches + g, as
// prefix sums in O(1) from per-row and per-batch sums: no n x m table.
class UnitCells {
 public:
  UnitCells(const std::vector<Series>& rows, const std::vector<ColumnBatch>& batches)
      : batches_(batches.size()), row_prefix_(rows.size() + 1, 0), width_prefix_(batches_ + 1, 0) {
    for (size_t r = 0; r < rows.size(); ++r) {
      row_prefix_[r + 1] = row_prefix_[r] + rows[r].samples();
    }
    for (size_t g = 0; g < batches_; ++g) {
      width_prefix_[g + 1] = width_prefix_[g] + batches[g].width;
    }
  }

  size_t units() const { return (row_prefix_.size() - 1) * batches_; }
  // Cells of the units before u.
  uint64_t prefix(size_t u) const {
    const size_t r = u / batches_;
    const size_t g = u % batches_;
    const uint64_t row_samples =
        r + 1 < row_prefix_.size() ? row_prefix_[r + 1] - row_prefix_[r] : 0;
    return row_prefix_[r] * width_prefix_.back() + row_samples * width_prefix_[g];
  }

 private:
  size_t batches_;
  std::vector<uint64_t> row_prefix_;
  std::vector<uint64_t> width_prefix_;
};

// A half-open range of units that splits where its DP cells divide evenly,
// so a few long pairs balance against many short ones.
class CellBalancedRange {
 public:
  CellBalancedRange(const UnitCells& cells, size_t begin, size_t end)
      : cells_(&cells), begin_(begin), end_(end) {}

  CellBalancedRange(CellBalancedRange& other, tbb::split) : cells_(other.cells_), end_(other.end_) {
    const uint64_t middle = cells_->prefix(other.begin_) + other.cells() / 2;
    // The first unit in (begin, end) that starts at or past the middle.
    size_t lo = other.begin_ + 1;
    size_t hi = other.end_ - 1;
    while (lo < hi) {
      const size_t mid = lo + (hi - lo) / 2;
      if (cells_->prefix(mid) < middle) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    begin_ = lo;
    other.end_ = lo;
  }

  bool empty() const { return begin_ >= end_; }
  bool is_divisible() const { return end_ - begin_ > 1 && cells() > kGrainCells; }
  size_t begin() const { return begin_; }
  size_t end() const { return end_; }

 private:
  uint64_t cells() const { return cells_->prefix(end_) - cells_->prefix(begin_); }

  const UnitCells* cells_;
  size_t begin_;
  size_t end_;
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
  const std::vector<ColumnBatch> batches = BatchColumns(rows, cols, params);
  const UnitCells unit_cells(rows, batches);
  uint64_t row_samples = 0;
  uint64_t col_samples = 0;
  for (const Series& row : rows) row_samples += row.samples();
  for (const Series& col : cols) col_samples += col.samples();

  MatrixProgress progress(options, n * m, row_samples * col_samples);
  FirstError first_error;
  const CancellationToken* cancel = options.cancel;

  // Errors are recorded by pair index and later units go on, because the
  // units of a row visit its columns in batch order, not in index order.
  const auto compute_range = [&](const CellBalancedRange& range) {
    std::vector<double> distances;
    for (size_t unit = range.begin(); unit < range.end(); ++unit) {
      const size_t i = unit / batches.size();
      const ColumnBatch& batch = batches[unit % batches.size()];
      if ((cancel != nullptr && cancel->cancelled()) || first_error.Skips(i * m)) return;
      distances.resize(batch.cols.size());
      if (batch.lanes &&
          !twed_internal::BatchTwed(rows[i], *batch.lanes, params, distances, cancel).ok()) {
        return;  // cancelled, the only error BatchTwed reports
      }
      uint64_t pairs = 0;
      uint64_t cells = 0;
      for (size_t k = 0; k < batch.cols.size(); ++k) {
        const size_t j = batch.cols[k];
        // The lanes yield +inf where Twed() reports an overflow: let it say so.
        if (!batch.lanes || !std::isfinite(distances[k])) {
          absl::StatusOr<double> distance = Twed(rows[i], cols[j], params, cancel);
          if (absl::IsCancelled(distance.status())) return;
          if (!distance.ok()) {
            first_error.Record(i * m + j, std::move(distance).status());
            continue;
          }
          distances[k] = *distance;
        }
        result.values[i * m + j] = distances[k];
        ++pairs;
        cells += TwedCells(rows[i], cols[j]);
      }
      progress.Add(pairs, cells);
    }
  };

  if (unit_cells.units() > 0) {
    BorrowedArena arena(options.max_threads);
    arena.execute([&] {
      tbb::parallel_for(CellBalancedRange(unit_cells, 0, unit_cells.units()), compute_range,
                        tbb::simple_partitioner());
    });
  }

  if (absl::Status status = CostMatrixCancelled(options); !status.ok()) return status;
  if (absl::Status status = first_error.status(); !status.ok()) return status;
  progress.Finish();
  return result;
}

absl::Status CostMatrixCancelled(const CostMatrixOptions& options) {
  if (options.cancel != nullptr && options.cancel->cancelled()) {
    return absl::CancelledError("cost matrix computation cancelled");
  }
  return absl::OkStatus();
}

}  // namespace wasserwarp
