#include "twed/pair_requests.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <iterator>
#include <mutex>
#include <numeric>
#include <optional>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "common/arena_pool.h"
#include "common/first_error.h"
#include "tbb/blocked_range.h"
#include "tbb/parallel_for.h"
#include "twed/twed_batch.h"
#include "twed/twed_quantized.h"
#include "twed/twed_single.h"

namespace wasserwarp {
namespace {

// The requests that share the SIMD lanes of one kernel call, as indices into the requests: one
// row's against several columns, one column's against several rows (the column's run then in the
// row's place; TWED is symmetric operation for operation, so the lanes give the row-major pair's
// bits: tests/twed_symmetry_test.cc), or pairs that share no run (BatchTwedPairs). A single
// request where the lanes do not apply.
struct RequestUnit {
  enum class Shares { kRow, kColumn, kNothing };
  Shares shares = Shares::kRow;
  size_t shared = 0;      // the row or the column the lanes share
  size_t first_pair = 0;  // the smallest pair of the unit
  std::vector<size_t> requests;
};

// The run the lanes of `unit` share (not kNothing), and the run of `pair` on its lane.
const Series& SharedRun(const RequestUnit& unit, const std::vector<Series>& rows,
                        const std::vector<Series>& cols) {
  return unit.shares == RequestUnit::Shares::kColumn ? cols[unit.shared] : rows[unit.shared];
}
const Series& LaneRun(const RequestUnit& unit, size_t pair, const std::vector<Series>& rows,
                      const std::vector<Series>& cols) {
  return unit.shares == RequestUnit::Shares::kColumn ? rows[pair / cols.size()]
                                                     : cols[pair % cols.size()];
}

// Unit `unit` with its requests and their smallest pair.
void Fill(RequestUnit& unit, std::vector<size_t>::const_iterator begin,
          std::vector<size_t>::const_iterator end, const std::vector<size_t>& pairs) {
  unit.requests.assign(begin, end);
  unit.first_pair = pairs[unit.requests.front()];
  for (size_t k : unit.requests) unit.first_pair = std::min(unit.first_pair, pairs[k]);
}

// The requests `order` of one shared run in units of `lanes`, runs of nearly the same length
// side by side (as ComputeCostMatrix batches them) so that little padding is computed: the full
// units into `full`, the shorter last one into `rest`.
void Chunk(std::vector<size_t> order, RequestUnit::Shares shares, size_t shared, size_t lanes,
           const std::vector<size_t>& pairs, const std::vector<Series>& rows,
           const std::vector<Series>& cols, std::vector<RequestUnit>& full,
           std::vector<RequestUnit>& rest) {
  const RequestUnit shape{shares, shared, 0, {}};
  std::stable_sort(order.begin(), order.end(), [&](size_t x, size_t y) {
    return LaneRun(shape, pairs[x], rows, cols).samples() <
           LaneRun(shape, pairs[y], rows, cols).samples();
  });
  for (size_t first = 0; first < order.size(); first += lanes) {
    const size_t last = std::min(order.size(), first + lanes);
    RequestUnit unit = shape;
    Fill(unit, order.begin() + first, order.begin() + last, pairs);
    (last - first == lanes ? full : rest).push_back(std::move(unit));
  }
}

// Requests come sorted by pair, so each row's are contiguous, and share lanes by row. What each
// row leaves over, fewer requests than lanes, is regrouped by column where that takes fewer
// kernel calls: when every row leaves the same few columns over (every pair asked for, and
// lanes that do not divide the columns), their rows fill the lanes. `lanes` >= 1; pairs[k] is
// request k's pair.
std::vector<RequestUnit> UnitsOf(const std::vector<Series>& rows, const std::vector<Series>& cols,
                                 const std::vector<size_t>& pairs, size_t lanes) {
  const size_t m = cols.size();
  std::vector<RequestUnit> units;
  std::vector<RequestUnit> row_rests;
  for (size_t begin = 0; begin < pairs.size();) {
    const size_t row = pairs[begin] / m;
    size_t end = begin;
    while (end < pairs.size() && pairs[end] / m == row) ++end;
    std::vector<size_t> order(end - begin);
    for (size_t k = 0; k < order.size(); ++k) order[k] = begin + k;
    Chunk(std::move(order), RequestUnit::Shares::kRow, row, lanes, pairs, rows, cols, units,
          row_rests);
    begin = end;
  }
  std::vector<size_t> rest;
  for (const RequestUnit& unit : row_rests) {
    rest.insert(rest.end(), unit.requests.begin(), unit.requests.end());
  }
  std::stable_sort(rest.begin(), rest.end(),
                   [&](size_t x, size_t y) { return pairs[x] % m < pairs[y] % m; });
  std::vector<RequestUnit> column_units;
  for (size_t begin = 0; begin < rest.size();) {
    const size_t col = pairs[rest[begin]] % m;
    size_t end = begin;
    while (end < rest.size() && pairs[rest[end]] % m == col) ++end;
    // Every unit of a column, full or not.
    Chunk(std::vector<size_t>(rest.begin() + begin, rest.begin() + end),
          RequestUnit::Shares::kColumn, col, lanes, pairs, rows, cols, column_units, column_units);
    begin = end;
  }
  std::vector<RequestUnit>& rests =
      column_units.size() < row_rests.size() ? column_units : row_rests;
  std::move(rests.begin(), rests.end(), std::back_inserter(units));
  return units;
}

// `requests` (indices into `pairs`) in units of up to `lanes` that share no run, pairs of nearly
// the same lengths side by side, appended to `units`; with `one_length`, only pairs of exactly the
// same lengths share a unit.
void AppendUnsharedUnits(std::vector<size_t> requests, const std::vector<size_t>& pairs,
                         const std::vector<Series>& rows, const std::vector<Series>& cols,
                         size_t lanes, std::vector<RequestUnit>& units, bool one_length = false) {
  const size_t m = cols.size();
  const auto lengths = [&](size_t k) {
    return std::pair(rows[pairs[k] / m].samples(), cols[pairs[k] % m].samples());
  };
  std::stable_sort(requests.begin(), requests.end(),
                   [&](size_t x, size_t y) { return lengths(x) < lengths(y); });
  for (size_t first = 0; first < requests.size();) {
    size_t last = first + 1;
    while (last < requests.size() && last - first < lanes &&
           (!one_length || lengths(requests[last]) == lengths(requests[first]))) {
      ++last;
    }
    RequestUnit unit{RequestUnit::Shares::kNothing, 0, 0, {}};
    Fill(unit, requests.begin() + first, requests.begin() + last, pairs);
    units.push_back(std::move(unit));
    first = last;
  }
}

// `units` with their lone requests for a whole TWED (threshold +inf: the seeds and a plan's pairs,
// seldom two to a row or a column) gathered `lanes` at a time into units that share nothing.
// pairs[k] is request k's pair.
std::vector<RequestUnit> WithUnsharedUnits(std::vector<RequestUnit> units,
                                           const std::vector<PairRequest>& requests,
                                           const std::vector<size_t>& pairs,
                                           const std::vector<Series>& rows,
                                           const std::vector<Series>& cols, size_t lanes) {
  std::vector<size_t> lone;
  std::erase_if(units, [&](const RequestUnit& unit) {
    const bool whole =
        unit.requests.size() == 1 && std::isinf(requests[unit.requests[0]].threshold);
    if (whole) lone.push_back(unit.requests[0]);
    return whole;
  });
  AppendUnsharedUnits(std::move(lone), pairs, rows, cols, lanes, units);
  return units;
}

// `units` with the requests of every unit that leaves lanes empty gathered `lanes` at a time into
// units that share nothing: the bounds' requests, scattered over rows and columns once the
// 16-bit bound has priced out most pairs. pairs[k] is request k's pair.
std::vector<RequestUnit> WithPooledRests(std::vector<RequestUnit> units,
                                         const std::vector<size_t>& pairs,
                                         const std::vector<Series>& rows,
                                         const std::vector<Series>& cols, size_t lanes) {
  std::vector<size_t> rest;
  std::erase_if(units, [&](const RequestUnit& unit) {
    const bool partial = unit.requests.size() < lanes;
    if (partial) rest.insert(rest.end(), unit.requests.begin(), unit.requests.end());
    return partial;
  });
  AppendUnsharedUnits(std::move(rest), pairs, rows, cols, lanes, units);
  return units;
}

// Runs `compute_unit` on every unit on TBB, in the arena `options` asks for, until one returns
// false (cancelled) or `cancel` is found set; units whose pairs all follow one `first_error` (may
// be null) holds are skipped.
template <class ComputeUnit>
void ForEachUnit(const std::vector<RequestUnit>& units, const CostMatrixOptions& options,
                 const FirstError* first_error, const ComputeUnit& compute_unit) {
  const CancellationToken* cancel = options.cancel;
  BorrowedArena arena(options.max_threads);
  arena.execute([&] {
    tbb::parallel_for(tbb::blocked_range<size_t>(0, units.size(), 1),
                      [&](const tbb::blocked_range<size_t>& r) {
                        for (size_t u = r.begin(); u < r.end(); ++u) {
                          if (cancel != nullptr && cancel->cancelled()) return;
                          if (first_error != nullptr && first_error->Skips(units[u].first_pair)) {
                            continue;
                          }
                          if (!compute_unit(units[u])) return;
                        }
                      });
  });
}

// Runs `bound_unit` on every unit as ForEachUnit does, and tells `done` (may be empty) of each unit
// it finished: its pairs and their DP cells. `bound_unit(unit)` bounds the unit's requests, false
// once cancelled. The status: Cancelled when `options.cancel` is set.
template <class BoundUnit>
absl::Status BoundEveryUnit(const std::vector<RequestUnit>& units, const std::vector<size_t>& pairs,
                            const std::vector<Series>& rows, const std::vector<Series>& cols,
                            const CostMatrixOptions& options, const PairBoundsDone& done,
                            const BoundUnit& bound_unit) {
  std::mutex done_mutex;
  ForEachUnit(units, options, nullptr, [&](const RequestUnit& unit) {
    if (!bound_unit(unit)) return false;
    if (done) {
      uint64_t cells = 0;
      for (size_t k : unit.requests) {
        cells += TwedCells(rows[pairs[k] / cols.size()], cols[pairs[k] % cols.size()]);
      }
      std::lock_guard lock(done_mutex);
      done(unit.requests.size(), cells);
    }
    return true;
  });
  return CostMatrixCancelled(options);
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
  std::vector<RequestUnit> units = UnitsOf(rows, cols, pairs, lanes < 2 ? 1 : lanes);
  if (lanes >= 2 && twed_internal::PairsSupport(cols.front().num_channels(), params)) {
    units = WithUnsharedUnits(std::move(units), requests, pairs, rows, cols, lanes);
  }
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
  // Lanes that overflowed go to the one-pair kernel for its error.
  const auto record_lane = [&](size_t k, const BoundedTwed& lane_result) -> bool {
    if (lane_result.within && !std::isfinite(lane_result.value)) return compute_one(k);
    results[k] = lane_result;
    report(k);
    return true;
  };
  const auto compute_unshared = [&](const RequestUnit& unit) -> bool {
    std::vector<const Series*> lane_rows;
    std::vector<const Series*> lane_cols;
    for (size_t k : unit.requests) {
      lane_rows.push_back(&rows[requests[k].pair / m]);
      lane_cols.push_back(&cols[requests[k].pair % m]);
    }
    const twed_internal::LaneBatch row_batch(lane_rows, params, lanes);
    const twed_internal::LaneBatch col_batch(lane_cols, params, lanes);
    std::vector<double> values(unit.requests.size());
    if (!twed_internal::BatchTwedPairs(row_batch, col_batch, params, values, cancel).ok()) {
      return false;  // cancelled, the only error the lanes report
    }
    for (size_t lane = 0; lane < unit.requests.size(); ++lane) {
      const BoundedTwed lane_result{.within = true,
                                    .value = values[lane],
                                    .cells = TwedCells(*lane_rows[lane], *lane_cols[lane])};
      if (!record_lane(unit.requests[lane], lane_result)) return false;
    }
    return true;
  };
  const auto compute_unit = [&](const RequestUnit& unit) -> bool {
    if (unit.requests.size() < 2) return compute_one(unit.requests.front());
    if (unit.shares == RequestUnit::Shares::kNothing) return compute_unshared(unit);
    std::vector<const Series*> series;
    std::vector<double> thresholds;
    for (size_t k : unit.requests) {
      series.push_back(&LaneRun(unit, requests[k].pair, rows, cols));
      thresholds.push_back(requests[k].threshold);
    }
    const twed_internal::LaneBatch batch(series, params, lanes);
    std::vector<BoundedTwed> lane_results(unit.requests.size());
    if (!twed_internal::BatchTwedWithin(SharedRun(unit, rows, cols), batch, params, thresholds,
                                        lane_results, cancel)
             .ok()) {
      return false;  // cancelled, the only error the lanes report
    }
    for (size_t lane = 0; lane < unit.requests.size(); ++lane) {
      if (!record_lane(unit.requests[lane], lane_results[lane])) return false;
    }
    return true;
  };
  ForEachUnit(units, options, &first_error, compute_unit);
  if (absl::Status status = CostMatrixCancelled(options); !status.ok()) return status;
  if (absl::Status status = first_error.status(); !status.ok()) return status;
  return results;
}

absl::StatusOr<std::vector<EditPathSummary>> ComputePairPaths(const std::vector<Series>& rows,
                                                              const std::vector<Series>& cols,
                                                              const TwedParams& params,
                                                              const std::vector<size_t>& pairs,
                                                              const CostMatrixOptions& options) {
  const size_t m = cols.size();
  const bool lanes_apply = !cols.empty() &&
                           twed_internal::PairsSupport(cols.front().num_channels(), params) &&
                           twed_internal::BatchLanes() >= 2;
  const size_t lanes = lanes_apply ? twed_internal::BatchLanes() : 1;
  std::vector<size_t> all(pairs.size());
  std::iota(all.begin(), all.end(), size_t{0});
  std::vector<RequestUnit> units;
  AppendUnsharedUnits(std::move(all), pairs, rows, cols, lanes, units);
  std::vector<EditPathSummary> paths(pairs.size());
  FirstError first_error;
  const CancellationToken* cancel = options.cancel;
  // One pair on the scalar kernel, which also reports what the lanes cannot: the error of a
  // distance that overflows.
  const auto compute_one = [&](size_t k) -> bool {
    absl::StatusOr<EditPathSummary> path =
        TwedWithPath(rows[pairs[k] / m], cols[pairs[k] % m], params, cancel);
    if (absl::IsCancelled(path.status())) return false;
    if (!path.ok()) {
      first_error.Record(pairs[k], std::move(path).status());
      return true;
    }
    paths[k] = *path;
    return true;
  };
  ForEachUnit(units, options, &first_error, [&](const RequestUnit& unit) -> bool {
    if (!lanes_apply) return compute_one(unit.requests.front());
    std::vector<const Series*> lane_rows;
    std::vector<const Series*> lane_cols;
    for (size_t k : unit.requests) {
      lane_rows.push_back(&rows[pairs[k] / m]);
      lane_cols.push_back(&cols[pairs[k] % m]);
    }
    const twed_internal::LaneBatch row_batch(lane_rows, params, lanes);
    const twed_internal::LaneBatch col_batch(lane_cols, params, lanes);
    std::vector<EditPathSummary> lane_paths(unit.requests.size());
    if (!twed_internal::BatchTwedPairsWithPath(row_batch, col_batch, params, lane_paths, cancel)
             .ok()) {
      return false;  // cancelled, the only error the lanes report
    }
    for (size_t lane = 0; lane < unit.requests.size(); ++lane) {
      const size_t k = unit.requests[lane];
      if (!std::isfinite(lane_paths[lane].distance)) {
        if (!compute_one(k)) return false;
        continue;
      }
      paths[k] = lane_paths[lane];
    }
    return true;
  });
  if (absl::Status status = CostMatrixCancelled(options); !status.ok()) return status;
  if (absl::Status status = first_error.status(); !status.ok()) return status;
  return paths;
}

namespace {

// The runs of `pairs` in single precision relative to the first sample of the first row, each
// converted once however many pairs it is in: row r at r, column c at rows.size() + c; runs in no
// pair stay empty.
std::vector<twed_internal::SingleRun> SingleRunsOf(const std::vector<Series>& rows,
                                                   const std::vector<Series>& cols,
                                                   const TwedParams& params,
                                                   const std::vector<size_t>& pairs) {
  const size_t m = cols.size();
  std::vector<bool> used(rows.size() + m, false);
  for (size_t pair : pairs) {
    used[pair / m] = true;
    used[rows.size() + pair % m] = true;
  }
  const twed_internal::SingleOrigin origin = twed_internal::OriginAt(rows.front());
  std::vector<twed_internal::SingleRun> runs(used.size());
  for (size_t k = 0; k < used.size(); ++k) {
    if (!used[k]) continue;
    const Series& run = k < rows.size() ? rows[k] : cols[k - rows.size()];
    runs[k] = twed_internal::ToSingleRun(run, origin, params);
  }
  return runs;
}

}  // namespace

absl::StatusOr<std::vector<double>> ComputePairBounds(const std::vector<Series>& rows,
                                                      const std::vector<Series>& cols,
                                                      const TwedParams& params,
                                                      const std::vector<size_t>& pairs,
                                                      const CostMatrixOptions& options,
                                                      const PairBoundsDone& done) {
  std::vector<double> bounds(pairs.size(), 0.0);
  if (pairs.empty() || !twed_internal::SingleSupports(cols.front().num_channels(), params)) {
    return bounds;
  }
  const size_t n = rows.size();
  const size_t m = cols.size();
  const size_t lanes = twed_internal::SingleLanes();
  const std::vector<twed_internal::SingleRun> single = SingleRunsOf(rows, cols, params, pairs);
  std::vector<RequestUnit> units = UnitsOf(rows, cols, pairs, lanes);
  if (twed_internal::SinglePairsSupport(cols.front().num_channels(), params)) {
    units = WithPooledRests(std::move(units), pairs, rows, cols, lanes);
  }
  const absl::Status status =
      BoundEveryUnit(units, pairs, rows, cols, options, done, [&](const RequestUnit& unit) {
        const bool by_column = unit.shares == RequestUnit::Shares::kColumn;
        std::vector<const twed_internal::SingleRun*> lane_rows;
        std::vector<const twed_internal::SingleRun*> lane_runs;
        for (size_t k : unit.requests) {
          const size_t row = pairs[k] / m;
          const size_t col = n + pairs[k] % m;
          lane_rows.push_back(&single[by_column ? col : row]);
          lane_runs.push_back(&single[by_column ? row : col]);
        }
        std::vector<double> lane_bounds(unit.requests.size());
        const twed_internal::SingleLaneBatch batch(lane_runs, lanes);
        absl::Status bounded;
        if (unit.shares == RequestUnit::Shares::kNothing) {
          const twed_internal::SingleLaneBatch row_batch(lane_rows, lanes);
          bounded = twed_internal::SingleTwedBoundOfPairs(row_batch, batch, params, lane_bounds,
                                                          options.cancel);
        } else {
          bounded = twed_internal::SingleTwedBound(*lane_rows.front(), batch, params, lane_bounds,
                                                   options.cancel);
        }
        if (!bounded.ok()) return false;  // cancelled, the only error it reports
        for (size_t lane = 0; lane < unit.requests.size(); ++lane) {
          bounds[unit.requests[lane]] = lane_bounds[lane];
        }
        return true;
      });
  if (!status.ok()) return status;
  return bounds;
}

absl::StatusOr<std::vector<PairQuantizedBound>> ComputePairQuantizedBounds(
    const std::vector<Series>& rows, const std::vector<Series>& cols, const TwedParams& params,
    const std::vector<size_t>& pairs, const CostMatrixOptions& options,
    const PairBoundsDone& done) {
  std::vector<PairQuantizedBound> bounds(pairs.size());
  if (cols.empty() || !twed_internal::QuantizedSupports(cols.front().num_channels(), params)) {
    return bounds;
  }
  const size_t m = cols.size();
  const size_t lanes = twed_internal::QuantizedLanes();
  std::vector<size_t> all(pairs.size());
  std::iota(all.begin(), all.end(), size_t{0});
  std::vector<RequestUnit> units;
  // Padding a shorter run can only loosen its bound where lambda > 0 (twed_quantized.h).
  AppendUnsharedUnits(std::move(all), pairs, rows, cols, lanes, units,
                      /*one_length=*/params.lambda > 0.0);
  const absl::Status status =
      BoundEveryUnit(units, pairs, rows, cols, options, done, [&](const RequestUnit& unit) {
        std::vector<const Series*> lane_rows;
        std::vector<const Series*> lane_cols;
        for (size_t k : unit.requests) {
          lane_rows.push_back(&rows[pairs[k] / m]);
          lane_cols.push_back(&cols[pairs[k] % m]);
        }
        const twed_internal::QuantizedLaneBatch batch(lane_rows, lane_cols, params, lanes);
        std::vector<twed_internal::QuantizedBound> lane_bounds(unit.requests.size());
        if (!twed_internal::QuantizedTwedBound(batch, lane_bounds, options.cancel).ok()) {
          return false;  // cancelled, the only error it reports
        }
        for (size_t lane = 0; lane < unit.requests.size(); ++lane) {
          bounds[unit.requests[lane]] = {lane_bounds[lane].bound, lane_bounds[lane].estimate};
        }
        return true;
      });
  if (!status.ok()) return status;
  return bounds;
}

}  // namespace wasserwarp
