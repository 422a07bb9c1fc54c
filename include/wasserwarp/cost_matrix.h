// The n x m matrix of TWEDs between simulated and reference runs, computed
// on a oneTBB task pool.

#ifndef WASSERWARP_COST_MATRIX_H_
#define WASSERWARP_COST_MATRIX_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "absl/status/statusor.h"
#include "wasserwarp/cancellation.h"
#include "wasserwarp/large_buffer.h"
#include "wasserwarp/series.h"
#include "wasserwarp/twed.h"

namespace wasserwarp {

// Row-major rows x cols matrix of ground costs.
struct CostMatrix {
  using Values = std::vector<double, LargeBufferAllocator<double>>;

  size_t rows = 0;
  size_t cols = 0;
  Values values;

  CostMatrix() = default;
  CostMatrix(size_t r, size_t c, double fill = 0.0) : rows(r), cols(c), values(r * c, fill) {}
  double at(size_t i, size_t j) const { return values[i * cols + j]; }
  double& at(size_t i, size_t j) { return values[i * cols + j]; }
};

struct CostMatrixProgress {
  uint64_t pairs_done = 0;
  uint64_t pairs_total = 0;
  uint64_t cells_done = 0;
  uint64_t cells_total = 0;
};

// Called from worker threads, never concurrently with itself, at most about
// every `progress_interval_ms` and once more when the matrix is complete.
using CostMatrixProgressCallback = std::function<void(const CostMatrixProgress&)>;

struct CostMatrixOptions {
  int max_threads = 0;  // 0: every core oneTBB sees
  const CancellationToken* cancel = nullptr;
  CostMatrixProgressCallback progress;
  int progress_interval_ms = 100;
};

// All TWED(rows[i], cols[j]). The result does not depend on the thread count.
// Cancelled if the token is set (checked between pairs); the first failing
// pair's error (in row-major order) otherwise.
absl::StatusOr<CostMatrix> ComputeCostMatrix(const std::vector<Series>& rows,
                                             const std::vector<Series>& cols,
                                             const TwedParams& params,
                                             const CostMatrixOptions& options = {});

// Cancelled, with the message of every computation of a cost matrix (ComputeCostMatrix, the lazy
// transport's pairs, a CostMatrixSource), once `options.cancel` is set; Ok before.
absl::Status CostMatrixCancelled(const CostMatrixOptions& options);

}  // namespace wasserwarp

#endif  // WASSERWARP_COST_MATRIX_H_
