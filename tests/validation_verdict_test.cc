// The verdict, matched-pair metrics and quantities of interest as Validate
// assembles them: the pieces are tested on their own in verdict_test,
// pair_metrics_test and quantity_of_interest_test.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

#include "nlohmann/json.hpp"
#include "random_runs.h"
#include "verdict/ratio_interval.h"
#include "wasserwarp/report_json.h"
#include "wasserwarp/validation.h"

namespace wasserwarp {
namespace {

using test_data::RandomWalkRuns;
using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

// Noisy copies of one smooth manoeuvre, `offset` added to every value.
std::vector<Series> Manoeuvres(const std::string& prefix, int count, double rate, double offset,
                               unsigned seed) {
  std::srand(seed);
  std::vector<Series> runs;
  for (int k = 0; k < count; ++k) {
    Series run;
    run.id = prefix + std::to_string(k);
    run.channels = {"ay", "r"};
    const double gain = 1.0 + 0.05 * (std::rand() / static_cast<double>(RAND_MAX) - 0.5);
    for (int i = 0; i * (1.0 / rate) <= 2.0; ++i) {
      const double t = i / rate;
      const double noise = 0.02 * (std::rand() / static_cast<double>(RAND_MAX) - 0.5);
      run.times.push_back(t);
      run.values.push_back(offset + gain * std::sin(3.0 * t) + noise);
      run.values.push_back(offset + gain * std::cos(3.0 * t) - noise);
    }
    runs.push_back(std::move(run));
  }
  return runs;
}

ValidationOptions WithVerdict(int permutations) {
  ValidationOptions options;
  options.verdict = VerdictOptions{};
  options.verdict->permutations = permutations;
  return options;
}

TEST(ValidationVerdictTest, NoVerdictUnlessAskedButMetricsAlways) {
  const std::vector<Series> sim = RandomWalkRuns("sim", 3, 10, 20, 2, 41);
  const std::vector<Series> ref = RandomWalkRuns("ref", 4, 10, 20, 2, 42);
  absl::StatusOr<ValidationReport> report = Validate(sim, ref, {});
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_FALSE(report->verdict.has_value());
  EXPECT_FALSE(report->pooled_cost_matrix.has_value());
  ASSERT_EQ(report->pair_metrics.size(), report->plan.size() * 2);
  for (size_t k = 0; k < report->plan.size(); ++k) {
    for (int c = 0; c < 2; ++c) {
      const PairMetrics& metrics = report->pair_metrics[k * 2 + c];
      EXPECT_EQ(metrics.sim, report->plan[k].row);
      EXPECT_EQ(metrics.ref, report->plan[k].col);
      EXPECT_EQ(metrics.channel, c);
    }
  }
  EXPECT_EQ(report->pair_metrics_average.size(), 2u);
}

TEST(ValidationVerdictTest, PhasesIncludeTheVerdictsAndItsMatrixIsPooled) {
  const std::vector<Series> sim = RandomWalkRuns("sim", 3, 10, 20, 1, 43);
  const std::vector<Series> ref = RandomWalkRuns("ref", 4, 10, 20, 1, 44);
  ValidationOptions options = WithVerdict(19);
  options.keep_pooled_cost_matrix = true;
  options.twed.lambda = 0.1;
  options.prepare.align = Align::kNone;  // so that the raw runs are the prepared ones
  std::vector<ValidationPhase> phases;
  options.on_phase = [&](ValidationPhase phase) { phases.push_back(phase); };
  ResamplingProgress last;
  options.verdict_progress = [&](const ResamplingProgress& progress) { last = progress; };
  absl::StatusOr<ValidationReport> report = Validate(sim, ref, options);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_THAT(phases,
              ElementsAre(ValidationPhase::kPreparing, ValidationPhase::kCostMatrix,
                          ValidationPhase::kTransport, ValidationPhase::kDiagnostics,
                          ValidationPhase::kPooledCostMatrix, ValidationPhase::kResampling));
  EXPECT_EQ(last.done, last.total);
  // K permutations, 2K baseline splits and the ratio interval's K resamples.
  EXPECT_EQ(last.total, 19u * 3 + resampling::RatioIntervalSolves(19));

  // The kept matrix is plain TWED between every pair of runs, simulated runs first.
  ASSERT_TRUE(report->pooled_cost_matrix.has_value());
  const CostMatrix& pooled = *report->pooled_cost_matrix;
  ASSERT_EQ(pooled.rows, 7u);
  std::vector<Series> all = sim;
  all.insert(all.end(), ref.begin(), ref.end());
  for (size_t i = 0; i < all.size(); ++i) {
    for (size_t j = 0; j < all.size(); ++j) {
      EXPECT_DOUBLE_EQ(pooled.at(i, j), i == j ? 0.0 : *Twed(all[i], all[j], options.twed))
          << i << ", " << j;
    }
  }
  // The test saw the matrix less the sampling floor.
  ASSERT_TRUE(report->verdict.has_value());
  EXPECT_TRUE(report->verdict->sampling_floor_subtracted);
  CostMatrix floored = pooled;
  std::vector<uint64_t> samples;
  for (const Series& run : all) samples.push_back(run.samples());
  SubtractSamplingFloor(samples, options.twed.lambda, floored);
  absl::StatusOr<Verdict> direct =
      DecideVerdict(floored, sim.size(), report->distance, 1.0, *options.verdict);
  ASSERT_TRUE(direct.ok()) << direct.status();
  EXPECT_EQ(report->verdict->statistic, direct->statistic);
  EXPECT_EQ(report->verdict->p_value, direct->p_value);
}

TEST(ValidationVerdictTest, RulesDecideAndFailingOneFailsTheVerdict) {
  const std::vector<Series> sim = Manoeuvres("sim", 6, 50, 0.0, 1);
  const std::vector<Series> ref = Manoeuvres("ref", 6, 50, 0.0, 2);
  ValidationOptions options = WithVerdict(99);
  options.verdict->max_distance = 1e9;
  options.verdict->max_ratio = 1e9;
  absl::StatusOr<ValidationReport> report = Validate(sim, ref, options);
  ASSERT_TRUE(report.ok()) << report.status();
  ASSERT_TRUE(report->verdict->pass.has_value());
  EXPECT_TRUE(*report->verdict->pass);
  ASSERT_EQ(report->verdict->rules.size(), 2u);
  EXPECT_EQ(report->verdict->rules[0].name, "max_distance");
  EXPECT_EQ(report->verdict->rules[0].value, report->distance);

  options.verdict->max_distance = report->distance / 2;
  report = Validate(sim, ref, options);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_FALSE(*report->verdict->pass);
  EXPECT_FALSE(report->verdict->rules[0].pass);
  EXPECT_TRUE(report->verdict->rules[1].pass);
}

TEST(ValidationVerdictTest, AnOffsetModelIsRejectedAndAGoodOneIsNot) {
  const std::vector<Series> ref = Manoeuvres("ref", 10, 50, 0.0, 3);
  ValidationOptions options = WithVerdict(199);
  options.verdict->alpha = 0.05;
  absl::StatusOr<ValidationReport> good = Validate(Manoeuvres("sim", 10, 50, 0.0, 4), ref, options);
  ASSERT_TRUE(good.ok()) << good.status();
  EXPECT_GT(good->verdict->p_value, 0.05);
  ASSERT_TRUE(good->verdict->baseline.has_value());
  EXPECT_LT(good->verdict->baseline->ratio, 2.0);

  absl::StatusOr<ValidationReport> offset =
      Validate(Manoeuvres("sim", 10, 50, 0.5, 5), ref, options);
  ASSERT_TRUE(offset.ok()) << offset.status();
  EXPECT_DOUBLE_EQ(offset->verdict->p_value, 1.0 / 200);
  EXPECT_FALSE(*offset->verdict->pass);
  EXPECT_GT(offset->verdict->baseline->ratio, 3.0);
}

TEST(ValidationVerdictTest, DifferentSamplingRatesThinTheVerdictsRunsAndSaySo) {
  ValidationOptions options = WithVerdict(9);
  options.twed.lambda = 0.2;
  absl::StatusOr<ValidationReport> report =
      Validate(Manoeuvres("sim", 3, 100, 0.0, 6), Manoeuvres("ref", 6, 250, 0.0, 7), options);
  ASSERT_TRUE(report.ok()) << report.status();
  ASSERT_EQ(report->verdict->warnings.size(), 1u);
  EXPECT_THAT(report->verdict->warnings[0], AllOf(HasSubstr("100 Hz and reference runs at 250 Hz"),
                                                  HasSubstr("thinned to 100 Hz")));
  EXPECT_FALSE(report->verdict->same_grid_as_distance);
  EXPECT_EQ(report->verdict->resample_rate, 100.0);

  report = Validate(Manoeuvres("sim", 3, 100, 0.0, 6), Manoeuvres("ref", 6, 100, 0.0, 7), options);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_TRUE(report->verdict->warnings.empty());
  EXPECT_TRUE(report->verdict->same_grid_as_distance);
}

TEST(ValidationVerdictTest, VerdictDoesNotDependOnThreadCount) {
  const std::vector<Series> sim = RandomWalkRuns("sim", 5, 20, 80, 2, 45);
  const std::vector<Series> ref = RandomWalkRuns("ref", 7, 20, 80, 2, 46);
  std::vector<std::string> documents;
  for (int threads : {1, 3}) {
    ValidationOptions options = WithVerdict(49);
    options.verdict->max_ratio = 1.5;
    options.quantities = {{"c0", QuantityKind::kMax}, {"c1", QuantityKind::kIntegral}};
    options.compute.max_threads = threads;
    absl::StatusOr<ValidationReport> report = Validate(sim, ref, options);
    ASSERT_TRUE(report.ok()) << report.status();
    report->seconds = 0;
    documents.push_back(ReportToJson(*report));
  }
  EXPECT_EQ(documents[0], documents[1]);
}

TEST(ValidationVerdictTest, AMissingQuantityChannelFailsBeforeTheCostMatrix) {
  const std::vector<Series> sim = RandomWalkRuns("sim", 2, 10, 20, 1, 47);
  ValidationOptions options;
  options.quantities = {{"speed", QuantityKind::kMax}};
  std::vector<ValidationPhase> phases;
  options.on_phase = [&](ValidationPhase phase) { phases.push_back(phase); };
  absl::StatusOr<ValidationReport> report = Validate(sim, sim, options);
  EXPECT_EQ(report.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(report.status().message(), HasSubstr("speed"));
  EXPECT_THAT(phases, ElementsAre(ValidationPhase::kPreparing));
}

TEST(ValidationVerdictTest, BadVerdictOptionsFailBeforeAnyWork) {
  const std::vector<Series> sim = RandomWalkRuns("sim", 2, 10, 20, 1, 48);
  ValidationOptions options = WithVerdict(0);
  bool started = false;
  options.on_phase = [&](ValidationPhase) { started = true; };
  EXPECT_EQ(Validate(sim, sim, options).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_FALSE(started);
}

TEST(ValidationVerdictTest, JsonHoldsTheVerdictMetricsAndQuantities) {
  const std::vector<Series> sim = Manoeuvres("sim", 3, 50, 0.0, 8);
  const std::vector<Series> ref = Manoeuvres("ref", 4, 50, 0.0, 9);
  ValidationOptions options = WithVerdict(19);
  options.verdict->alpha = 0.01;
  options.quantities = {{"ay", QuantityKind::kMax}, {"r", QuantityKind::kValueAt, 1.0}};
  absl::StatusOr<ValidationReport> report = Validate(sim, ref, options);
  ASSERT_TRUE(report.ok()) << report.status();
  const nlohmann::json json = nlohmann::json::parse(ReportToJson(*report));

  const nlohmann::json& verdict = json["verdict"];
  for (const char* key : {"pass", "rules", "p_value", "permutations", "baseline"}) {
    EXPECT_TRUE(verdict.contains(key)) << key;
  }
  EXPECT_EQ(verdict["permutations"], 19);
  EXPECT_EQ(verdict["rules"][0]["name"], "alpha");
  for (const char* key : {"name", "value", "threshold", "pass"}) {
    EXPECT_TRUE(verdict["rules"][0].contains(key)) << key;
  }
  for (const char* key : {"ref_ref_median", "ref_ref_p05", "ref_ref_p95", "sim_ref_median",
                          "sim_ref_p05", "sim_ref_p95", "ratio"}) {
    EXPECT_TRUE(verdict["baseline"].contains(key)) << key;
  }
  ASSERT_EQ(json["pair_metrics"].size(), report->plan.size() * 2);
  for (const char* key : {"sim", "ref", "channel", "rmse", "theil_u", "q3", "sprague_geers_m",
                          "sprague_geers_p", "sprague_geers_c", "lag"}) {
    EXPECT_TRUE(json["pair_metrics"][0].contains(key)) << key;
  }
  EXPECT_EQ(json["pair_metrics"][1]["channel"], "r");
  ASSERT_EQ(json["qoi"].size(), 2u);
  EXPECT_EQ(json["qoi"][1]["channel"], "r");
  EXPECT_EQ(json["qoi"][1]["quantity"], "value_at:1");
  EXPECT_GE(json["qoi"][0]["avm"].get<double>(), 0.0);

  options.verdict.reset();
  report = Validate(sim, ref, options);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_TRUE(nlohmann::json::parse(ReportToJson(*report))["verdict"].is_null());
}

}  // namespace
}  // namespace wasserwarp
