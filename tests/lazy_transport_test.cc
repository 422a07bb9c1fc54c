// The lazy transport against the exhaustive one (ComputeCostMatrix, then SolveTransport) on
// random instances: the same W, a certificate that holds over every pair of the full matrix,
// plans on computed pairs only, bounds that are lower bounds, honest statistics, and results
// that do not depend on the thread count. Over 500 lines: every test shares the one random
// instance generator and the exhaustive reference solve, which splitting would copy.

#include "pipeline/lazy_transport.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <iostream>
#include <limits>
#include <numeric>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "lazy_transport_instances.h"
#include "random_runs.h"
#include "twed/twed_batch.h"
#include "twed/twed_quantized.h"
#include "twed/twed_single.h"
#include "wasserwarp/cancellation.h"
#include "wasserwarp/cost_matrix.h"
#include "wasserwarp/series.h"
#include "wasserwarp/transport.h"
#include "wasserwarp/twed.h"

namespace wasserwarp {
namespace {

using test_data::Describe;
using test_data::LazyInstance;
using test_data::RandomLazyInstance;
using ::testing::HasSubstr;

// A pair may be abandoned once per round and then computed in full, so the cells evaluated can
// exceed the full matrix's; far more than this would mean work thrown away over and over.
constexpr double kMaxCellsOverFull = 4.0;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

// What the whole sweep computed, for the summary line.
struct Totals {
  int instances = 0;
  int pruned_nothing = 0;  // every pair computed
  int pruned_most = 0;     // under half the pairs computed
  int exhaustive = 0;      // gave up the lazy rounds and computed every pair
  uint64_t pairs = 0;
  uint64_t pairs_computed = 0;
  uint64_t pairs_abandoned = 0;
  uint64_t cells = 0;
  uint64_t cells_full = 0;
  uint64_t rounds = 0;
  int int16_bounded = 0;   // instances where the 16-bit bound bounded some pair
  int single_bounded = 0;  // and the single-precision bound
};

struct Exhaustive {
  CostMatrix costs;
  TransportResult transport;
};

Exhaustive SolveExhaustive(const LazyInstance& c) {
  absl::StatusOr<CostMatrix> costs = ComputeCostMatrix(c.rows, c.cols, c.twed);
  EXPECT_TRUE(costs.ok()) << costs.status();
  if (!costs.ok()) return {};
  absl::StatusOr<TransportResult> transport = SolveTransport(*costs, c.transport);
  EXPECT_TRUE(transport.ok()) << transport.status();
  if (!transport.ok()) return {};
  return {.costs = *std::move(costs), .transport = *std::move(transport)};
}

absl::StatusOr<LazyTransportResult> SolveLazy(const LazyInstance& c, int threads) {
  CostMatrixOptions compute;
  compute.max_threads = threads;
  return SolveLazyTransport(c.rows, c.cols, c.twed, c.transport, compute);
}

// (a) and (b): the same distance, and u, v feasible for every pair of the full matrix with a
// plan priced on it whose primal meets the dual.
void ExpectSameDistanceAndCertified(const Exhaustive& full, const LazyTransportResult& lazy,
                                    double q) {
  const TransportResult& t = lazy.transport;
  const size_t n = full.costs.rows;
  const size_t m = full.costs.cols;
  const double exact = full.transport.distance;
  EXPECT_LE(std::abs(t.distance - exact), 1e-12 * exact)
      << absl::StrFormat("lazy W=%.17g exhaustive W=%.17g", t.distance, exact);
  EXPECT_EQ(t.order, q);
  EXPECT_EQ(t.solver, full.transport.solver);

  CostMatrix costs_to_q = full.costs;
  for (double& x : costs_to_q.values) x = std::pow(x, q);
  const double max_cost_q = *std::max_element(costs_to_q.values.begin(), costs_to_q.values.end());
  const double tol = 1e-9 * max_cost_q;
  ASSERT_EQ(t.certificate.u.size(), n);
  ASSERT_EQ(t.certificate.v.size(), m);
  ASSERT_EQ(t.row_weights.size(), n);
  ASSERT_EQ(t.col_weights.size(), m);
  double worst = -kInf;
  size_t worst_i = 0;
  size_t worst_j = 0;
  for (size_t i = 0; i < n; ++i) {
    for (size_t j = 0; j < m; ++j) {
      const double excess = t.certificate.u[i] + t.certificate.v[j] - costs_to_q.at(i, j);
      if (excess > worst) {
        worst = excess;
        worst_i = i;
        worst_j = j;
      }
    }
  }
  EXPECT_LE(worst, tol) << "u + v - C^q at (" << worst_i << ", " << worst_j << ")"
                        << (lazy.computed[worst_i * m + worst_j] ? " (computed)" : " (bounded)");
  double primal = 0.0;
  for (const PlanEntry& e : t.plan) primal += e.mass * costs_to_q.at(e.row, e.col);
  double dual = 0.0;
  for (size_t i = 0; i < n; ++i) dual += t.row_weights[i] * t.certificate.u[i];
  for (size_t j = 0; j < m; ++j) dual += t.col_weights[j] * t.certificate.v[j];
  EXPECT_LE(std::abs(primal - dual), tol) << "primal " << primal << " dual " << dual;
  EXPECT_LE(t.certificate.max_dual_violation, tol);
  EXPECT_LE(t.certificate.primal_dual_gap, tol);
  EXPECT_LE(std::abs(std::pow(t.distance, q) - primal), 1e-12 * max_cost_q);
  // The same rounding of the weights, bounded with an upper bound on max C^q.
  EXPECT_EQ(t.weight_variation, full.transport.weight_variation);
  EXPECT_GE(t.weight_rounding_bound, (1.0 - 1e-12) * full.transport.weight_rounding_bound);
}

// (c) and (d): the plan uses computed pairs at their exact costs; every other pair's entry in
// `bounds` is at most its TWED, with no slack.
void ExpectPlanComputedAndBoundsBelow(const Exhaustive& full, const LazyTransportResult& lazy) {
  const size_t n = full.costs.rows;
  const size_t m = full.costs.cols;
  ASSERT_EQ(lazy.computed.size(), n * m);
  ASSERT_EQ(lazy.bounds.rows, n);
  ASSERT_EQ(lazy.bounds.cols, m);
  ASSERT_EQ(lazy.bounds.values.size(), n * m);
  ASSERT_FALSE(lazy.transport.plan.empty());
  for (const PlanEntry& e : lazy.transport.plan) {
    ASSERT_TRUE(e.row >= 0 && e.row < static_cast<int>(n) && e.col >= 0 &&
                e.col < static_cast<int>(m));
    EXPECT_TRUE(lazy.computed[e.row * m + e.col])
        << "plan uses (" << e.row << ", " << e.col << ") without its TWED";
    EXPECT_EQ(e.cost, full.costs.at(e.row, e.col)) << "(" << e.row << ", " << e.col << ")";
  }
  int reported = 0;  // a broken bound tends to break on many pairs: say the first few only
  for (size_t i = 0; i < n; ++i) {
    for (size_t j = 0; j < m; ++j) {
      const double bound = lazy.bounds.at(i, j);
      const double exact = full.costs.at(i, j);
      const bool ok = lazy.computed[i * m + j] ? bound == exact : bound <= exact && bound >= 0.0;
      if (!ok && reported++ < 5) {
        ADD_FAILURE() << absl::StrFormat("(%d, %d) %s: bounds %.17g, TWED %.17g", i, j,
                                         lazy.computed[i * m + j] ? "computed" : "bounded", bound,
                                         exact);
      }
    }
  }
  EXPECT_EQ(reported, 0) << "pairs whose bounds entry is wrong";
}

// (e): the statistics count what the solve did; adds them to `totals`.
void ExpectHonestStats(const LazyInstance& c, const LazyTransportResult& lazy, Totals& totals) {
  const LazyTransportStats& s = lazy.stats;
  const uint64_t n = c.rows.size();
  const uint64_t m = c.cols.size();
  uint64_t cells_full = 0;
  for (const Series& a : c.rows) {
    for (const Series& b : c.cols) cells_full += static_cast<uint64_t>(a.samples()) * b.samples();
  }
  const uint64_t computed = std::count(lazy.computed.begin(), lazy.computed.end(), true);
  EXPECT_EQ(s.pairs_total, n * m);
  EXPECT_EQ(s.pairs_computed, computed);
  EXPECT_LE(s.pairs_computed, s.pairs_total);
  EXPECT_LE(s.pairs_abandoned, s.pairs_total);
  EXPECT_EQ(s.dp_cells_full, cells_full);
  EXPECT_LE(static_cast<double>(s.dp_cells), kMaxCellsOverFull * static_cast<double>(cells_full));
  EXPECT_GE(s.rounds, 1);
  if (s.exhaustive) {
    EXPECT_EQ(s.pairs_computed, s.pairs_total);
    EXPECT_EQ(s.pairs_abandoned, 0u);
  }
  ++totals.instances;
  totals.pruned_nothing += computed == n * m;
  totals.pruned_most += 2 * computed < n * m;
  totals.exhaustive += s.exhaustive;
  totals.pairs += n * m;
  totals.pairs_computed += s.pairs_computed;
  totals.pairs_abandoned += s.pairs_abandoned;
  totals.cells += s.dp_cells;
  totals.cells_full += cells_full;
  totals.rounds += s.rounds;
  totals.int16_bounded += s.pairs_int16_bounded > 0;
  totals.single_bounded += s.pairs_single_bounded > 0;
}

// (f): one thread and two give the same bits.
void ExpectSameResult(const LazyTransportResult& one, const LazyTransportResult& two) {
  EXPECT_EQ(std::bit_cast<uint64_t>(one.transport.distance),
            std::bit_cast<uint64_t>(two.transport.distance))
      << absl::StrFormat("1 thread W=%.17g, 2 threads W=%.17g", one.transport.distance,
                         two.transport.distance);
  ASSERT_EQ(one.transport.plan.size(), two.transport.plan.size());
  for (size_t k = 0; k < one.transport.plan.size(); ++k) {
    const PlanEntry& a = one.transport.plan[k];
    const PlanEntry& b = two.transport.plan[k];
    EXPECT_TRUE(a.row == b.row && a.col == b.col && a.mass == b.mass && a.cost == b.cost)
        << "plan entry " << k << ": (" << a.row << ", " << a.col << ", " << a.mass << ") vs ("
        << b.row << ", " << b.col << ", " << b.mass << ")";
  }
}

void CheckInstance(const LazyInstance& c, Totals& totals) {
  SCOPED_TRACE(Describe(c));
  const Exhaustive full = SolveExhaustive(c);
  if (full.costs.values.empty()) return;
  absl::StatusOr<LazyTransportResult> one = SolveLazy(c, 1);
  ASSERT_TRUE(one.ok()) << one.status();
  ExpectSameDistanceAndCertified(full, *one, c.transport.order);
  ExpectPlanComputedAndBoundsBelow(full, *one);
  ExpectHonestStats(c, *one, totals);
  absl::StatusOr<LazyTransportResult> two = SolveLazy(c, 2);
  ASSERT_TRUE(two.ok()) << two.status();
  ExpectSameResult(*one, *two);
}

std::string Summary(const Totals& t) {
  return absl::StrFormat(
      "%d instances: %d pruned nothing (%d of them computed every pair at once), %d computed "
      "under half their pairs; pairs computed %d of %d (%.3f), abandoned %d; DP cells %d of the "
      "full %d (%.3f); %.2f rounds per solve; the 16-bit bound took part in %d, the "
      "single-precision one in %d",
      t.instances, t.pruned_nothing, t.exhaustive, t.pruned_most, t.pairs_computed, t.pairs,
      static_cast<double>(t.pairs_computed) / t.pairs, t.pairs_abandoned, t.cells, t.cells_full,
      static_cast<double>(t.cells) / t.cells_full, static_cast<double>(t.rounds) / t.instances,
      t.int16_bounded, t.single_bounded);
}

TEST(LazyTransportTest, MatchesExhaustiveOnRandomInstances) {
  constexpr int kInstances = 600;
  Totals totals;
  for (uint64_t seed = 1000; seed < 1000 + kInstances; ++seed) {
    // On: every failing seed is worth its line.
    CheckInstance(RandomLazyInstance(seed), totals);
  }
  const std::string summary = Summary(totals);
  std::cout << summary << "\n";
  RecordProperty("summary", summary);
  RecordProperty("dp_cells_fraction",
                 absl::StrFormat("%.4f", static_cast<double>(totals.cells) / totals.cells_full));
  // The sweep must reach both ends: instances where bounds settle most pairs, and where none.
  EXPECT_GT(totals.pruned_most, 10);
  EXPECT_GT(totals.pruned_nothing, 10);
  // And both bounds of the DP's own must take part, each in many instances.
  if (twed_internal::QuantizedLanes() > 0) {
    EXPECT_GT(totals.int16_bounded, 100);
  }
  if (twed_internal::SingleLanes() > 0) {
    EXPECT_GT(totals.single_bounded, 100);
  }
}

// The same sweep without the single-precision bound (the scalar target has no lanes for it), so
// that the lazy rounds alone, the path of a CPU without AVX2, stay exact too.
TEST(LazyTransportTest, MatchesExhaustiveWithoutTheSingleBound) {
  twed_internal::ForceBatchTarget(twed_internal::AvailableBatchTargets().back().id);
  ASSERT_EQ(twed_internal::SingleLanes(), 0u);
  Totals totals;
  for (uint64_t seed = 1000; seed < 1200; ++seed) CheckInstance(RandomLazyInstance(seed), totals);
  twed_internal::ForceBatchTarget(0);
  std::cout << Summary(totals) << "\n";
  EXPECT_GT(totals.pruned_most, 5);
}

// Runs of one process, as on the benchmark's workload, where no bound of docs/twed_bounds.md but
// the DP's own come near the TWED: on one channel the 16-bit bound bounds every pair outside the
// seeds, the solve on its estimates prices them out but for its plan and a few the
// single-precision bound settles, and about n + m pairs are computed.
LazyInstance OneProcess(size_t channels, double p) {
  return {.seed = 0,
          .rows = test_data::RandomWalkRuns("sim", 24, 250, 300, channels, 1),
          .cols = test_data::RandomWalkRuns("ref", 20, 250, 300, channels, 2),
          .twed = test_data::MakeTwedParams(0.001, 1.0, p),
          .transport = {},
          .traits = {"random walks"}};
}

// Solves `c` lazily, checks it against the exhaustive solve, and that it computed little but
// about n + m pairs; its statistics.
LazyTransportStats SolveComputingLittle(const LazyInstance& c) {
  Totals totals;
  CheckInstance(c, totals);
  absl::StatusOr<LazyTransportResult> lazy = SolveLazy(c, 2);
  EXPECT_TRUE(lazy.ok()) << lazy.status();
  if (!lazy.ok()) return {};
  const LazyTransportStats& s = lazy->stats;
  EXPECT_FALSE(s.exhaustive);
  EXPECT_LE(s.pairs_computed, 3 * (c.rows.size() + c.cols.size()));
  EXPECT_LT(static_cast<double>(s.dp_cells), 0.2 * static_cast<double>(s.dp_cells_full));
  return s;
}

TEST(LazyTransportTest, SixteenBitBoundLeavesLittleButThePlanToCompute) {
  if (twed_internal::QuantizedLanes() == 0) GTEST_SKIP() << "no 16-bit lanes here";
  const LazyTransportStats s = SolveComputingLittle(OneProcess(1, 2.0));
  EXPECT_GT(s.pairs_int16_bounded, s.pairs_total / 2);
  EXPECT_LE(s.int16_cells, s.dp_cells_full);
  EXPECT_GT(s.int16_cells, s.dp_cells_full / 2);
  EXPECT_LT(s.single_cells, s.dp_cells_full / 4);
}

// Where the 16-bit bound does not apply (the L2 norm of two channels), the single-precision bound
// does its work.
TEST(LazyTransportTest, SingleBoundLeavesLittleButThePlanToCompute) {
  if (twed_internal::SingleLanes() == 0) GTEST_SKIP() << "no single-precision lanes here";
  ASSERT_FALSE(twed_internal::QuantizedSupports(2, OneProcess(2, 2.0).twed));
  const LazyTransportStats s = SolveComputingLittle(OneProcess(2, 2.0));
  EXPECT_EQ(s.int16_cells, 0u);
  EXPECT_GT(s.pairs_single_bounded, s.pairs_total / 2);
  EXPECT_LE(s.single_cells, s.dp_cells_full);
  EXPECT_GT(s.single_cells, s.dp_cells_full / 2);
}

// The orders other than 1 and 2 raise costs with pow, not a product: one instance of each shape.
TEST(LazyTransportTest, FractionalOrder) {
  Totals totals;
  for (uint64_t seed : {7, 8, 9, 10}) {
    LazyInstance c = RandomLazyInstance(seed);
    c.transport.order = 1.5;
    CheckInstance(c, totals);
  }
}

// 16 x 16 runs of one channel in two clusters, at levels 0 and 200, of 150..200 samples.
LazyInstance TwoLevelClusters(uint64_t seed) {
  test_data::InstanceRandom random(seed);
  LazyInstance c;
  c.seed = seed;
  c.traits = {"two_level_clusters"};
  for (const auto& [set, prefix] : {std::pair{&c.rows, "sim"}, std::pair{&c.cols, "ref"}}) {
    for (int k = 0; k < 16; ++k) {
      const size_t samples = random.Between(150, 200);
      set->push_back(test_data::MakeRun(
          absl::StrCat(prefix, k), 1, test_data::DrawTimes(random, samples, false),
          test_data::WalkValues(random, samples, 1, 200.0 * (k % 2))));
    }
  }
  c.transport.order = seed % 2 == 0 ? 1.0 : 2.0;
  return c;
}

// The envelope bound would price out the pairs across, but the solve need not use it: the same W
// whichever pairs it computes.
TEST(LazyTransportTest, LevelClustersMatchTheFullMatrix) {
  Totals totals;
  for (uint64_t seed = 0; seed < 6; ++seed) CheckInstance(TwoLevelClusters(seed), totals);
  std::cout << Summary(totals) << "\n";
}

// 25 x 25 runs on a ladder of lengths in rung order, lambda = 3: the deletion floor prices out
// all pairs but those of nearby rungs, so the lazy rounds can pay, and must stay right.
TEST(LazyTransportTest, LengthLadderPrunesFarRungs) {
  Totals totals;
  for (uint64_t seed = 0; seed < 6; ++seed) {
    test_data::InstanceRandom random(seed);
    LazyInstance c;
    c.seed = seed;
    c.traits = {"sorted_ladder"};
    c.rows = test_data::LengthLadder(random, "sim", 25, 1, true);
    c.cols = test_data::LengthLadder(random, "ref", 25, 1, true);
    c.twed.lambda = 3.0;
    c.transport.order = seed % 2 == 0 ? 1.0 : 2.0;
    CheckInstance(c, totals);
  }
  std::cout << Summary(totals) << "\n";
  // The solve gives up on the lazy rounds when the first asks for over a fifth of the cells, and
  // the pairs of nearby rungs sit near that line: some instances must stay lazy and pay.
  EXPECT_LE(totals.exhaustive, 4);
  EXPECT_LT(totals.cells, totals.cells_full);
}

absl::Status ExhaustiveStatus(const std::vector<Series>& rows, const std::vector<Series>& cols,
                              const TwedParams& twed, const TransportOptions& transport) {
  absl::StatusOr<CostMatrix> costs = ComputeCostMatrix(rows, cols, twed);
  if (!costs.ok()) return costs.status();
  return SolveTransport(*costs, transport).status();
}

absl::Status LazyStatus(const std::vector<Series>& rows, const std::vector<Series>& cols,
                        const TwedParams& twed, const TransportOptions& transport) {
  return SolveLazyTransport(rows, cols, twed, transport).status();
}

// Where exactly one thing is wrong, both paths must fail the same way, and with the same message
// where only one message fits (bad weights and orders, one pair without a path).
void ExpectSameError(const std::vector<Series>& rows, const std::vector<Series>& cols,
                     const TwedParams& twed, const TransportOptions& transport, bool same_message) {
  const absl::Status exhaustive = ExhaustiveStatus(rows, cols, twed, transport);
  const absl::Status lazy = LazyStatus(rows, cols, twed, transport);
  ASSERT_FALSE(exhaustive.ok());
  EXPECT_EQ(lazy.code(), exhaustive.code()) << "lazy: " << lazy << "\nexhaustive: " << exhaustive;
  if (same_message) {
    EXPECT_EQ(lazy.message(), exhaustive.message());
  }
}

std::vector<Series> Runs(const std::string& prefix, size_t count, size_t samples, size_t d,
                         uint64_t seed) {
  test_data::InstanceRandom random(seed);
  std::vector<Series> runs;
  for (size_t k = 0; k < count; ++k) {
    runs.push_back(test_data::MakeRun(absl::StrCat(prefix, k), d,
                                      test_data::DrawTimes(random, samples, false),
                                      test_data::WalkValues(random, samples, d, 0.0)));
  }
  return runs;
}

TEST(LazyTransportErrorsTest, MismatchedChannelCounts) {
  ExpectSameError(Runs("sim", 3, 20, 1, 1), Runs("ref", 4, 20, 3, 2), TwedParams{},
                  TransportOptions{}, false);
  // One column of three channels among columns of one: the pair may be one that bounds skip.
  std::vector<Series> cols = Runs("ref", 4, 20, 1, 2);
  cols[2] = Runs("odd", 1, 20, 3, 3)[0];
  const absl::Status lazy = LazyStatus(Runs("sim", 3, 20, 1, 1), cols, {}, {});
  EXPECT_EQ(lazy.code(), ExhaustiveStatus(Runs("sim", 3, 20, 1, 1), cols, {}, {}).code()) << lazy;
  EXPECT_THAT(lazy.message(), HasSubstr("odd0"));
}

TEST(LazyTransportErrorsTest, WindowWithoutAPath) {
  std::vector<Series> sim = Runs("sim", 1, 20, 1, 4);
  std::vector<Series> ref = Runs("ref", 3, 20, 1, 5);
  // ref1 starts 100 s late: its one pair has no path in a 1 s window, whatever its bound says.
  for (double& t : ref[1].times) t += 100.0;
  TwedParams twed;
  twed.time_window = 1.0;
  ExpectSameError(sim, ref, twed, {}, true);  // one pair without a path: both name it
  // Three rows: three such pairs, and either may be the one named.
  sim = Runs("sim", 3, 20, 1, 4);
  const absl::Status lazy = LazyStatus(sim, ref, twed, {});
  EXPECT_EQ(lazy.code(), ExhaustiveStatus(sim, ref, twed, {}).code()) << lazy;
  EXPECT_THAT(lazy.message(), HasSubstr("ref1"));
}

TEST(LazyTransportErrorsTest, BadWeightsOrdersAndParams) {
  const std::vector<Series> sim = Runs("sim", 3, 10, 1, 6);
  const std::vector<Series> ref = Runs("ref", 4, 10, 1, 7);
  const std::vector<std::vector<double>> bad_rows = {
      {1.0, 2.0}, {1.0, -0.5, 1.0}, {0.0, 0.0, 0.0}, {1.0, kNaN, 1.0}, {1.0, kInf, 1.0}};
  for (const std::vector<double>& weights : bad_rows) {
    TransportOptions transport;
    transport.row_weights = weights;
    ExpectSameError(sim, ref, {}, transport, true);
  }
  TransportOptions bad_cols;
  bad_cols.col_weights = {1.0, 1.0, 1.0};
  ExpectSameError(sim, ref, {}, bad_cols, true);
  for (double q : {0.5, kNaN, kInf}) {
    TransportOptions transport;
    transport.order = q;
    ExpectSameError(sim, ref, {}, transport, true);
  }
  TwedParams bad_p;
  bad_p.p = 0.5;
  ExpectSameError(sim, ref, bad_p, {}, false);
  TwedParams bad_nu;
  bad_nu.nu = -1.0;
  ExpectSameError(sim, ref, bad_nu, {}, false);
  ExpectSameError({}, ref, {}, {}, false);
  ExpectSameError(sim, {}, {}, {}, false);
}

TEST(LazyTransportErrorsTest, InvalidSeries) {
  std::vector<Series> ref = Runs("ref", 4, 10, 1, 8);
  ref[3].times[5] = ref[3].times[4];  // not strictly increasing
  const std::vector<Series> sim = Runs("sim", 3, 10, 1, 9);
  const absl::Status lazy = LazyStatus(sim, ref, {}, {});
  EXPECT_EQ(lazy.code(), ExhaustiveStatus(sim, ref, {}, {}).code()) << lazy;
  EXPECT_THAT(lazy.message(), HasSubstr("ref3"));
}

TEST(LazyTransportCancelTest, CancelledBeforeTheStart) {
  CancellationToken token;
  token.Cancel();
  CostMatrixOptions compute;
  compute.cancel = &token;
  const absl::StatusOr<LazyTransportResult> result = SolveLazyTransport(
      Runs("sim", 5, 50, 1, 10), Runs("ref", 5, 50, 1, 11), TwedParams{}, {}, compute);
  EXPECT_EQ(result.status().code(), absl::StatusCode::kCancelled) << result.status();
}

// Cancelled from the first progress report and, should none come early, from another thread
// 20 ms in, as a client that goes away mid-solve: runs of 4000 samples leave no pair done by then.
TEST(LazyTransportCancelTest, CancelledMidway) {
  for (int threads : {1, 2}) {
    CancellationToken token;
    CostMatrixOptions compute;
    compute.max_threads = threads;
    compute.cancel = &token;
    compute.progress_interval_ms = 0;
    compute.progress = [&token](const CostMatrixProgress&) { token.Cancel(); };
    std::thread canceller([&token] {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      token.Cancel();
    });
    const absl::StatusOr<LazyTransportResult> result = SolveLazyTransport(
        Runs("sim", 8, 4000, 1, 12), Runs("ref", 8, 4000, 1, 13), TwedParams{}, {}, compute);
    canceller.join();
    EXPECT_EQ(result.status().code(), absl::StatusCode::kCancelled) << result.status();
  }
}

// Progress counts pairs settled of all pairs and cells evaluated of the full matrix's cells.
TEST(LazyTransportTest, ProgressCountsPairsAndCells) {
  const LazyInstance c = RandomLazyInstance(2024);
  std::vector<CostMatrixProgress> reports;
  CostMatrixOptions compute;
  compute.max_threads = 1;
  compute.progress_interval_ms = 0;
  compute.progress = [&reports](const CostMatrixProgress& p) { reports.push_back(p); };
  const absl::StatusOr<LazyTransportResult> result =
      SolveLazyTransport(c.rows, c.cols, c.twed, c.transport, compute);
  ASSERT_TRUE(result.ok()) << result.status();
  ASSERT_FALSE(reports.empty());
  for (size_t k = 0; k < reports.size(); ++k) {
    EXPECT_EQ(reports[k].pairs_total, result->stats.pairs_total);
    EXPECT_EQ(reports[k].cells_total, result->stats.dp_cells_full);
    EXPECT_LE(reports[k].pairs_done, reports[k].pairs_total);
    if (k > 0) {
      EXPECT_GE(reports[k].pairs_done, reports[k - 1].pairs_done);
    }
  }
  EXPECT_EQ(reports.back().pairs_done, reports.back().pairs_total) << "every pair settled";
}

}  // namespace
}  // namespace wasserwarp
