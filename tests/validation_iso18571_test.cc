// ISO/TS 18571 as Validate assembles it (issue 42): one rating per plan pair and channel, the
// plan-weighted averages, the min_iso_rating rule in the verdict, the JSON, the size counted
// before work. The rating itself is tested against a second implementation in iso18571_test.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "nlohmann/json.hpp"
#include "wasserwarp/field_error.h"
#include "wasserwarp/iso18571.h"
#include "wasserwarp/report_json.h"
#include "wasserwarp/validation.h"
#include "wasserwarp/validation_size.h"

namespace wasserwarp {
namespace {

using ::testing::HasSubstr;

// `count` runs of one channel, a decaying oscillation at 100 Hz for 1 s, each `gain` times it
// plus a small run-specific offset.
std::vector<Series> Runs(const std::string& prefix, int count, double gain, double delay) {
  std::vector<Series> runs;
  for (int k = 0; k < count; ++k) {
    Series run;
    run.id = prefix + std::to_string(k);
    run.channels = {"ax"};
    for (int i = 0; i <= 100; ++i) {
      const double t = i / 100.0;
      run.times.push_back(t);
      run.values.push_back(gain * std::exp(-2 * (t - delay)) * std::sin(12 * (t - delay)) +
                           0.01 * k);
    }
    runs.push_back(std::move(run));
  }
  return runs;
}

TEST(ValidationIso18571Test, NotRatedUnlessAsked) {
  absl::StatusOr<ValidationReport> report = Validate(Runs("s", 2, 1, 0), Runs("r", 2, 1, 0), {});
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_TRUE(report->iso18571.empty());
  const nlohmann::json json = nlohmann::json::parse(ReportToJson(*report));
  EXPECT_FALSE(json.contains("iso18571"));
}

TEST(ValidationIso18571Test, EveryPlanPairAndChannelIsRated) {
  ValidationOptions options;
  options.iso18571 = true;
  absl::StatusOr<ValidationReport> report =
      Validate(Runs("s", 3, 1.1, 0.02), Runs("r", 2, 1, 0), options);
  ASSERT_TRUE(report.ok()) << report.status();
  ASSERT_EQ(report->iso18571.size(), report->plan.size());
  for (size_t k = 0; k < report->plan.size(); ++k) {
    const PairIso18571& pair = report->iso18571[k];
    EXPECT_EQ(pair.sim, report->plan[k].row);
    EXPECT_EQ(pair.ref, report->plan[k].col);
    EXPECT_EQ(pair.rating.samples, 101u);
    EXPECT_EQ(pair.rating.shift_samples, 2);
    EXPECT_GT(pair.rating.r, 0.5);
    EXPECT_LT(pair.rating.r, 1.0);
  }
  ASSERT_EQ(report->iso18571_average.size(), 1u);
  EXPECT_TRUE(report->iso18571_warnings.empty());
  EXPECT_FALSE(report->verdict.has_value());

  const nlohmann::json json = nlohmann::json::parse(ReportToJson(*report));
  ASSERT_EQ(json["iso18571"].size(), report->plan.size());
  const nlohmann::json& first = json["iso18571"][0];
  EXPECT_EQ(first["channel"], "ax");
  EXPECT_EQ(first["shift_samples"], 2);
  EXPECT_NEAR(first["shift_seconds"].get<double>(), 0.02, 1e-12);
  EXPECT_EQ(first["grade"], std::string(Iso18571Grade(report->iso18571[0].rating.r)));
  for (const char* key : {"sim", "ref", "samples", "r", "z", "ep", "em", "es"}) {
    EXPECT_TRUE(first.contains(key)) << key;
  }
  const nlohmann::json& average = json["iso18571_average"][0];
  EXPECT_EQ(average["channel"], "ax");
  EXPECT_DOUBLE_EQ(average["r"].get<double>(), report->iso18571_average[0].r);
  EXPECT_DOUBLE_EQ(average["min_r"].get<double>(), report->iso18571_average[0].min_r);
  EXPECT_FALSE(json.contains("iso18571_warnings"));
}

TEST(ValidationIso18571Test, ShortPairsAreNullWithAWarning) {
  std::vector<Series> sim = Runs("s", 1, 1, 0);
  std::vector<Series> ref = Runs("r", 1, 1, 0);
  for (std::vector<Series>* runs : {&sim, &ref}) {
    (*runs)[0].times.resize(8);
    (*runs)[0].values.resize(8);
  }
  ValidationOptions options;
  options.iso18571 = true;
  absl::StatusOr<ValidationReport> report = Validate(sim, ref, options);
  ASSERT_TRUE(report.ok()) << report.status();
  ASSERT_EQ(report->iso18571_warnings.size(), 1u);
  EXPECT_THAT(report->iso18571_warnings[0], HasSubstr("fewer than 10 samples"));
  const nlohmann::json json = nlohmann::json::parse(ReportToJson(*report));
  EXPECT_TRUE(json["iso18571"][0]["r"].is_null());
  EXPECT_TRUE(json["iso18571"][0]["grade"].is_null());
  EXPECT_TRUE(json["iso18571_average"][0]["r"].is_null());
  EXPECT_EQ(json["iso18571_warnings"].size(), 1u);
}

TEST(ValidationIso18571Test, MinIsoRatingIsARuleOfTheVerdict) {
  for (const double threshold : {0.5, 0.999}) {
    ValidationOptions options;
    options.verdict = VerdictOptions{};
    options.verdict->permutations = 9;
    options.verdict->min_iso_rating = threshold;
    absl::StatusOr<ValidationReport> report =
        Validate(Runs("s", 3, 1.1, 0.02), Runs("r", 3, 1, 0), options);
    ASSERT_TRUE(report.ok()) << report.status();
    ASSERT_TRUE(report->verdict.has_value());
    ASSERT_EQ(report->verdict->rules.size(), 1u);
    const VerdictRule& rule = report->verdict->rules[0];
    EXPECT_EQ(rule.name, "min_iso_rating");
    EXPECT_EQ(rule.threshold, threshold);
    ASSERT_EQ(report->iso18571_average.size(), 1u);
    EXPECT_EQ(rule.value, report->iso18571_average[0].r);
    EXPECT_EQ(rule.pass, rule.value >= threshold);
    EXPECT_EQ(report->verdict->pass, rule.pass);
    EXPECT_EQ(rule.pass, threshold == 0.5) << rule.value;
  }
}

TEST(ValidationIso18571Test, MinIsoRatingOutsideZeroToOneIsRefusedNamingTheField) {
  for (const double bad : {-0.1, 1.5, std::nan("")}) {
    ValidationOptions options;
    options.verdict = VerdictOptions{};
    options.verdict->min_iso_rating = bad;
    const absl::Status status = ValidateValidationOptions(options, 1, 1);
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
    EXPECT_EQ(ErrorField(status), "min_iso_rating") << status;
  }
}

TEST(ValidationIso18571Test, ItsDtwCellsAreCountedBeforeWork) {
  const std::vector<RunShape> runs = {{.id = "a",
                                       .samples = 2001,
                                       .channels = 2,
                                       .first_time = 0,
                                       .last_time = 20,
                                       .median_step = 0.01},
                                      {.id = "b",
                                       .samples = 2001,
                                       .channels = 2,
                                       .first_time = 5,
                                       .last_time = 25,
                                       .median_step = 0.01}};
  ValidationOptions options;
  absl::StatusOr<ValidationSize> without = EstimateValidationSize(runs, runs, options, {});
  ASSERT_TRUE(without.ok());
  EXPECT_EQ(without->iso18571_dtw_cells, 0u);
  options.iso18571 = true;
  absl::StatusOr<ValidationSize> with = EstimateValidationSize(runs, runs, options, {});
  ASSERT_TRUE(with.ok());
  // 3 plan pairs at most, 2 channels, a grid of 2001 samples with a band of half-width 201.
  EXPECT_EQ(with->iso18571_dtw_cells, 3u * 2u * 2001u * 401u);
  EXPECT_GT(with->bytes, without->bytes);

  ValidationLimits limits;
  limits.dp_cells = {with->dp_cells + with->iso18571_dtw_cells - 1, "--max_job_cells"};
  const absl::Status status = CheckValidationSize(runs, runs, options, limits);
  EXPECT_EQ(status.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(ErrorField(status), "iso18571");
  EXPECT_THAT(std::string(status.message()), HasSubstr("DTW cells"));
  limits.dp_cells.value += 1;
  EXPECT_TRUE(CheckValidationSize(runs, runs, options, limits).ok());
}

TEST(ValidationIso18571Test, AnIrregularReferencesGridIsCountedAtItsMedianStep) {
  // The reference sampled every 10 ms for 0.5 s, then every 2 ms: its median step is 2 ms, so
  // the grid has 501 samples (its mean step, 1/300 s, would count 301).
  Series reference{.id = "r0", .channels = {"ax"}, .times = {}, .values = {}};
  for (int i = 0; i <= 50; ++i) reference.times.push_back(i * 0.01);
  for (int i = 1; i <= 250; ++i) reference.times.push_back(0.5 + i * 0.002);
  for (double t : reference.times) reference.values.push_back(std::sin(6 * t));
  Series simulation{.id = "s0", .channels = {"ax"}, .times = {}, .values = {}};
  for (int i = 0; i <= 1000; ++i) {
    simulation.times.push_back(i * 0.001);
    simulation.values.push_back(1.1 * std::sin(6 * i * 0.001));
  }
  ValidationOptions options;
  options.iso18571 = true;
  absl::StatusOr<ValidationReport> report = Validate({simulation}, {reference}, options);
  ASSERT_TRUE(report.ok()) << report.status();
  ASSERT_EQ(report->iso18571.size(), 1u);
  EXPECT_EQ(report->iso18571[0].rating.samples, 501u);
  absl::StatusOr<ValidationSize> size =
      EstimateValidationSize({ShapeOf(simulation)}, {ShapeOf(reference)}, options, {});
  ASSERT_TRUE(size.ok()) << size.status();
  EXPECT_EQ(size->iso18571_dtw_cells, Iso18571DtwCells(501));
}

TEST(ValidationIso18571Test, AWindowedReferenceStepsAtItsRecordingsMedianStep) {
  // The reference recorded every 10 ms for 4 s, and every 1 ms for 0.2 s around its trigger at
  // 2 s; a window of 0.1 s either side keeps the dense part, whose own median step is 1 ms. The
  // simulated run, at 0.7 ms, shares no timestamps with it, so the grid is interpolated and
  // steps at the recording's 10 ms, as the job's size counted it: 21 samples.
  Series reference{.id = "r0", .channels = {"ax"}, .times = {}, .values = {}};
  for (int i = 0; i <= 190; ++i) reference.times.push_back(i * 0.01);
  for (int i = 1; i <= 200; ++i) reference.times.push_back(1.9 + i * 0.001);
  for (int i = 1; i <= 190; ++i) reference.times.push_back(2.1 + i * 0.01);
  for (double t : reference.times) reference.values.push_back(std::tanh(5 * (t - 2)));
  Series simulation{.id = "s0", .channels = {"ax"}, .times = {}, .values = {}};
  for (int i = 0; i <= 5700; ++i) {
    simulation.times.push_back(i * 0.0007);
    simulation.values.push_back(1.1 * std::tanh(5 * (i * 0.0007 - 2)));
  }
  ValidationOptions options;
  options.iso18571 = true;
  options.prepare.window = EventWindow{.channel = "ax", .before = 0.1, .after = 0.1};
  absl::StatusOr<ValidationReport> report = Validate({simulation}, {reference}, options);
  ASSERT_TRUE(report.ok()) << report.status();
  ASSERT_EQ(report->iso18571.size(), 1u);
  EXPECT_EQ(report->iso18571[0].rating.samples, 21u);
  absl::StatusOr<ValidationSize> size =
      EstimateValidationSize({ShapeOf(simulation)}, {ShapeOf(reference)}, options, {});
  ASSERT_TRUE(size.ok()) << size.status();
  EXPECT_GE(size->iso18571_dtw_cells, Iso18571DtwCells(21));

  // At 1 ms the simulated run shares the window's timestamps, which are then the grid: the
  // window's 201 samples and its interpolated end, within the count too.
  for (size_t i = 0; i < simulation.samples(); ++i) {
    simulation.times[i] = 0.001 * static_cast<double>(i);
    simulation.values[i] = 1.1 * std::tanh(5 * (simulation.times[i] - 2));
  }
  simulation.times.resize(4001);
  simulation.values.resize(4001);
  report = Validate({simulation}, {reference}, options);
  ASSERT_TRUE(report.ok()) << report.status();
  const uint64_t shared = report->iso18571[0].rating.samples;
  EXPECT_GT(shared, 200u);
  size = EstimateValidationSize({ShapeOf(simulation)}, {ShapeOf(reference)}, options, {});
  ASSERT_TRUE(size.ok()) << size.status();
  EXPECT_GE(size->iso18571_dtw_cells, Iso18571DtwCells(shared));
}

}  // namespace
}  // namespace wasserwarp
