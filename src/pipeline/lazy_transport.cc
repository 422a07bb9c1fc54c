#include "pipeline/lazy_transport.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "common/arena_pool.h"
#include "pipeline/path_choice.h"
#include "tbb/blocked_range.h"
#include "tbb/parallel_for.h"
#include "twed/matrix_progress.h"
#include "twed/pair_requests.h"
#include "twed/twed_bounds.h"
#include "twed/twed_kernel.h"
#include "twed/twed_pruned.h"
#include "twed/twed_quantized.h"
#include "twed/twed_single.h"

namespace wasserwarp {
namespace {

using twed_internal::kInf;

// How far past the duals' threshold (u_i + v_j)^(1/q) a priced pair is computed. Any margin is
// correct; a larger one finishes more pairs in one go, a smaller one abandons them sooner.
// Measured on the 100 x 100 x 2000 workload (bench/lazy_transport_bench.cc).
constexpr double kThresholdMargin = 0.1;

// The share of the full matrix's DP cells above which the first priced round that computes TWEDs
// gives up and computes every pair at once. The lazy rounds run on the same SIMD lanes, but
// abandoned pairs are started again at higher thresholds in later rounds, the strips' pruning
// checks cost a little, and a row's few requests leave lanes empty: measured on 100 x 100 runs of
// 2000 samples (bench/lazy_transport_bench.cc), lazy rounds that evaluate 0.9 of the cells take as
// long as the whole matrix, and at 0.5 about 0.6 of its time.
constexpr double kLazyCellShare = 0.6;

double Power(double c, double q) { return q == 1.0 ? c : q == 2.0 ? c * c : std::pow(c, q); }
double Root(double x, double q) {
  return q == 1.0 ? x : q == 2.0 ? std::sqrt(x) : std::pow(x, 1.0 / q);
}

// What is known of every pair, row-major.
struct PairKnowledge {
  std::vector<double> lower;  // the TWED itself where computed
  std::vector<double> upper;  // the cost of one feasible edit path: all deletions
  // Where the 16-bit DP ran: its estimate of the TWED, no bound but within about 1e-4 of it.
  std::vector<double> estimate;
  std::vector<bool> computed;
  std::vector<bool> abandoned;
  std::vector<bool> int16_bounded;   // lower includes the 16-bit bound
  std::vector<bool> single_bounded;  // lower includes the single-precision bound
};

// The error Twed would report for the first pair, in row-major order, whose inputs it refuses:
// the exhaustive matrix reports it, so the lazy solve does too, whether it computes that pair
// or not. Each series is checked once; pairs only when some check fails.
absl::Status CheckPairInputs(const std::vector<Series>& rows, const std::vector<Series>& cols,
                             const TwedParams& twed) {
  if (twed_internal::AllValidAndAlike(rows, cols)) return absl::OkStatus();
  for (const Series& a : rows) {
    for (const Series& b : cols) {
      if (absl::Status status = twed_internal::ValidateTwedInputs(a, b, twed); !status.ok()) {
        return status;
      }
    }
  }
  return absl::OkStatus();
}

// What is known of every pair before any DP: the endpoint bound (docs/twed_bounds.md), O(d) per
// pair from each run's endpoints, which is near the TWED for runs far apart in level. The
// envelope bound is not used: on the workloads of bench/lazy_transport_bench.cc it came to
// under a tenth of the TWED, far below any dual threshold, and computing it for every pair
// cost 8 % of the exhaustive matrix's time.
absl::StatusOr<PairKnowledge> BoundPairs(const std::vector<Series>& rows,
                                         const std::vector<Series>& cols, const TwedParams& twed) {
  const auto endpoints_of =
      [&](const std::vector<Series>& runs) -> absl::StatusOr<std::vector<TwedEndpoints>> {
    std::vector<TwedEndpoints> all;
    for (const Series& run : runs) {
      absl::StatusOr<TwedEndpoints> endpoints = TwedEndpointsOf(run, twed);
      if (!endpoints.ok()) return endpoints.status();
      all.push_back(*std::move(endpoints));
    }
    return all;
  };
  absl::StatusOr<std::vector<TwedEndpoints>> row_ends = endpoints_of(rows);
  if (!row_ends.ok()) return row_ends.status();
  absl::StatusOr<std::vector<TwedEndpoints>> col_ends = endpoints_of(cols);
  if (!col_ends.ok()) return col_ends.status();
  const size_t m = cols.size();
  const size_t pairs = rows.size() * m;
  PairKnowledge known{std::vector<double>(pairs, 0.0), std::vector<double>(pairs, 0.0),
                      std::vector<double>(pairs, 0.0), std::vector<bool>(pairs, false),
                      std::vector<bool>(pairs, false), std::vector<bool>(pairs, false),
                      std::vector<bool>(pairs, false)};
  for (size_t k = 0; k < pairs; ++k) {
    known.upper[k] = TwedAllDeletedCost((*row_ends)[k / m], (*col_ends)[k % m], twed);
    known.lower[k] = std::max(0.0, TwedEndpointBound((*row_ends)[k / m], (*col_ends)[k % m], twed));
  }
  return known;
}

// The pairs to compute before the first solve: a spread of pairs that covers every row and every
// column, so that the first plan can use computed pairs only when n == m.
std::vector<PairRequest> SeedRequests(size_t n, size_t m) {
  std::vector<bool> seeded(n * m, false);
  for (size_t i = 0; i < n; ++i) seeded[i * m + i * m / n] = true;
  for (size_t j = 0; j < m; ++j) seeded[(j * n / m) * m + j] = true;
  std::vector<PairRequest> requests;
  for (size_t k = 0; k < n * m; ++k) {
    if (seeded[k]) requests.push_back({k, kInf});
  }
  return requests;
}

// The pairs the plan and duals of `solved` ask for: every uncomputed pair of the plan, in full,
// and every uncomputed pair whose lower bound
// does not prove u_i + v_j <= C_ij^q, to a little past the duals' threshold.
std::vector<PairRequest> PricedRequests(const PairKnowledge& known, const TransportResult& solved,
                                        size_t m, double q) {
  std::vector<bool> in_plan(known.lower.size(), false);
  for (const PlanEntry& entry : solved.plan) {
    in_plan[static_cast<size_t>(entry.row) * m + static_cast<size_t>(entry.col)] = true;
  }
  const std::vector<double>& u = solved.certificate.u;
  const std::vector<double>& v = solved.certificate.v;
  std::vector<PairRequest> requests;
  for (size_t k = 0; k < known.lower.size(); ++k) {
    if (known.computed[k]) continue;
    if (in_plan[k]) {
      requests.push_back({k, kInf});
      continue;
    }
    const double reduced = u[k / m] + v[k % m];
    if (reduced <= Power(known.lower[k], q)) continue;
    const double threshold =
        std::max(Root(reduced, q) * (1.0 + kThresholdMargin), std::nextafter(known.lower[k], kInf));
    requests.push_back({k, threshold});
  }
  return requests;
}

uint64_t RequestedCells(const std::vector<Series>& rows, const std::vector<Series>& cols,
                        const std::vector<PairRequest>& requests) {
  uint64_t cells = 0;
  for (const PairRequest& request : requests) {
    cells += TwedCells(rows[request.pair / cols.size()], cols[request.pair % cols.size()]);
  }
  return cells;
}

// Computes `requests` and records what they found: the TWED, or a lower bound above the
// threshold.
absl::Status Settle(const std::vector<Series>& rows, const std::vector<Series>& cols,
                    const TwedParams& twed, std::vector<PairRequest> requests,
                    const CostMatrixOptions& compute, MatrixProgress& progress,
                    PairKnowledge& known, LazyTransportStats& stats) {
  absl::StatusOr<std::vector<BoundedTwed>> results = ComputePairRequests(
      rows, cols, twed, requests, compute, [&](size_t, const BoundedTwed& result) {
        progress.Add(result.within ? 1 : 0, result.cells);
      });
  if (!results.ok()) return results.status();
  for (size_t k = 0; k < requests.size(); ++k) {
    const size_t pair = requests[k].pair;
    const BoundedTwed& result = (*results)[k];
    stats.dp_cells += result.cells;
    if (result.within) {
      known.computed[pair] = true;
      known.lower[pair] = result.value;
    } else {
      known.abandoned[pair] = true;
      known.lower[pair] = std::max(known.lower[pair], result.value);
    }
  }
  return absl::OkStatus();
}

// The priced pairs of `requests` (those with a finite threshold) that a bound has not bounded yet
// (bounded[pair] false): the cheaper bounds go first, the 16-bit one (within 1e-2 to 2e-2 of every
// TWED on runs of one process, at a quarter of its DP's cost), then the single-precision one
// (within about 1e-4, at half the cost), as together they price out every pair outside the plan
// (docs/twed_bounds.md). Empty where the bound does not apply.
std::vector<size_t> UnboundedPairs(const std::vector<bool>& bounded,
                                   const std::vector<PairRequest>& requests, bool applies) {
  std::vector<size_t> pairs;
  if (!applies) return pairs;
  for (const PairRequest& request : requests) {
    if (request.threshold < kInf && !bounded[request.pair]) pairs.push_back(request.pair);
  }
  return pairs;
}

// Bounds `pairs` by the 16-bit DP and records the bounds and estimates. Progress counts a 16-bit
// cell as a quarter of a cell, about its share of the time.
absl::Status BoundInSixteenBits(const std::vector<Series>& rows, const std::vector<Series>& cols,
                                const TwedParams& twed, const std::vector<size_t>& pairs,
                                const CostMatrixOptions& compute, MatrixProgress& progress,
                                PairKnowledge& known, LazyTransportStats& stats) {
  absl::StatusOr<std::vector<PairQuantizedBound>> bounds = ComputePairQuantizedBounds(
      rows, cols, twed, pairs, compute, [&](uint64_t bounded, uint64_t cells) {
        stats.pairs_int16_bounded += bounded;
        stats.int16_cells += cells;
        progress.Add(0, cells / 4);
      });
  if (!bounds.ok()) return bounds.status();
  for (size_t k = 0; k < pairs.size(); ++k) {
    known.lower[pairs[k]] = std::max(known.lower[pairs[k]], (*bounds)[k].bound);
    known.estimate[pairs[k]] = (*bounds)[k].estimate;
    known.int16_bounded[pairs[k]] = true;
  }
  return absl::OkStatus();
}

// Bounds `pairs` in single precision and records the bounds. Progress counts a single-precision
// cell as half a cell, about its share of the time.
absl::Status BoundInSinglePrecision(const std::vector<Series>& rows,
                                    const std::vector<Series>& cols, const TwedParams& twed,
                                    const std::vector<size_t>& pairs,
                                    const CostMatrixOptions& compute, MatrixProgress& progress,
                                    PairKnowledge& known, LazyTransportStats& stats) {
  absl::StatusOr<std::vector<double>> bounds =
      ComputePairBounds(rows, cols, twed, pairs, compute, [&](uint64_t bounded, uint64_t cells) {
        stats.pairs_single_bounded += bounded;
        stats.single_cells += cells;
        progress.Add(0, cells / 2);
      });
  if (!bounds.ok()) return bounds.status();
  for (size_t k = 0; k < pairs.size(); ++k) {
    known.lower[pairs[k]] = std::max(known.lower[pairs[k]], (*bounds)[k]);
    known.single_bounded[pairs[k]] = true;
  }
  return absl::OkStatus();
}

// Which of the DP's own bounds the pairs' channels and TWED parameters allow.
struct BoundsThatApply {
  bool int16 = false;
  bool single = false;
};

// Bounds the priced pairs of `requests` by the cheapest bound that applies and has not bounded
// them yet; false where there is none, and only TWEDs can settle them.
absl::StatusOr<bool> TightenBounds(const std::vector<Series>& rows, const std::vector<Series>& cols,
                                   const TwedParams& twed, const std::vector<PairRequest>& requests,
                                   const BoundsThatApply& applies, const CostMatrixOptions& compute,
                                   MatrixProgress& progress, PairKnowledge& known,
                                   LazyTransportStats& stats) {
  if (std::vector<size_t> pairs = UnboundedPairs(known.int16_bounded, requests, applies.int16);
      !pairs.empty()) {
    absl::Status status =
        BoundInSixteenBits(rows, cols, twed, pairs, compute, progress, known, stats);
    if (!status.ok()) return status;
    return true;
  }
  if (std::vector<size_t> pairs = UnboundedPairs(known.single_bounded, requests, applies.single);
      !pairs.empty()) {
    absl::Status status =
        BoundInSinglePrecision(rows, cols, twed, pairs, compute, progress, known, stats);
    if (!status.ok()) return status;
    return true;
  }
  return false;
}

// The matrix the next solve sees: the TWED where known, the single-precision bound where there
// is one, else the 16-bit DP's estimate (both so near the TWED that the plan is nearly the final
// one, and its duals price out nearly every other such pair); elsewhere the largest TWED known
// (or the lower bound where that is larger), so that the plan keeps to computed pairs where it
// can and the duals start near the computed costs. Any finite stand-in gives the same final plan:
// a plan pair that is not computed is computed in full before the next solve, and a pair whose
// stand-in is above its bound is priced against the bound.
CostMatrix StandIns(const PairKnowledge& known, size_t n, size_t m) {
  double largest = 0.0;
  for (size_t k = 0; k < n * m; ++k) {
    if (known.computed[k]) largest = std::max(largest, known.lower[k]);
  }
  CostMatrix costs(n, m);
  for (size_t k = 0; k < n * m; ++k) {
    if (known.computed[k] || (known.single_bounded[k] && known.lower[k] > 0.0)) {
      costs.values[k] = known.lower[k];
    } else if (known.int16_bounded[k] && known.estimate[k] > 0.0) {
      costs.values[k] = std::max(known.estimate[k], known.lower[k]);
    } else {
      costs.values[k] = std::max(largest, known.lower[k]);
    }
  }
  return costs;
}

// An upper bound on max C_ij^q for the weights' rounding bound (transport.h): the stand-ins the
// solves saw may lie below the TWEDs they stand in for.
double LargestCostToQ(const PairKnowledge& known, double q) {
  double largest = 0.0;
  for (size_t k = 0; k < known.lower.size(); ++k) {
    largest = std::max(largest, known.computed[k] ? known.lower[k] : known.upper[k]);
  }
  return Power(largest, q);
}

// The certificate of `solved` against what is proven of every pair: the TWED where computed,
// the lower bound elsewhere.
absl::Status CertifyOverEveryPair(const PairKnowledge& known, size_t n, size_t m, double q,
                                  TransportResult& solved, CostMatrix& bounds) {
  bounds = CostMatrix(n, m);
  CostMatrix bounds_to_q(n, m);
  for (size_t k = 0; k < n * m; ++k) {
    bounds.values[k] = known.lower[k];
    bounds_to_q.values[k] = Power(known.lower[k], q);
  }
  TransportCertificate certificate =
      CertifyPlan(bounds_to_q, solved.row_weights, solved.col_weights, solved.plan,
                  std::move(solved.certificate.u), std::move(solved.certificate.v));
  const double max_cost_q = *std::max_element(bounds_to_q.values.begin(), bounds_to_q.values.end());
  if (absl::Status status =
          CheckCertificate(certificate, max_cost_q, n, m, TransportSolverName(solved.solver));
      !status.ok()) {
    return status;
  }
  solved.certificate = std::move(certificate);
  return absl::OkStatus();
}

// Where the duals ask for too much of the matrix to pay, or a time window is set: every pair on the
// lane kernel, with the cells already spent on the way counted in.
absl::StatusOr<LazyTransportResult> SolveExhaustively(
    const std::vector<Series>& rows, const std::vector<Series>& cols, const TwedParams& twed,
    const TransportOptions& transport, const CostMatrixOptions& compute, MatrixProgress& progress,
    LazyTransportResult result) {
  CostMatrixOptions whole = compute;
  whole.progress = progress.Continued();
  absl::StatusOr<CostMatrix> costs = ComputeCostMatrix(rows, cols, twed, whole);
  if (!costs.ok()) return costs.status();
  absl::StatusOr<TransportResult> solved = SolveTransport(*costs, transport);
  if (!solved.ok()) return solved.status();
  result.transport = *std::move(solved);
  result.bounds = *std::move(costs);
  result.computed.assign(rows.size() * cols.size(), true);
  result.stats.pairs_computed = result.stats.pairs_total;
  result.stats.pairs_abandoned = 0;
  result.stats.dp_cells += result.stats.dp_cells_full;
  result.stats.exhaustive = true;
  ++result.stats.rounds;
  return result;
}

}  // namespace

absl::StatusOr<LazyTransportResult> SolveLazyTransport(const std::vector<Series>& rows,
                                                       const std::vector<Series>& cols,
                                                       const TwedParams& twed,
                                                       const TransportOptions& transport,
                                                       const CostMatrixOptions& compute) {
  if (absl::Status status = ValidateTwedParams(twed); !status.ok()) return status;
  if (compute.max_threads < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("max_threads must be >= 0 (0: all cores), got ", compute.max_threads));
  }
  const size_t n = rows.size();
  const size_t m = cols.size();
  // An empty side, or weights that do not fit, fail as the exhaustive solve fails.
  if (n == 0 || m == 0) return SolveTransport(CostMatrix(n, m), transport).status();
  if (absl::Status status = ValidateTransportOptions(transport, n, m); !status.ok()) return status;
  if (absl::Status status = CostMatrixCancelled(compute); !status.ok()) return status;
  if (absl::Status status = CheckPairInputs(rows, cols, twed); !status.ok()) return status;

