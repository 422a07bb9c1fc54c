#include "twed/pair_requests.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <mutex>
#include <optional>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "common/arena_pool.h"
#include "common/first_error.h"
#include "tbb/blocked_range.h"
#include "tbb/parallel_for.h"
#include "twed/twed_batch.h"
#include "twed/twed_single.h"

namespace wasserwarp {
namespace {

// The requests of one row that share the SIMD lanes of one kernel call, as indices into the
// requests; a single request where the lanes do not apply.
struct RequestUnit {
  size_t row = 0;
  std::vector<size_t> requests;
};

// Requests come sorted by pair, so each row's are contiguous. Within a row, columns of nearly
// the same length share lanes, as ComputeCostMatrix batches them, so that little padding is
// computed. `lanes` >= 1; pairs[k] is request k's pair.
std::vector<RequestUnit> UnitsOf(const std::vector<Series>& cols, const std::vector<size_t>& pairs,
                                 size_t lanes) {
  const size_t m = cols.size();
  std::vector<RequestUnit> units;
  for (size_t begin = 0; begin < pairs.size();) {
    const size_t row = pairs[begin] / m;
    size_t end = begin;
    while (end < pairs.size() && pairs[end] / m == row) ++end;
    std::vector<size_t> order(end - begin);
    for (size_t k = 0; k < order.size(); ++k) order[k] = begin + k;
    std::stable_sort(order.begin(), order.end(), [&](size_t x, size_t y) {
      return cols[pairs[x] % m].samples() < cols[pairs[y] % m].samples();
    });
    for (size_t first = 0; first < order.size(); first += lanes) {
      const size_t last = std::min(order.size(), first + lanes);
      units.push_back({row, std::vector<size_t>(order.begin() + first, order.begin() + last)});
    }
    begin = end;
  }
  return units;
}

// Runs `compute_unit` on every unit on TBB, in the arena `options` asks for, until one returns
// false (cancelled) or `cancel` is found set; units of rows `first_error` (may be null) already
// passed are skipped.
template <class ComputeUnit>
void ForEachUnit(const std::vector<RequestUnit>& units, size_t m, const CostMatrixOptions& options,
                 const FirstError* first_error, const ComputeUnit& compute_unit) {
  const CancellationToken* cancel = options.cancel;
  BorrowedArena arena(options.max_threads);
  arena.execute([&] {
    tbb::parallel_for(tbb::blocked_range<size_t>(0, units.size(), 1),
                      [&](const tbb::blocked_range<size_t>& r) {
                        for (size_t u = r.begin(); u < r.end(); ++u) {
                          if (cancel != nullptr && cancel->cancelled()) return;
                          if (first_error != nullptr && first_error->Skips(units[u].row * m)) {
                            continue;
                          }
                          if (!compute_unit(units[u])) return;
                        }
                      });
  });
}

}  // namespace

absl::StatusOr<std::vector<BoundedTwed>> ComputePairRequests(
    const std::vector<Series>& rows, const std::vector<Series>& cols, const TwedParams& params,
    const std::vector<PairRequest>& requests, const CostMatrixOptions& options,
    const PairRequestDone& done) {
  const size_t m = cols.size();
  const bool lanes_apply =
      !cols.empty() && twed_internal::BatchSupports(cols.front().num_channels(), params);
  const size_t lanes = lanes_apply ? twed_internal::BatchLanes() : 0;
  std::vector<size_t> pairs;
  for (const PairRequest& request : requests) pairs.push_back(request.pair);
  const std::vector<RequestUnit> units = UnitsOf(cols, pairs, lanes < 2 ? 1 : lanes);
  std::vector<BoundedTwed> results(requests.size());
  FirstError first_error;
  std::mutex done_mutex;
  const CancellationToken* cancel = options.cancel;
  const auto report = [&](size_t k) {
    if (!done) return;
    std::lock_guard lock(done_mutex);
    done(k, results[k]);
  };
  // One request on the one-pair kernel, which also reports what the lanes cannot: the error
  // of a distance that overflows.
  const auto compute_one = [&](size_t k) -> bool {
    const PairRequest& request = requests[k];
    absl::StatusOr<BoundedTwed> result = TwedWithin(rows[request.pair / m], cols[request.pair % m],
                                                    params, request.threshold, cancel);
    if (absl::IsCancelled(result.status())) return false;
    if (!result.ok()) {
      first_error.Record(request.pair, std::move(result).status());
      return true;
    }
    results[k] = *result;
    report(k);
    return true;
  };
  const auto compute_unit = [&](const RequestUnit& unit) -> bool {
    if (unit.requests.size() < 2) return compute_one(unit.requests.front());
    std::vector<const Series*> series;
    std::vector<double> thresholds;
    for (size_t k : unit.requests) {
      series.push_back(&cols[requests[k].pair % m]);
      thresholds.push_back(requests[k].threshold);
    }
    const twed_internal::LaneBatch batch(series, params, lanes);
    std::vector<BoundedTwed> lane_results(unit.requests.size());
    if (!twed_internal::BatchTwedWithin(rows[unit.row], batch, params, thresholds, lane_results,
                                        cancel)
             .ok()) {
      return false;  // cancelled, the only error the lanes report
    }
    for (size_t lane = 0; lane < unit.requests.size(); ++lane) {
      const size_t k = unit.requests[lane];
      if (lane_results[lane].within && !std::isfinite(lane_results[lane].value)) {
        if (!compute_one(k)) return false;
        continue;
      }
      results[k] = lane_results[lane];
      report(k);
    }
    return true;
  };
  ForEachUnit(units, m, options, &first_error, compute_unit);
  if (absl::Status status = CostMatrixCancelled(options); !status.ok()) return status;
  if (absl::Status status = first_error.status(); !status.ok()) return status;
  return results;
}

absl::StatusOr<std::vector<double>> ComputePairBounds(const std::vector<Series>& rows,
                                                      const std::vector<Series>& cols,
                                                      const TwedParams& params,
                                                      const std::vector<size_t>& pairs,
                                                      const CostMatrixOptions& options,
                                                      const PairBoundsDone& done) {
  const size_t m = cols.size();
  std::vector<double> bounds(pairs.size(), 0.0);
  if (cols.empty() || !twed_internal::SingleSupports(cols.front().num_channels(), params)) {
    return bounds;
  }
  const size_t lanes = twed_internal::SingleLanes();
  const std::vector<RequestUnit> units = UnitsOf(cols, pairs, lanes);
  std::mutex done_mutex;
  ForEachUnit(units, m, options, nullptr, [&](const RequestUnit& unit) {
    std::vector<const Series*> series;
    for (size_t k : unit.requests) series.push_back(&cols[pairs[k] % m]);
    const Series& row = rows[unit.row];
    const twed_internal::SingleLaneBatch batch(series, row, params, lanes);
    std::vector<double> lane_bounds(unit.requests.size());
    if (!twed_internal::SingleTwedBound(row, batch, params, lane_bounds, options.cancel).ok()) {
      return false;  // cancelled, the only error it reports
    }
    uint64_t cells = 0;
    for (size_t lane = 0; lane < unit.requests.size(); ++lane) {
      bounds[unit.requests[lane]] = lane_bounds[lane];
      cells += TwedCells(row, *series[lane]);
    }
    if (done) {
      std::lock_guard lock(done_mutex);
      done(unit.requests.size(), cells);
    }
    return true;
  });
  if (absl::Status status = CostMatrixCancelled(options); !status.ok()) return status;
  return bounds;
}

}  // namespace wasserwarp
