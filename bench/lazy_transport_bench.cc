// The lazy transport (issue 19) against the exhaustive one, ComputeCostMatrix then
// SolveTransport, on the end-to-end benchmark's runs (bench/e2e_workload.h, built in memory):
// 30 x 30 runs of 500 samples, 100 x 100 of 2000 (the e2e workload itself) and 400 x 400 of 1000;
// and 100 x 100 x 2000 at two levels (levels = 2: the second half of each set offset by 200),
// where the pairs across levels are priced out by their endpoint bounds, as in a validation
// that holds runs at two operating points.
// Counters say how much of the full matrix each computed: pairs, DP cells, transport rounds.
// BM_DualOracle says how few cells any lazy solve with this pruned DP could spend: handed the
// exhaustive solve's plan and duals for free, it computes the plan's pairs in full and proves
// C_ij^q >= u_i + v_j for every other pair the endpoint bound leaves open, each abandoned at
// exactly (u_i + v_j)^(1/q), on the lazy solve's lanes.
// BM_CertificateFloor says what any certificate needs, whatever its duals and lower bounds: if
// L_ij <= C_ij^q are lower bounds with the same optimum W^q, the independent coupling a_i b_j is a
// plan for L, so sum a_i b_j L_ij >= W^q. `certificate_floor` = W^q / sum a_i b_j C_ij^q is the
// share of the mean cost that proven bounds must reach on average, and `endpoint_share` what the
// free endpoint bounds give of W^q. The bounds could only be concentrated on a few pairs if some
// pairs carried much more of sum a_i b_j C_ij^q per DP cell than others: `value_per_cell_p10` and
// `_p90` are those quantiles over the pairs, relative to the mean. `cells_at_*` say what a proof
// costs: the cells TwedWithin spends to prove C_ij^q > f C_ij^q, on every 25th pair, for f = 0.25,
// 0.5, 0.75 and the floor.

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <map>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_format.h"
#include "e2e_workload.h"
#include "pipeline/lazy_transport.h"
#include "twed/pair_requests.h"
#include "twed/twed_bounds.h"
#include "twed/twed_pruned.h"
#include "wasserwarp/cost_matrix.h"
#include "wasserwarp/csv.h"
#include "wasserwarp/series.h"
#include "wasserwarp/transport.h"
#include "wasserwarp/twed.h"

