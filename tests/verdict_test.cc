#include "wasserwarp/verdict.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <limits>
#include <vector>

#include "pooled_points.h"
#include "verdict/ratio_interval.h"
#include "verdict/resampling_summary.h"
#include "wasserwarp/cancellation.h"
#include "wasserwarp/cost_matrix.h"
#include "wasserwarp/transport.h"

namespace wasserwarp {
namespace {

using ::testing::HasSubstr;

using test_data::PooledDistances;
using test_data::RandomPooled;

VerdictOptions Options(int permutations, uint64_t seed) {
  VerdictOptions options;
  options.permutations = permutations;
  options.seed = seed;
  return options;
}

TEST(VerdictTest, StatisticIsTheTransportDistanceBetweenTheGroups) {
  const CostMatrix pooled = RandomPooled(5, 7, 0.3, 1);
  CostMatrix sim_ref(5, 7);
  for (size_t i = 0; i < 5; ++i) {
    for (size_t j = 0; j < 7; ++j) sim_ref.at(i, j) = pooled.at(i, 5 + j);
  }
  TransportOptions transport;
  transport.order = 2.0;
  absl::StatusOr<TransportResult> expected = SolveTransport(sim_ref, transport);
  ASSERT_TRUE(expected.ok()) << expected.status();
  absl::StatusOr<Verdict> verdict = DecideVerdict(pooled, 5, 1.0, 2.0, Options(9, 3));
  ASSERT_TRUE(verdict.ok()) << verdict.status();
  EXPECT_EQ(verdict->statistic, expected->distance);
  EXPECT_EQ(verdict->permutations, 9);
  EXPECT_EQ(verdict->seed, 3u);
}

TEST(VerdictTest, PValueIsSmallWhenTheGeneratorsDiffer) {
  for (uint64_t seed : {1, 2, 3}) {
    const CostMatrix pooled = RandomPooled(15, 15, 1.0, seed);
    absl::StatusOr<Verdict> verdict = DecideVerdict(pooled, 15, 0.0, 1.0, Options(199, seed));
    ASSERT_TRUE(verdict.ok()) << verdict.status();
    EXPECT_LT(verdict->p_value, 0.01) << seed;
  }
}

TEST(VerdictTest, PValueCountsTiesAsExtreme) {
  // Every relabelling gives W = 0 = the statistic.
  const CostMatrix zeros(6, 6);
  absl::StatusOr<Verdict> verdict = DecideVerdict(zeros, 3, 0.0, 1.0, Options(50, 1));
  ASSERT_TRUE(verdict.ok()) << verdict.status();
  EXPECT_EQ(verdict->statistic, 0.0);
  EXPECT_EQ(verdict->p_value, 1.0);

  // Two far clusters, the groups exactly the clusters: of the 6 splits of 4
  // runs into 2 + 2, only the observed one and its mirror image are as
  // extreme, so p tends to 1/3 with many permutations.
  const CostMatrix clusters = PooledDistances({{0.0}, {0.1}}, {{10.0}, {10.1}});
  verdict = DecideVerdict(clusters, 2, 0.0, 1.0, Options(6000, 7));
  ASSERT_TRUE(verdict.ok()) << verdict.status();
  EXPECT_NEAR(verdict->p_value, 1.0 / 3.0, 0.03);
}

TEST(VerdictTest, BaselineRatioIsNearOneForOneGeneratorAndLargeOtherwise) {
  absl::StatusOr<Verdict> same =
      DecideVerdict(RandomPooled(40, 40, 0.0, 5), 40, 0.0, 1.0, Options(199, 1));
  ASSERT_TRUE(same.ok()) << same.status();
  ASSERT_TRUE(same->baseline.has_value());
  EXPECT_EQ(same->baseline->subset_size, 20);
  EXPECT_GE(same->baseline->ratio, 0.8);
  EXPECT_LE(same->baseline->ratio, 1.25);

  absl::StatusOr<Verdict> different =
      DecideVerdict(RandomPooled(40, 40, 0.5, 5), 40, 0.0, 1.0, Options(199, 1));
  ASSERT_TRUE(different.ok()) << different.status();
  ASSERT_TRUE(different->baseline.has_value());
  EXPECT_GT(different->baseline->ratio, 1.5);

  for (const Baseline& baseline : {*same->baseline, *different->baseline}) {
    EXPECT_LE(baseline.ref_ref_p05, baseline.ref_ref_median);
    EXPECT_LE(baseline.ref_ref_median, baseline.ref_ref_p95);
    EXPECT_LE(baseline.sim_ref_p05, baseline.sim_ref_median);
    EXPECT_LE(baseline.sim_ref_median, baseline.sim_ref_p95);
    EXPECT_EQ(baseline.ratio, baseline.sim_ref_median / baseline.ref_ref_median);
  }
}

TEST(VerdictTest, BaselineSubsetsAreAsLargeAsBothGroupsAllow) {
  absl::StatusOr<Verdict> few_sims =
      DecideVerdict(RandomPooled(3, 11, 0.0, 6), 3, 0.0, 1.0, Options(20, 1));
  ASSERT_TRUE(few_sims.ok()) << few_sims.status();
  EXPECT_EQ(few_sims->baseline->subset_size, 3);
  absl::StatusOr<Verdict> few_refs =
      DecideVerdict(RandomPooled(9, 3, 0.0, 6), 9, 0.0, 1.0, Options(20, 1));
  ASSERT_TRUE(few_refs.ok()) << few_refs.status();
  EXPECT_EQ(few_refs->baseline->subset_size, 1);
}

TEST(VerdictTest, BaselineRatioWhenReferencesCoincide) {
  // All references at one point: every ref-ref W is 0.
  const CostMatrix apart = PooledDistances({{1.0}, {2.0}}, {{0.0}, {0.0}, {0.0}, {0.0}});
  absl::StatusOr<Verdict> verdict = DecideVerdict(apart, 2, 0.0, 1.0, Options(10, 1));
  ASSERT_TRUE(verdict.ok()) << verdict.status();
  EXPECT_EQ(verdict->baseline->ref_ref_median, 0.0);
  EXPECT_EQ(verdict->baseline->ratio, std::numeric_limits<double>::infinity());

  const CostMatrix together(6, 6);
  verdict = DecideVerdict(together, 2, 0.0, 1.0, Options(10, 1));
  ASSERT_TRUE(verdict.ok()) << verdict.status();
  EXPECT_EQ(verdict->baseline->ratio, 1.0);
}

TEST(VerdictTest, OneReferenceRunGivesNoBaseline) {
  const CostMatrix pooled = RandomPooled(4, 1, 0.0, 8);
  std::vector<ResamplingProgress> reports;
  VerdictContext context;
  context.progress = [&](const ResamplingProgress& progress) { reports.push_back(progress); };
  absl::StatusOr<Verdict> verdict = DecideVerdict(pooled, 4, 0.0, 1.0, Options(30, 1), context);
  ASSERT_TRUE(verdict.ok()) << verdict.status();
  EXPECT_FALSE(verdict->baseline.has_value());
  ASSERT_FALSE(reports.empty());
  EXPECT_EQ(reports.back().done, 30u);
  EXPECT_EQ(reports.back().total, 30u);

  VerdictOptions options = Options(30, 1);
  options.max_ratio = 1.5;
  verdict = DecideVerdict(pooled, 4, 0.0, 1.0, options);
  EXPECT_EQ(verdict.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(verdict.status().message(), HasSubstr("max_ratio: "));
  EXPECT_THAT(verdict.status().message(), HasSubstr("at least 3 reference runs: with 1"));
}

TEST(VerdictTest, RulesJudgeInOrderAndPassOnlyTogether) {
  const CostMatrix pooled = RandomPooled(10, 10, 0.0, 9);
  absl::StatusOr<Verdict> none = DecideVerdict(pooled, 10, 0.4, 1.0, Options(99, 2));
  ASSERT_TRUE(none.ok()) << none.status();
  EXPECT_FALSE(none->pass.has_value());
  EXPECT_TRUE(none->rules.empty());

  VerdictOptions options = Options(99, 2);
  options.max_distance = 0.5;
  // The ratio itself; the default judges the interval's upper end (verdict_rates_test).
  options.ratio_rule = RatioRule::kMedian;
  options.max_ratio = none->baseline->ratio;  // passes: <=
  options.alpha = none->p_value;              // passes: >=
  absl::StatusOr<Verdict> all = DecideVerdict(pooled, 10, 0.4, 1.0, options);
  ASSERT_TRUE(all.ok()) << all.status();
  ASSERT_EQ(all->rules.size(), 3u);
  EXPECT_EQ(all->rules[0].name, "max_distance");
  EXPECT_EQ(all->rules[0].value, 0.4);
  EXPECT_EQ(all->rules[0].threshold, 0.5);
  EXPECT_EQ(all->rules[1].name, "max_ratio");
  EXPECT_EQ(all->rules[1].value, none->baseline->ratio);
  EXPECT_EQ(all->rules[2].name, "alpha");
  EXPECT_EQ(all->rules[2].value, none->p_value);
  for (const VerdictRule& rule : all->rules) EXPECT_TRUE(rule.pass) << rule.name;
  EXPECT_EQ(all->pass, true);

  // Each rule failing alone fails the verdict.
  for (int failing = 0; failing < 3; ++failing) {
    VerdictOptions one_fails = options;
    if (failing == 0) one_fails.max_distance = 0.3;
    if (failing == 1) one_fails.max_ratio = none->baseline->ratio * 0.99;
    if (failing == 2) one_fails.alpha = std::min(0.999, none->p_value * 1.01);
    absl::StatusOr<Verdict> verdict = DecideVerdict(pooled, 10, 0.4, 1.0, one_fails);
    ASSERT_TRUE(verdict.ok()) << verdict.status();
    EXPECT_EQ(verdict->pass, false) << failing;
    for (int rule = 0; rule < 3; ++rule) {
      EXPECT_EQ(verdict->rules[rule].pass, rule != failing) << failing << " " << rule;
    }
  }

  // A rule on its own.
  VerdictOptions distance_only = Options(99, 2);
  distance_only.max_distance = 0.3;
  absl::StatusOr<Verdict> alone = DecideVerdict(pooled, 10, 0.4, 1.0, distance_only);
  ASSERT_TRUE(alone.ok()) << alone.status();
  ASSERT_EQ(alone->rules.size(), 1u);
  EXPECT_EQ(alone->pass, false);
}

void ExpectSameVerdict(const Verdict& a, const Verdict& b) {
  EXPECT_EQ(a.statistic, b.statistic);
  EXPECT_EQ(a.p_value, b.p_value);
  ASSERT_EQ(a.baseline.has_value(), b.baseline.has_value());
  if (a.baseline) {
    EXPECT_EQ(a.baseline->subset_size, b.baseline->subset_size);
    EXPECT_EQ(a.baseline->ref_ref_median, b.baseline->ref_ref_median);
    EXPECT_EQ(a.baseline->ref_ref_p05, b.baseline->ref_ref_p05);
    EXPECT_EQ(a.baseline->ref_ref_p95, b.baseline->ref_ref_p95);
    EXPECT_EQ(a.baseline->sim_ref_median, b.baseline->sim_ref_median);
    EXPECT_EQ(a.baseline->sim_ref_p05, b.baseline->sim_ref_p05);
    EXPECT_EQ(a.baseline->sim_ref_p95, b.baseline->sim_ref_p95);
    EXPECT_EQ(a.baseline->ratio, b.baseline->ratio);
  }
  ASSERT_EQ(a.rules.size(), b.rules.size());
  for (size_t k = 0; k < a.rules.size(); ++k) {
    EXPECT_EQ(a.rules[k].value, b.rules[k].value);
    EXPECT_EQ(a.rules[k].pass, b.rules[k].pass);
  }
  EXPECT_EQ(a.pass, b.pass);
}

TEST(VerdictTest, ResultDoesNotDependOnThreadCount) {
  const CostMatrix pooled = RandomPooled(12, 17, 0.2, 10);
  VerdictOptions options = Options(301, 42);
  options.alpha = 0.05;
  options.max_ratio = 1.2;
  VerdictContext one_thread;
  one_thread.max_threads = 1;
  absl::StatusOr<Verdict> serial = DecideVerdict(pooled, 12, 0.3, 2.0, options, one_thread);
  ASSERT_TRUE(serial.ok()) << serial.status();
  for (int threads : {2, 3, 8}) {
    VerdictContext context;
    context.max_threads = threads;
    absl::StatusOr<Verdict> parallel = DecideVerdict(pooled, 12, 0.3, 2.0, options, context);
    ASSERT_TRUE(parallel.ok()) << parallel.status();
    ExpectSameVerdict(*serial, *parallel);
  }
}

TEST(VerdictTest, SeedChoosesTheResamples) {
  // Groups large enough that two seeds hardly ever draw the same median split.
  const CostMatrix pooled = RandomPooled(20, 20, 0.1, 11);
  absl::StatusOr<Verdict> a = DecideVerdict(pooled, 20, 0.0, 1.0, Options(99, 1));
  absl::StatusOr<Verdict> again = DecideVerdict(pooled, 20, 0.0, 1.0, Options(99, 1));
  absl::StatusOr<Verdict> b = DecideVerdict(pooled, 20, 0.0, 1.0, Options(99, 2));
  ASSERT_TRUE(a.ok() && again.ok() && b.ok());
  ExpectSameVerdict(*a, *again);
  EXPECT_EQ(a->statistic, b->statistic);
  EXPECT_NE(a->baseline->ref_ref_median, b->baseline->ref_ref_median);
}

TEST(VerdictTest, ProgressCountsEverySolveOneReportAtATime) {
  const CostMatrix pooled = RandomPooled(10, 10, 0.0, 12);
  std::vector<ResamplingProgress> reports;
  std::atomic<int> in_flight{0};
  bool overlapped = false;
  VerdictContext context;
  context.max_threads = 4;
  context.progress_interval_ms = 0;
  context.progress = [&](const ResamplingProgress& progress) {
    if (in_flight.fetch_add(1) != 0) overlapped = true;
    reports.push_back(progress);
    in_flight.fetch_sub(1);
  };
  ASSERT_TRUE(DecideVerdict(pooled, 10, 0.0, 1.0, Options(200, 1), context).ok());
  EXPECT_FALSE(overlapped);
  ASSERT_FALSE(reports.empty());
  // K permutations, 2K baseline splits and the ratio interval's K resamples.
  const uint64_t solves = 600 + resampling::RatioIntervalSolves(200);
  EXPECT_EQ(reports.back().done, solves);
  EXPECT_EQ(reports.back().total, solves);
  for (size_t k = 1; k < reports.size(); ++k) {
    EXPECT_GE(reports[k].done, reports[k - 1].done);
    EXPECT_EQ(reports[k].total, solves);
  }
}

TEST(VerdictTest, CancellationStopsTheResampling) {
  const CostMatrix pooled = RandomPooled(10, 10, 0.0, 13);
  CancellationToken cancel;
  cancel.Cancel();
  VerdictContext context;
  context.cancel = &cancel;
  absl::StatusOr<Verdict> verdict = DecideVerdict(pooled, 10, 0.0, 1.0, Options(99, 1), context);
  EXPECT_EQ(verdict.status().code(), absl::StatusCode::kCancelled);

  CancellationToken later;
  size_t last_done = 0;
  context.cancel = &later;
  context.progress_interval_ms = 0;
  context.progress = [&](const ResamplingProgress& progress) {
    last_done = progress.done;
    later.Cancel();
  };
  verdict = DecideVerdict(pooled, 10, 0.0, 1.0, Options(5000, 1), context);
  EXPECT_EQ(verdict.status().code(), absl::StatusCode::kCancelled);
  EXPECT_LT(last_done, 15000u);
}

TEST(VerdictTest, RejectsInvalidOptions) {
  const auto message = [](const VerdictOptions& options) {
    return std::string(ValidateVerdictOptions(options).message());
  };
  EXPECT_TRUE(ValidateVerdictOptions(VerdictOptions{}).ok());
  EXPECT_THAT(message(Options(0, 1)), HasSubstr("permutations: "));
  EXPECT_THAT(message(Options(1'000'001, 1)), HasSubstr("permutations: "));
  EXPECT_TRUE(ValidateVerdictOptions(Options(1'000'000, 1)).ok());

  VerdictOptions options;
  options.max_distance = -1.0;
  EXPECT_THAT(message(options), HasSubstr("max_distance: "));
  options = {};
  options.max_ratio = std::numeric_limits<double>::infinity();
  EXPECT_THAT(message(options), HasSubstr("max_ratio: "));
  options = {};
  options.max_ratio = std::numeric_limits<double>::quiet_NaN();
  EXPECT_THAT(message(options), HasSubstr("max_ratio: "));
  for (double alpha : {0.0, 1.0, -0.1, std::numeric_limits<double>::quiet_NaN()}) {
    options = {};
    options.alpha = alpha;
    EXPECT_THAT(message(options), HasSubstr("alpha: ")) << alpha;
  }

  options = {};
  options.permutations = 0;
  absl::StatusOr<Verdict> verdict = DecideVerdict(RandomPooled(3, 3, 0.0, 1), 3, 0.0, 1.0, options);
  EXPECT_THAT(verdict.status().message(), HasSubstr("permutations: "));
}

TEST(VerdictTest, RejectsPooledMatricesItCannotJudge) {
  const CostMatrix pooled = RandomPooled(3, 3, 0.0, 14);
  const VerdictOptions options = Options(9, 1);
  EXPECT_EQ(DecideVerdict(pooled, 0, 0.0, 1.0, options).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(DecideVerdict(pooled, 6, 0.0, 1.0, options).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(DecideVerdict(CostMatrix(3, 4), 1, 0.0, 1.0, options).status().message(),
              HasSubstr("square"));
  EXPECT_THAT(DecideVerdict(pooled, 3, 0.0, 0.5, options).status().message(), HasSubstr("order"));
  CostMatrix negative = pooled;
  negative.at(1, 4) = -1.0;
  EXPECT_THAT(DecideVerdict(negative, 3, 0.0, 1.0, options).status().message(),
              HasSubstr("(1, 4)"));
  VerdictContext context;
  context.max_threads = -2;
  EXPECT_THAT(DecideVerdict(pooled, 3, 0.0, 1.0, options, context).status().message(),
              HasSubstr("max_threads"));
}

TEST(ResamplingQuantileTest, InterpolatesBetweenOrderStatistics) {
  const std::vector<double> sorted = {1.0, 2.0, 3.0, 4.0};
  EXPECT_DOUBLE_EQ(resampling::Quantile(sorted, 0.5), 2.5);
  EXPECT_DOUBLE_EQ(resampling::Quantile(sorted, 0.05), 1.15);
  EXPECT_DOUBLE_EQ(resampling::Quantile(sorted, 0.95), 3.85);
  EXPECT_EQ(resampling::Quantile(sorted, 0.0), 1.0);
  EXPECT_EQ(resampling::Quantile(sorted, 1.0), 4.0);
  EXPECT_EQ(resampling::Quantile({7.0}, 0.95), 7.0);
  const resampling::Summary summary = resampling::Summarise({5.0, 1.0, 3.0});
  EXPECT_EQ(summary.median, 3.0);
  EXPECT_DOUBLE_EQ(summary.p05, 1.2);
  EXPECT_DOUBLE_EQ(summary.p95, 4.8);
}

}  // namespace
}  // namespace wasserwarp
