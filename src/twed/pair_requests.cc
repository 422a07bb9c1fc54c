#include "twed/pair_requests.h"

#include <algorithm>
#include <cstddef>
#include <mutex>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "common/arena_pool.h"
#include "common/first_error.h"
#include "tbb/blocked_range.h"
#include "tbb/parallel_for.h"

namespace wasserwarp {

absl::StatusOr<std::vector<BoundedTwed>> ComputePairRequests(
    const std::vector<Series>& rows, const std::vector<Series>& cols, const TwedParams& params,
    const std::vector<PairRequest>& requests, const CostMatrixOptions& options,
    const PairRequestDone& done) {
  const size_t m = cols.size();
  std::vector<BoundedTwed> results(requests.size());
  FirstError first_error;
  std::mutex done_mutex;
  const CancellationToken* cancel = options.cancel;
  BorrowedArena arena(options.max_threads);
  arena.execute([&] {
    tbb::parallel_for(
        tbb::blocked_range<size_t>(0, requests.size(), 1),
        [&](const tbb::blocked_range<size_t>& r) {
          for (size_t k = r.begin(); k < r.end(); ++k) {
            const PairRequest& request = requests[k];
            if ((cancel != nullptr && cancel->cancelled()) || first_error.Skips(request.pair)) {
              return;
            }
            absl::StatusOr<BoundedTwed> result = TwedWithin(
                rows[request.pair / m], cols[request.pair % m], params, request.threshold, cancel);
            if (absl::IsCancelled(result.status())) return;
            if (!result.ok()) {
              first_error.Record(request.pair, std::move(result).status());
              continue;
            }
            results[k] = *result;
            if (done) {
              std::lock_guard lock(done_mutex);
              done(k, results[k]);
            }
          }
        });
  });
  if (cancel != nullptr && cancel->cancelled()) {
    return absl::CancelledError("cost matrix computation cancelled");
  }
  if (absl::Status status = first_error.status(); !status.ok()) return status;
  return results;
}

}  // namespace wasserwarp
