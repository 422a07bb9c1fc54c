// The sizes a validation implies, computed before any of it runs: checked against sizes
// counted another way (the resampled runs themselves, the DP cells the core reports), and the
// refusals name the option, the size and the limit.

#include "wasserwarp/validation_size.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <vector>

#include "random_runs.h"
#include "verdict/ratio_interval.h"
#include "wasserwarp/field_error.h"
#include "wasserwarp/prepare.h"
#include "wasserwarp/validation.h"

namespace wasserwarp {
namespace {

using ::testing::HasSubstr;

std::vector<RunShape> Shapes(const std::vector<Series>& runs) {
  std::vector<RunShape> shapes;
  for (const Series& run : runs) shapes.push_back(ShapeOf(run));
  return shapes;
}

ValidationLimits NoLimits() { return {.threads = 2}; }

TEST(ValidationSizeTest, ResampledSamplesAndCellsEqualWhatTheCoreComputes) {
  const std::vector<Series> sim = test_data::RandomWalkRuns("sim", 3, 40, 90, 2, 1);
  const std::vector<Series> ref = test_data::RandomWalkRuns("ref", 4, 30, 70, 2, 2);
  for (const std::optional<double> rate :
       {std::optional<double>(), std::optional<double>(37.5), std::optional<double>(410.0)}) {
    ValidationOptions options;
    options.prepare.resample_rate = rate;
    absl::StatusOr<ValidationSize> size =
        EstimateValidationSize(Shapes(sim), Shapes(ref), options, NoLimits());
    ASSERT_TRUE(size.ok()) << size.status();
    absl::StatusOr<PreparedRuns> prepared = PrepareRuns(sim, ref, options.prepare);
    ASSERT_TRUE(prepared.ok()) << prepared.status();
    uint64_t largest = 0;
    for (const auto* side : {&prepared->simulation, &prepared->reference}) {
      for (const Series& run : *side) largest = std::max<uint64_t>(largest, run.samples());
    }
    EXPECT_EQ(size->largest_run_samples, largest);
    absl::StatusOr<ValidationReport> report = Validate(sim, ref, options);
    ASSERT_TRUE(report.ok()) << report.status();
    EXPECT_EQ(size->dp_cells, report->dp_cells_full);
  }
}

TEST(ValidationSizeTest, PooledCellsEqualTheVerdictsReportedCells) {
  const std::vector<Series> sim = test_data::RandomWalkRuns("sim", 4, 20, 40, 1, 3);
  const std::vector<Series> ref = test_data::RandomWalkRuns("ref", 5, 20, 40, 1, 4);
  ValidationOptions options;
  options.verdict = VerdictOptions{.permutations = 19};
  absl::StatusOr<ValidationSize> size =
      EstimateValidationSize(Shapes(sim), Shapes(ref), options, NoLimits());
  ASSERT_TRUE(size.ok()) << size.status();
  absl::StatusOr<ValidationReport> report = Validate(sim, ref, options);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_EQ(size->dp_cells + size->pooled_dp_cells, report->dp_cells);
  // K relabellings of 4 x 5, 2K baseline splits of 2 x 2, and the ratio interval's K
  // resamples of 32 solves, each bounded by (h + m / 2) x m = 4 x 5 entries.
  const uint64_t interval_solves = resampling::RatioIntervalSolves(19);
  EXPECT_EQ(size->resampling_solves, 3u * 19u + interval_solves);
  EXPECT_EQ(size->resampling_cells, 19u * 20u + 2u * 19u * 4u + interval_solves * 4u * 5u);
}

TEST(ValidationSizeTest, MemoryCountsTheMatricesAskedFor) {
  const std::vector<RunShape> sim(
      300, RunShape{.id = "s", .samples = 10, .channels = 1, .first_time = 0, .last_time = 1});
  const std::vector<RunShape> ref(200, sim.front());
  ValidationOptions options;
  const uint64_t plain = EstimateValidationSize(sim, ref, options, NoLimits())->bytes;
  options.keep_cost_matrix = true;
  const uint64_t kept = EstimateValidationSize(sim, ref, options, NoLimits())->bytes;
  // The kept matrix and its copy in the report: 60 000 doubles each.
  EXPECT_EQ(kept - plain, 60'000u * 8u);
  options.verdict = VerdictOptions{};
  const uint64_t verdict = EstimateValidationSize(sim, ref, options, NoLimits())->bytes;
  // At least the pooled 500 x 500 matrix.
  EXPECT_GE(verdict - kept, 500u * 500u * 8u);
}

TEST(ValidationSizeTest, SaturatesInsteadOfWrapping) {
  const std::vector<RunShape> huge = {
      {.id = "h", .samples = 1, .channels = 1, .first_time = 0, .last_time = 1e300}};
  ValidationOptions options;
  options.prepare.resample_rate = 1e300;
  absl::StatusOr<ValidationSize> size = EstimateValidationSize(huge, huge, options, NoLimits());
  ASSERT_TRUE(size.ok());
  EXPECT_EQ(size->largest_run_samples, std::numeric_limits<uint64_t>::max());
  EXPECT_EQ(size->dp_cells, std::numeric_limits<uint64_t>::max());
  EXPECT_EQ(size->bytes, std::numeric_limits<uint64_t>::max());
}

TEST(ValidationSizeTest, RefusalsNameTheOptionTheSizeAndTheLimit) {
  const std::vector<RunShape> runs = {
      {.id = "r1", .samples = 625, .channels = 2, .first_time = 0, .last_time = 6.24}};
  ValidationOptions options;
  options.prepare.resample_rate = 2.5e6;
  ValidationLimits limits = NoLimits();
  limits.samples_per_run = {1'000'000, "--max_samples_per_run"};
  absl::Status status = CheckValidationSize(runs, runs, options, limits);
  EXPECT_EQ(status.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(ErrorField(status), "resample_rate");
  EXPECT_EQ(ErrorLimit(status), "--max_samples_per_run");
  EXPECT_THAT(std::string(status.message()), HasSubstr("run \"r1\" would have 1.56e+07 samples"));

  options.prepare.resample_rate = 1e5;
  limits.dp_cells = {1'000'000'000, "--max_job_cells"};
  status = CheckValidationSize(runs, runs, options, limits);
  EXPECT_EQ(ErrorLimit(status), "--max_job_cells");
  EXPECT_THAT(std::string(status.message()), HasSubstr("3.89e+11 TWED cells"));

  options.prepare.resample_rate.reset();
  limits.dp_cells = {10'000'000'000, "--max_job_cells"};
  options.verdict = VerdictOptions{.permutations = 1'000'000};
  const std::vector<RunShape> many(100, runs.front());
  status = CheckValidationSize(many, many, options, limits);
  EXPECT_EQ(ErrorField(status), "permutations") << status;

  options.verdict.reset();
  limits.bytes = {4 << 20, "--max_job_bytes"};
  status = CheckValidationSize(many, many, options, limits);
  EXPECT_EQ(ErrorLimit(status), "--max_job_bytes");
  EXPECT_THAT(std::string(status.message()),
              HasSubstr("over the limit of 4.0 MiB (--max_job_bytes)"));
  EXPECT_TRUE(CheckValidationSize(runs, runs, options, limits).ok())
      << CheckValidationSize(runs, runs, options, limits);

  options.prepare.resample_rate = -1;
  EXPECT_EQ(CheckValidationSize(runs, runs, options, limits).code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(FieldErrorTest, RenameAndPrefixKeepTheDetail) {
  const absl::Status nu = InvalidFieldError("nu", "must be >= 0, got -1");
  EXPECT_EQ(nu.message(), "nu: must be >= 0, got -1");
  EXPECT_EQ(ErrorField(nu), "nu");
  const absl::Status renamed = RenameField(nu, "parameters.nu");
  EXPECT_EQ(renamed.message(), "parameters.nu: must be >= 0, got -1");
  EXPECT_EQ(ErrorField(renamed), "parameters.nu");
  EXPECT_EQ(renamed.code(), absl::StatusCode::kInvalidArgument);

  const absl::Status sample = WithField(
      absl::InvalidArgumentError("series \"a\": sample 3: time 1 is not after 2"), "times[3]");
  const absl::Status prefixed = PrefixField(sample, "a");
  EXPECT_EQ(ErrorField(prefixed), "a.times[3]");
  EXPECT_EQ(prefixed.message(), "a.times[3]: series \"a\": sample 3: time 1 is not after 2");

  const absl::Status plain = absl::InvalidArgumentError("no field");
  EXPECT_EQ(RenameField(plain, "x"), plain);
  EXPECT_EQ(ErrorField(PrefixField(plain, "b")), "b");

  const absl::Status quota = LimitExceededError("runs", "--max_job_bytes", "too big");
  EXPECT_EQ(ErrorLimit(RenameField(quota, "session")), "--max_job_bytes");
}

}  // namespace
}  // namespace wasserwarp