  LazyTransportResult result;
  LazyTransportStats& stats = result.stats;
  stats.pairs_total = n * m;
  for (const Series& a : rows) {
    for (const Series& b : cols) stats.dp_cells_full += TwedCells(a, b);
  }
  // A time window breaks the triangle inequality and can leave a pair without any path, an
  // error that only computing the pair finds: every pair is computed.
  MatrixProgress progress(compute, stats.pairs_total, stats.dp_cells_full);
  if (twed.time_window.has_value()) {
    return SolveExhaustively(rows, cols, twed, transport, compute, progress, std::move(result));
  }
  absl::StatusOr<PairKnowledge> known = BoundPairs(rows, cols, twed);
  if (!known.ok()) return known.status();
  const size_t channels = rows.front().num_channels();
  const BoundsThatApply applies{.int16 = twed_internal::QuantizedSupports(channels, twed),
                                .single = twed_internal::SingleSupports(channels, twed)};
  std::vector<PairRequest> requests = SeedRequests(n, m);
  // Whether no priced round has computed TWEDs yet: the first one may give up (kLazyCellShare).
  bool first_priced = true;
  // Rounds whose solves would cost more than a tenth of computing every pair give up too: where
  // plans keep moving to pairs not yet computed (runs of few samples, near-ties), the rounds
  // would otherwise go on long after every TWED could have been computed.
  const int round_budget = LazyRoundBudget(rows, cols, transport);
  for (;;) {
    if (absl::Status status =
            Settle(rows, cols, twed, std::move(requests), compute, progress, *known, stats);
        !status.ok()) {
      return status;
    }
    if (stats.rounds >= round_budget) {
      return SolveExhaustively(rows, cols, twed, transport, compute, progress, std::move(result));
    }
    ++stats.rounds;
    absl::StatusOr<TransportResult> solved = SolveTransport(StandIns(*known, n, m), transport);
    if (!solved.ok()) return solved.status();
    requests = PricedRequests(*known, *solved, m, transport.order);
    if (requests.empty()) {
      result.transport = *std::move(solved);
      break;
    }
    absl::StatusOr<bool> tightened =
        TightenBounds(rows, cols, twed, requests, applies, compute, progress, *known, stats);
    if (!tightened.ok()) return tightened.status();
    if (*tightened) {
      requests.clear();  // the next solve, on the tighter bounds, decides what still needs more
      continue;
    }
    if (first_priced && RequestedCells(rows, cols, requests) >
                            kLazyCellShare * static_cast<double>(stats.dp_cells_full)) {
      return SolveExhaustively(rows, cols, twed, transport, compute, progress, std::move(result));
    }
    first_priced = false;
  }
  if (absl::Status status =
          CertifyOverEveryPair(*known, n, m, transport.order, result.transport, result.bounds);
      !status.ok()) {
    return status;
  }
  result.transport.weight_rounding_bound =
      LargestCostToQ(*known, transport.order) * result.transport.weight_variation;
  stats.pairs_computed =
      static_cast<uint64_t>(std::count(known->computed.begin(), known->computed.end(), true));
  stats.pairs_abandoned =
      static_cast<uint64_t>(std::count(known->abandoned.begin(), known->abandoned.end(), true));
  result.computed = std::move(known->computed);
  progress.Finish();
  return result;
}

}  // namespace wasserwarp
