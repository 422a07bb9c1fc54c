#include "wasserwarp/compare.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "nlohmann/json.hpp"
#include "random_runs.h"
#include "wasserwarp/comparison_json.h"
#include "wasserwarp/transport.h"
#include "wasserwarp/validation.h"

namespace wasserwarp {
namespace {

using test_data::RandomWalkRuns;
using ::testing::AllOf;
using ::testing::HasSubstr;

CompareOptions SmallOptions() {
  CompareOptions options;
  options.twed.nu = 0.3;
  options.twed.lambda = 0.05;
  options.resamples = 199;
  return options;
}

// `runs` with every value multiplied by `gain` and `offset` added, ids kept.
std::vector<Series> Transformed(std::vector<Series> runs, double gain, double offset) {
  for (Series& run : runs) {
    for (double& value : run.values) value = gain * value + offset;
  }
  return runs;
}

std::vector<std::string> Ids(const std::string& prefix, size_t count) {
  std::vector<std::string> ids;
  for (size_t i = 0; i < count; ++i) ids.push_back(prefix + std::to_string(i));
  return ids;
}

CostMatrix Filled(size_t rows, size_t cols, double value) { return CostMatrix(rows, cols, value); }

TEST(CompareTest, DistancesAreTheTransportSolvesOfEachVariant) {
  const std::vector<Series> a = RandomWalkRuns("sim", 5, 10, 40, 2, 31);
  const std::vector<Series> b = RandomWalkRuns("other", 7, 10, 40, 2, 32);
  const std::vector<Series> ref = RandomWalkRuns("ref", 6, 10, 40, 2, 33);
  for (Scale scale : {Scale::kNone, Scale::kReferenceStd}) {
    for (double order : {1.0, 2.0}) {
      CompareOptions options = SmallOptions();
      options.prepare.scale = scale;
      options.order = order;
      absl::StatusOr<ComparisonReport> report = CompareVariants(a, b, ref, options);
      ASSERT_TRUE(report.ok()) << report.status();

      for (const auto& [runs, distance] :
           {std::pair{&a, report->distance_a}, std::pair{&b, report->distance_b}}) {
        absl::StatusOr<PreparedRuns> prepared = PrepareRuns(*runs, ref, options.prepare);
        ASSERT_TRUE(prepared.ok()) << prepared.status();
        absl::StatusOr<CostMatrix> costs =
            ComputeCostMatrix(prepared->simulation, prepared->reference, options.twed);
        ASSERT_TRUE(costs.ok()) << costs.status();
        TransportOptions transport;
        transport.order = order;
        absl::StatusOr<TransportResult> direct = SolveTransport(*costs, transport);
        ASSERT_TRUE(direct.ok()) << direct.status();
        EXPECT_EQ(distance, direct->distance);

        // And what `validate` reports for the same variant.
        ValidationOptions validation;
        validation.prepare = options.prepare;
        validation.twed = options.twed;
        validation.order = order;
        absl::StatusOr<ValidationReport> validated = Validate(*runs, ref, validation);
        ASSERT_TRUE(validated.ok()) << validated.status();
        EXPECT_EQ(distance, validated->distance);
      }
      EXPECT_EQ(report->difference, report->distance_a - report->distance_b);
      EXPECT_FALSE(report->paired);
      EXPECT_FALSE(report->variance_gain.has_value());
      EXPECT_EQ(report->runs_a, 5u);
      EXPECT_EQ(report->runs_b, 7u);
      EXPECT_EQ(report->runs_ref, 6u);
      EXPECT_EQ(report->resamples, 199);
      EXPECT_EQ(report->confidence, 0.95);
      EXPECT_EQ(report->seed, 1u);
      uint64_t cells = 0;
      for (const std::vector<Series>* runs : {&a, &b}) {
        for (const Series& sim : *runs) {
          for (const Series& r : ref) cells += TwedCells(sim, r);
        }
      }
      EXPECT_EQ(report->dp_cells, cells);
    }
  }
}

TEST(CompareTest, PairedExactlyWhenBothVariantsHoldTheSameIds) {
  const CompareOptions options = SmallOptions();
  const auto paired = [&](const std::vector<std::string>& ids_a,
                          const std::vector<std::string>& ids_b) {
    absl::StatusOr<ComparisonReport> report = CompareCostMatrices(
        Filled(ids_a.size(), 2, 1.0), Filled(ids_b.size(), 2, 1.0), ids_a, ids_b, options);
    EXPECT_TRUE(report.ok()) << report.status();
    return report.ok() && report->paired;
  };
  EXPECT_TRUE(paired({"r1", "r2", "r3"}, {"r1", "r2", "r3"}));
  EXPECT_TRUE(paired({"r1", "r2", "r3"}, {"r3", "r1", "r2"}));
  EXPECT_FALSE(paired({"r1", "r2", "r3"}, {"r1", "r2", "r4"}));
  EXPECT_FALSE(paired({"r1", "r2", "r3"}, {"r1", "r2"}));
  EXPECT_FALSE(paired({"r1", "r1", "r2"}, {"r1", "r2", "r2"}));
  EXPECT_FALSE(paired({"r1", "r2", "r2"}, {"r1", "r2", "r2"}));

  // Runs of the same ids in another order are still the same runs.
  const std::vector<Series> a = RandomWalkRuns("run", 4, 10, 30, 1, 41);
  const std::vector<Series> ref = RandomWalkRuns("ref", 3, 10, 30, 1, 42);
  std::vector<Series> b = Transformed(a, 1.1, 0.0);
  std::reverse(b.begin(), b.end());
  absl::StatusOr<ComparisonReport> report = CompareVariants(a, b, ref, options);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_TRUE(report->paired);
  EXPECT_TRUE(report->variance_gain.has_value());
}

TEST(CompareTest, PairedRowsFollowTheIdsNotThePositions) {
  // B is A with its rows in reverse order and named accordingly: paired by
  // id, every resample weighs the same costs, so the difference never moves.
  const size_t n = 6;
  std::mt19937_64 rng(51);
  std::uniform_real_distribution<double> cost(0.5, 3.0);
  CostMatrix a_ref(n, 5);
  for (double& c : a_ref.values) c = cost(rng);
  CostMatrix b_ref(n, 5);
  std::vector<std::string> ids_a = Ids("run", n);
  std::vector<std::string> ids_b(n);
  for (size_t i = 0; i < n; ++i) {
    ids_b[i] = ids_a[n - 1 - i];
    for (size_t j = 0; j < 5; ++j) b_ref.at(i, j) = a_ref.at(n - 1 - i, j);
  }
  absl::StatusOr<ComparisonReport> report =
      CompareCostMatrices(a_ref, b_ref, ids_a, ids_b, SmallOptions());
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_TRUE(report->paired);
  EXPECT_NEAR(report->difference, 0.0, 1e-12);
  EXPECT_NEAR(report->interval_lo, 0.0, 1e-12);
  EXPECT_NEAR(report->interval_hi, 0.0, 1e-12);
  // The same costs drawn independently differ from resample to resample.
  ASSERT_TRUE(report->variance_gain.has_value());
  EXPECT_GT(*report->variance_gain, 1e6);
}

TEST(CompareTest, ConstantCostsGiveADegenerateInterval) {
  const std::vector<std::string> ids_a = Ids("a", 4);
  const std::vector<std::string> ids_b = Ids("b", 5);
  absl::StatusOr<ComparisonReport> report =
      CompareCostMatrices(Filled(4, 3, 2.5), Filled(5, 3, 1.0), ids_a, ids_b, SmallOptions());
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_EQ(report->distance_a, 2.5);
  EXPECT_EQ(report->distance_b, 1.0);
  EXPECT_EQ(report->difference, 1.5);
  // Resampled weights are normalised, which rounds.
  EXPECT_NEAR(report->interval_lo, 1.5, 1e-14);
  EXPECT_NEAR(report->interval_hi, 1.5, 1e-14);
  EXPECT_FALSE(report->paired);

  // One run each against one reference: every resample is the whole data.
  absl::StatusOr<ComparisonReport> single = CompareCostMatrices(
      Filled(1, 1, 2.5), Filled(1, 1, 1.0), Ids("a", 1), Ids("a", 1), SmallOptions());
  ASSERT_TRUE(single.ok()) << single.status();
  EXPECT_EQ(single->interval_lo, 1.5);
  EXPECT_EQ(single->interval_hi, 1.5);
  EXPECT_TRUE(single->paired);
  EXPECT_EQ(single->variance_gain, 1.0);
}

TEST(CompareTest, VariantAgainstItselfHasNoPairedSpread) {
  std::mt19937_64 rng(52);
  std::uniform_real_distribution<double> cost(0.5, 3.0);
  CostMatrix costs(5, 4);
  for (double& c : costs.values) c = cost(rng);
  const std::vector<std::string> ids = Ids("run", 5);
  absl::StatusOr<ComparisonReport> report =
      CompareCostMatrices(costs, costs, ids, ids, SmallOptions());
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_TRUE(report->paired);
  EXPECT_EQ(report->difference, 0.0);
  EXPECT_EQ(report->interval_lo, 0.0);
  EXPECT_EQ(report->interval_hi, 0.0);
  EXPECT_EQ(report->variance_gain, std::numeric_limits<double>::infinity());
}

TEST(CompareTest, IntervalOfASingleReferenceIsTheRangeOfTheRunDifferences) {
  // With one reference run, W_1 of a resample is the weighted mean cost of the
  // runs drawn. Two paired runs with differences d0 and d1: each resample
  // gives d0, (d0 + d1) / 2 or d1, with probabilities 1/4, 1/2, 1/4, so the
  // 2.5 % and 97.5 % quantiles of 999 resamples are d0 and d1.
  CostMatrix a_ref(2, 1);
  a_ref.at(0, 0) = 3.0;
  a_ref.at(1, 0) = 5.0;
  CostMatrix b_ref(2, 1);
  b_ref.at(0, 0) = 2.0;  // d0 = 1
  b_ref.at(1, 0) = 1.0;  // d1 = 4
  CompareOptions options;
  options.resamples = 999;
  const std::vector<std::string> ids = Ids("run", 2);
  absl::StatusOr<ComparisonReport> report = CompareCostMatrices(a_ref, b_ref, ids, ids, options);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_TRUE(report->paired);
  EXPECT_EQ(report->distance_a, 4.0);
  EXPECT_EQ(report->distance_b, 1.5);
  EXPECT_EQ(report->difference, 2.5);
  EXPECT_EQ(report->interval_lo, 1.0);
  EXPECT_EQ(report->interval_hi, 4.0);
}

TEST(CompareTest, ClearlyWorseVariantGetsAnIntervalThatExcludesZero) {
  const std::vector<Series> ref = RandomWalkRuns("ref", 8, 20, 40, 2, 61);
  const std::vector<Series> a = RandomWalkRuns("sim", 8, 20, 40, 2, 62);
  const std::vector<Series> b = Transformed(RandomWalkRuns("sim", 8, 20, 40, 2, 63), 1.0, 25.0);
  absl::StatusOr<ComparisonReport> report = CompareVariants(a, b, ref, SmallOptions());
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_LT(report->difference, 0.0);
  EXPECT_LE(report->interval_lo, report->difference);
  EXPECT_GE(report->interval_hi, report->difference);
  EXPECT_LT(report->interval_hi, 0.0);
}

TEST(CompareTest, PairingOnSharedRandomInputsShrinksTheVariance) {
  // Each run of a variant is one shared random input (a random walk) plus a
  // small effect of the variant: most of the spread between runs is shared.
  const std::vector<Series> inputs = RandomWalkRuns("run", 12, 20, 40, 2, 71);
  const std::vector<Series> a = Transformed(inputs, 1.0, 0.1);
  const std::vector<Series> b = Transformed(inputs, 1.05, -0.1);
  const std::vector<Series> ref = RandomWalkRuns("ref", 10, 20, 40, 2, 72);
  absl::StatusOr<ComparisonReport> report = CompareVariants(a, b, ref, SmallOptions());
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_TRUE(report->paired);
  ASSERT_TRUE(report->variance_gain.has_value());
  EXPECT_GT(*report->variance_gain, 1.0);
  EXPECT_LE(report->interval_lo, report->difference);
  EXPECT_GE(report->interval_hi, report->difference);
}

TEST(CompareTest, ResultDoesNotDependOnThreadCountButOnTheSeed) {
  const std::vector<Series> inputs = RandomWalkRuns("run", 9, 10, 30, 2, 81);
  const std::vector<Series> a = Transformed(inputs, 1.0, 0.2);
  const std::vector<Series> b = Transformed(inputs, 0.9, 0.0);
  const std::vector<Series> ref = RandomWalkRuns("ref", 7, 10, 30, 2, 82);
  CompareOptions options = SmallOptions();
  options.compute.max_threads = 1;
  absl::StatusOr<ComparisonReport> one = CompareVariants(a, b, ref, options);
  ASSERT_TRUE(one.ok()) << one.status();
  for (int threads : {2, 3, 8}) {
    options.compute.max_threads = threads;
    absl::StatusOr<ComparisonReport> many = CompareVariants(a, b, ref, options);
    ASSERT_TRUE(many.ok()) << many.status();
    EXPECT_EQ(many->distance_a, one->distance_a);
    EXPECT_EQ(many->distance_b, one->distance_b);
    EXPECT_EQ(many->interval_lo, one->interval_lo) << threads;
    EXPECT_EQ(many->interval_hi, one->interval_hi) << threads;
    EXPECT_EQ(many->variance_gain, one->variance_gain) << threads;
  }
  options.seed = 2;
  absl::StatusOr<ComparisonReport> reseeded = CompareVariants(a, b, ref, options);
  ASSERT_TRUE(reseeded.ok()) << reseeded.status();
  EXPECT_EQ(reseeded->seed, 2u);
  EXPECT_EQ(reseeded->difference, one->difference);
  EXPECT_NE(reseeded->variance_gain, one->variance_gain);
}

TEST(CompareTest, RejectsBadInputNamingIt) {
  const std::vector<Series> a = RandomWalkRuns("sim", 3, 10, 20, 2, 91);
  const std::vector<Series> ref = RandomWalkRuns("ref", 3, 10, 20, 2, 92);
  const auto error = [&](const std::vector<Series>& sim_a, const std::vector<Series>& sim_b,
                         const std::vector<Series>& reference, const CompareOptions& options) {
    absl::StatusOr<ComparisonReport> report = CompareVariants(sim_a, sim_b, reference, options);
    EXPECT_EQ(report.status().code(), absl::StatusCode::kInvalidArgument) << report.status();
    return std::string(report.status().message());
  };
  const CompareOptions options = SmallOptions();
  EXPECT_THAT(error({}, a, ref, options), HasSubstr("no runs of variant A"));
  EXPECT_THAT(error(a, {}, ref, options), HasSubstr("no runs of variant B"));
  EXPECT_THAT(error(a, a, {}, options), HasSubstr("no reference runs"));

  CompareOptions bad = options;
  bad.resamples = 0;
  EXPECT_THAT(error(a, a, ref, bad), HasSubstr("resamples = 0"));
  for (double confidence : {0.0, 1.0, -0.5, std::nan("")}) {
    bad = options;
    bad.confidence = confidence;
    EXPECT_THAT(error(a, a, ref, bad), HasSubstr("confidence"));
  }
  bad = options;
  bad.order = 0.5;
  EXPECT_THAT(error(a, a, ref, bad), HasSubstr("order"));
  bad = options;
  bad.twed.nu = -1.0;
  EXPECT_THAT(error(a, a, ref, bad), HasSubstr("nu"));

  // B lacks a channel A is compared on, without and with an explicit list.
  std::vector<Series> one_channel = RandomWalkRuns("sim", 3, 10, 20, 1, 93);
  EXPECT_THAT(error(a, one_channel, ref, options),
              AllOf(HasSubstr("variant B"), HasSubstr("sim0"), HasSubstr("\"c1\"")));
  bad = options;
  bad.prepare.channels = {"c1"};
  EXPECT_THAT(error(one_channel, a, ref, bad),
              AllOf(HasSubstr("variant A"), HasSubstr("sim0"), HasSubstr("\"c1\"")));
}

TEST(CompareTest, CostMatricesMustFitTheirIdsAndShareTheReferences) {
  const CompareOptions options = SmallOptions();
  const auto message = [&](const CostMatrix& a_ref, const CostMatrix& b_ref,
                           const std::vector<std::string>& ids_a,
                           const std::vector<std::string>& ids_b) {
    absl::StatusOr<ComparisonReport> report =
        CompareCostMatrices(a_ref, b_ref, ids_a, ids_b, options);
    EXPECT_EQ(report.status().code(), absl::StatusCode::kInvalidArgument) << report.status();
    return std::string(report.status().message());
  };
  EXPECT_THAT(message(Filled(2, 3, 1), Filled(2, 4, 1), Ids("a", 2), Ids("a", 2)),
              HasSubstr("same references"));
  EXPECT_THAT(message(Filled(2, 3, 1), Filled(2, 3, 1), Ids("a", 3), Ids("a", 2)),
              HasSubstr("variant A has 3 run ids for 2 rows"));
  EXPECT_THAT(message(Filled(0, 3, 1), Filled(2, 3, 1), {}, Ids("a", 2)),
              HasSubstr("no runs of variant A"));
  CostMatrix negative = Filled(2, 3, 1);
  negative.at(1, 2) = -1.0;
  EXPECT_THAT(message(Filled(2, 3, 1), negative, Ids("a", 2), Ids("a", 2)), HasSubstr("variant B"));
}

TEST(CompareTest, CancelledTokenStopsTheComparison) {
  const std::vector<Series> a = RandomWalkRuns("sim", 3, 10, 20, 1, 95);
  CancellationToken token;
  token.Cancel();
  CompareOptions options = SmallOptions();
  options.compute.cancel = &token;
  EXPECT_EQ(CompareVariants(a, a, a, options).status().code(), absl::StatusCode::kCancelled);
  EXPECT_EQ(CompareCostMatrices(Filled(2, 2, 1), Filled(2, 2, 1), Ids("a", 2), Ids("a", 2), options)
                .status()
                .code(),
            absl::StatusCode::kCancelled);
}

TEST(CompareTest, JsonHoldsEveryKeyInOrderAndRoundTripsNumbers) {
  ComparisonReport report;
  report.distance_a = 0.1;
  report.distance_b = 1.0 / 3.0;
  report.difference = report.distance_a - report.distance_b;
  report.interval_lo = -0.30000000000000004;
  report.interval_hi = -0.2;
  report.paired = true;
  report.variance_gain = 7.25;
  report.resamples = 999;
  report.confidence = 0.95;
  report.seed = 18446744073709551615u;
  report.runs_a = 20;
  report.runs_b = 19;
  report.runs_ref = 21;
  report.dp_cells = 123456789012;
  report.seconds = 0.5;
  const nlohmann::ordered_json json = nlohmann::ordered_json::parse(ComparisonToJson(report));
  std::vector<std::string> keys;
  for (const auto& item : json.items()) keys.push_back(item.key());
  EXPECT_THAT(keys, testing::ElementsAre("distance_a", "distance_b", "difference", "interval",
                                         "interval_method", "bias_correction", "acceleration",
                                         "paired", "variance_gain", "resamples", "confidence",
                                         "seed", "runs", "dp_cells", "seconds"));
  EXPECT_EQ(json["distance_b"].get<double>(), report.distance_b);
  EXPECT_EQ(json["difference"].get<double>(), report.difference);
  EXPECT_EQ(json["interval"], nlohmann::ordered_json({-0.30000000000000004, -0.2}));
  EXPECT_EQ(json["paired"], true);
  EXPECT_EQ(json["variance_gain"].get<double>(), 7.25);
  EXPECT_EQ(json["seed"].get<uint64_t>(), report.seed);
  EXPECT_EQ(json["runs"], nlohmann::ordered_json({{"a", 20}, {"b", 19}, {"ref", 21}}));
  EXPECT_EQ(json["dp_cells"].get<uint64_t>(), report.dp_cells);

  report.paired = false;
  report.variance_gain.reset();
  EXPECT_TRUE(nlohmann::json::parse(ComparisonToJson(report))["variance_gain"].is_null());
  report.paired = true;
  report.variance_gain = std::numeric_limits<double>::infinity();
  EXPECT_TRUE(nlohmann::json::parse(ComparisonToJson(report))["variance_gain"].is_null());
}

}  // namespace
}  // namespace wasserwarp