namespace wasserwarp {
namespace {

struct RunSets {
  std::vector<Series> sim;
  std::vector<Series> ref;
};

// The runs WriteWorkload would write, in its order (all of sim, then all of ref, from one
// generator), read back through the CSV parser as the CLI reads the files. Cached: both solvers
// of one size see the same sets, and the 400-run sets take a while to format and parse.
const RunSets& WorkloadSets(int runs, int samples, int levels, int channels) {
  static auto* cache = new std::map<std::tuple<int, int, int, int>, RunSets>();
  auto [it, inserted] = cache->try_emplace({runs, samples, levels, channels});
  if (!inserted) return it->second;
  const bench::Workload workload{.runs = runs, .samples = samples, .channels = channels, .seed = 1};
  bench::WorkloadRandom random(workload.seed);
  for (const bool ref : {false, true}) {
    const double noise = ref ? 0.02 : 0.0;  // measured runs carry sensor noise
    for (int r = 0; r < runs; ++r) {
      const std::string id = absl::StrFormat("%s_%03d", ref ? "ref" : "sim", r);
      absl::StatusOr<Series> series =
          ParseSeriesCsv(bench::RunCsv(workload, random, noise), id + ".csv", id);
      if (!series.ok()) {
        std::fprintf(stderr, "%s\n", series.status().ToString().c_str());
        std::abort();
      }
      if (levels == 2 && 2 * r >= runs) {
        for (double& value : series->values) value += 200.0;
      }
      (ref ? it->second.ref : it->second.sim).push_back(*std::move(series));
    }
  }
  return it->second;
}

uint64_t FullCells(const RunSets& sets) {
  uint64_t rows = 0;
  uint64_t cols = 0;
  for (const Series& s : sets.sim) rows += s.samples();
  for (const Series& s : sets.ref) cols += s.samples();
  return rows * cols;
}

void SetCounters(benchmark::State& state, const char* solver, const LazyTransportStats& stats,
                 double distance) {
  state.counters["pairs_computed"] = static_cast<double>(stats.pairs_computed);
  state.counters["pairs_total"] = static_cast<double>(stats.pairs_total);
  state.counters["pairs_abandoned"] = static_cast<double>(stats.pairs_abandoned);
  state.counters["dp_cells"] = static_cast<double>(stats.dp_cells);
  state.counters["dp_cells_full"] = static_cast<double>(stats.dp_cells_full);
  state.counters["cells_fraction"] =
      static_cast<double>(stats.dp_cells) / static_cast<double>(stats.dp_cells_full);
  // The 16-bit and single-precision bounds' cells, each about a quarter and half a DP cell's time
  // (docs/twed_bounds.md).
  state.counters["int16_cells"] = static_cast<double>(stats.int16_cells);
  state.counters["single_cells"] = static_cast<double>(stats.single_cells);
  state.counters["rounds"] = stats.rounds;
  state.counters["exhaustive"] = stats.exhaustive ? 1 : 0;  // the lazy solve gave up and did all
  state.counters["W"] = distance;
  // The counters print W to a few digits; both solvers' W in full, to compare them.
  std::fprintf(stderr, "%s %d x %d runs of %d samples, %d level(s), %d channel(s): W = %.17g\n",
               solver, static_cast<int>(state.range(0)), static_cast<int>(state.range(0)),
               static_cast<int>(state.range(1)), static_cast<int>(state.range(2)),
               static_cast<int>(state.range(3)), distance);
}

void BM_Lazy(benchmark::State& state) {
  const RunSets& sets =
      WorkloadSets(state.range(0), state.range(1), state.range(2), state.range(3));
  LazyTransportStats stats;
  double distance = 0.0;
  for (auto _ : state) {
    absl::StatusOr<LazyTransportResult> result =
        SolveLazyTransport(sets.sim, sets.ref, TwedParams{}, TransportOptions{});
    if (!result.ok()) {
      state.SkipWithError(std::string(result.status().message()).c_str());
      return;
    }
    stats = result->stats;
    distance = result->transport.distance;
  }
  SetCounters(state, "lazy", stats, distance);
}

void BM_Exhaustive(benchmark::State& state) {
  const RunSets& sets =
      WorkloadSets(state.range(0), state.range(1), state.range(2), state.range(3));
  double distance = 0.0;
  for (auto _ : state) {
    absl::StatusOr<CostMatrix> costs = ComputeCostMatrix(sets.sim, sets.ref, TwedParams{});
    if (!costs.ok()) {
      state.SkipWithError(std::string(costs.status().message()).c_str());
      return;
    }
    absl::StatusOr<TransportResult> result = SolveTransport(*costs, TransportOptions{});
    if (!result.ok()) {
      state.SkipWithError(std::string(result.status().message()).c_str());
      return;
    }
    distance = result->distance;
  }
  // Every pair in full, in one transport solve: the figures the lazy solve is measured against.
  const uint64_t pairs = sets.sim.size() * sets.ref.size();
  const uint64_t cells = FullCells(sets);
  SetCounters(state, "exhaustive",
              {.pairs_total = pairs,
               .pairs_computed = pairs,
               .pairs_abandoned = 0,
               .dp_cells = cells,
               .dp_cells_full = cells,
               .rounds = 1,
               .exhaustive = true},
              distance);
}

struct ExhaustiveSolve {
  CostMatrix costs;
  TransportResult transport;
};

// The full matrix and its transport; the error of whichever fails.
absl::StatusOr<ExhaustiveSolve> SolveExhaustively(const RunSets& sets, const TwedParams& twed,
                                                  const TransportOptions& transport) {
  absl::StatusOr<CostMatrix> costs = ComputeCostMatrix(sets.sim, sets.ref, twed);
  if (!costs.ok()) return costs.status();
  absl::StatusOr<TransportResult> solved = SolveTransport(*costs, transport);
  if (!solved.ok()) return solved.status();
  return ExhaustiveSolve{*std::move(costs), *std::move(solved)};
}

void BM_DualOracle(benchmark::State& state) {
  const RunSets& sets =
      WorkloadSets(state.range(0), state.range(1), state.range(2), state.range(3));
  const TwedParams twed;
  const TransportOptions transport;
  absl::StatusOr<ExhaustiveSolve> exhaustive = SolveExhaustively(sets, twed, transport);
  if (!exhaustive.ok()) {
    state.SkipWithError(std::string(exhaustive.status().message()).c_str());
    return;
  }
  const CostMatrix& costs = exhaustive->costs;
  const TransportResult& solved = exhaustive->transport;
  const size_t m = sets.ref.size();
  std::vector<bool> in_plan(costs.values.size(), false);
  for (const PlanEntry& entry : solved.plan) {
    in_plan[static_cast<size_t>(entry.row) * m + static_cast<size_t>(entry.col)] = true;
  }
  std::vector<PairRequest> requests;
  uint64_t priced_out = 0;
  for (size_t k = 0; k < in_plan.size(); ++k) {
    const Series& a = sets.sim[k / m];
    const Series& b = sets.ref[k % m];
    const double reduced = solved.certificate.u[k / m] + solved.certificate.v[k % m];
    const double threshold =
        transport.order == 1.0 ? reduced : std::pow(reduced, 1.0 / transport.order);
    if (in_plan[k]) {
      requests.push_back({k, std::numeric_limits<double>::infinity()});
    } else if (TwedEndpointBound(a, b, twed).value_or(0.0) >= threshold) {
      ++priced_out;
    } else {
      requests.push_back({k, threshold});
    }
  }
  uint64_t cells = 0;
  for (auto _ : state) {
    cells = 0;
    absl::StatusOr<std::vector<BoundedTwed>> results =
        ComputePairRequests(sets.sim, sets.ref, twed, requests, {}, nullptr);
    if (!results.ok()) {
      state.SkipWithError(std::string(results.status().message()).c_str());
      return;
    }
    for (const BoundedTwed& result : *results) cells += result.cells;
  }
  // The lanes evaluate the union of their pairs' live columns; one pair alone (TwedWithin) only
  // its own, on every 25th request.
  uint64_t single_cells = 0;
  uint64_t single_full = 0;
  for (size_t k = 0; k < requests.size(); k += 25) {
    const Series& a = sets.sim[requests[k].pair / m];
    const Series& b = sets.ref[requests[k].pair % m];
    absl::StatusOr<BoundedTwed> alone = TwedWithin(a, b, twed, requests[k].threshold);
    if (!alone.ok()) {
      state.SkipWithError(std::string(alone.status().message()).c_str());
      return;
    }
    single_cells += alone->cells;
    single_full += TwedCells(a, b);
  }
  const uint64_t full = FullCells(sets);
  state.counters["one_pair_cells_fraction"] =
      static_cast<double>(single_cells) / static_cast<double>(single_full);
  state.counters["pairs_priced_out"] = static_cast<double>(priced_out);
  state.counters["pairs_total"] = static_cast<double>(in_plan.size());
  state.counters["dp_cells"] = static_cast<double>(cells);
  state.counters["cells_fraction"] = static_cast<double>(cells) / static_cast<double>(full);
}

void BM_CertificateFloor(benchmark::State& state) {
  const RunSets& sets =
      WorkloadSets(state.range(0), state.range(1), state.range(2), state.range(3));
  const TwedParams twed;
  absl::StatusOr<ExhaustiveSolve> exhaustive = SolveExhaustively(sets, twed, TransportOptions{});
  if (!exhaustive.ok()) {
    state.SkipWithError(std::string(exhaustive.status().message()).c_str());
    return;
  }
  const TransportResult& solved = exhaustive->transport;
  const double q = solved.order;
  const size_t m = sets.ref.size();
  std::vector<double> value_per_cell;
  double total_value = 0.0;
  double endpoint = 0.0;
  for (size_t k = 0; k < exhaustive->costs.values.size(); ++k) {
    const Series& a = sets.sim[k / m];
    const Series& b = sets.ref[k % m];
    const double mass = solved.row_weights[k / m] * solved.col_weights[k % m];
    const double value = mass * std::pow(exhaustive->costs.values[k], q);
    value_per_cell.push_back(value / static_cast<double>(TwedCells(a, b)));
    total_value += value;
    endpoint += mass * std::pow(TwedEndpointBound(a, b, twed).value_or(0.0), q);
  }
  const uint64_t full = FullCells(sets);
  const double mean_per_cell = total_value / static_cast<double>(full);
  std::sort(value_per_cell.begin(), value_per_cell.end());
  const auto quantile = [&](double p) {
    return value_per_cell[static_cast<size_t>(p * static_cast<double>(value_per_cell.size() - 1))] /
           mean_per_cell;
  };
  const double optimum = solved.certificate.primal;
  const double floor = optimum / total_value;
  for (auto _ : state) {
    for (const auto& [name, share] :
         std::vector<std::pair<std::string, double>>{{"cells_at_0.25", 0.25},
                                                     {"cells_at_0.5", 0.5},
                                                     {"cells_at_0.75", 0.75},
                                                     {"cells_at_floor", floor}}) {
      uint64_t cells = 0;
      uint64_t cells_full = 0;
      for (size_t k = 0; k < exhaustive->costs.values.size(); k += 25) {
        const Series& a = sets.sim[k / m];
        const Series& b = sets.ref[k % m];
        const double threshold = std::pow(share, 1.0 / q) * exhaustive->costs.values[k];
        absl::StatusOr<BoundedTwed> proven = TwedWithin(a, b, twed, threshold);
        if (!proven.ok()) {
          state.SkipWithError(std::string(proven.status().message()).c_str());
          return;
        }
        cells += proven->cells;
        cells_full += TwedCells(a, b);
      }
      state.counters[name] = static_cast<double>(cells) / static_cast<double>(cells_full);
    }
  }
  state.counters["certificate_floor"] = floor;
  state.counters["endpoint_share"] = endpoint / optimum;
  state.counters["value_per_cell_p10"] = quantile(0.1);
  state.counters["value_per_cell_p90"] = quantile(0.9);
}

// The quick size is timed as usual; the big ones once each, they take seconds to minutes.
void Sizes(benchmark::internal::Benchmark* b) {
  b->ArgNames({"runs", "samples", "levels", "channels"})->UseRealTime()->Unit(benchmark::kSecond);
}

BENCHMARK(BM_Lazy)->Apply(Sizes)->Args({30, 500, 1, 1});
BENCHMARK(BM_Exhaustive)->Apply(Sizes)->Args({30, 500, 1, 1});
BENCHMARK(BM_DualOracle)->Apply(Sizes)->Args({30, 500, 1, 1});
BENCHMARK(BM_CertificateFloor)->Apply(Sizes)->Args({30, 500, 1, 1});
BENCHMARK(BM_Lazy)->Apply(Sizes)->Args({100, 2000, 1, 1})->Iterations(1);
BENCHMARK(BM_Exhaustive)->Apply(Sizes)->Args({100, 2000, 1, 1})->Iterations(1);
BENCHMARK(BM_DualOracle)->Apply(Sizes)->Args({100, 2000, 1, 1})->Iterations(1);
BENCHMARK(BM_CertificateFloor)->Apply(Sizes)->Args({100, 2000, 1, 1})->Iterations(1);
BENCHMARK(BM_Lazy)->Apply(Sizes)->Args({100, 2000, 2, 1})->Iterations(1);
BENCHMARK(BM_Exhaustive)->Apply(Sizes)->Args({100, 2000, 2, 1})->Iterations(1);
BENCHMARK(BM_DualOracle)->Apply(Sizes)->Args({100, 2000, 2, 1})->Iterations(1);
BENCHMARK(BM_CertificateFloor)->Apply(Sizes)->Args({100, 2000, 2, 1})->Iterations(1);
// Three channels under L2 (TwedParams' default norm), as vehicle dynamics records them.
BENCHMARK(BM_Lazy)->Apply(Sizes)->Args({30, 500, 1, 3});
BENCHMARK(BM_Exhaustive)->Apply(Sizes)->Args({30, 500, 1, 3});
BENCHMARK(BM_Lazy)->Apply(Sizes)->Args({100, 2000, 1, 3})->Iterations(1);
BENCHMARK(BM_Exhaustive)->Apply(Sizes)->Args({100, 2000, 1, 3})->Iterations(1);
BENCHMARK(BM_Lazy)->Apply(Sizes)->Args({400, 1000, 1, 1})->Iterations(1);
BENCHMARK(BM_Exhaustive)->Apply(Sizes)->Args({400, 1000, 1, 1})->Iterations(1);
BENCHMARK(BM_DualOracle)->Apply(Sizes)->Args({400, 1000, 1, 1})->Iterations(1);
BENCHMARK(BM_CertificateFloor)->Apply(Sizes)->Args({400, 1000, 1, 1})->Iterations(1);

}  // namespace
}  // namespace wasserwarp

BENCHMARK_MAIN();
