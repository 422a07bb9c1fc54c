// Tolerance bands with time tolerance: the spec, the envelope by hand and against a brute-force
// one, the score of a pair, and the band in a validation (its rule in the verdict, its options
// refused naming the field).

#include "wasserwarp/tolerance_band.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "html_page_data.h"
#include "make_run.h"
#include "nlohmann/json.hpp"
#include "wasserwarp/field_error.h"
#include "wasserwarp/html_report.h"
#include "wasserwarp/validation.h"
#include "wasserwarp/validation_size.h"

namespace wasserwarp {
namespace {

using test_data::MakeRun;
using ::testing::DoubleEq;
using ::testing::HasSubstr;
using ::testing::Pointwise;

void ExpectInvalid(const absl::Status& status, const std::string& field,
                   const std::string& message) {
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
  EXPECT_EQ(ErrorField(status), field) << status;
  EXPECT_THAT(std::string(status.message()), HasSubstr(message));
}

// ---- the spec ----

TEST(ParseToleranceBandTest, ReadsEveryTermAndLeavesOutOnesAtZero) {
  absl::StatusOr<ToleranceBand> band =
      ParseToleranceBand("yaw_rate:abs=0.5,rel=0.1,lead=0.2,lag=1e-1");
  ASSERT_TRUE(band.ok()) << band.status();
  EXPECT_EQ(band->channel, "yaw_rate");
  EXPECT_EQ(band->abs, 0.5);
  EXPECT_EQ(band->rel, 0.1);
  EXPECT_EQ(band->lead, 0.2);
  EXPECT_EQ(band->lag, 0.1);
  absl::StatusOr<ToleranceBand> some = ParseToleranceBand("a:b:lag=2");
  ASSERT_TRUE(some.ok()) << some.status();
  EXPECT_EQ(some->channel, "a:b");
  EXPECT_EQ(some->abs, 0.0);
  EXPECT_EQ(some->lag, 2.0);
  absl::StatusOr<ToleranceBand> again = ParseToleranceBand(ToleranceBandSpec(*band));
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(ToleranceBandSpec(*again), ToleranceBandSpec(*band));
}

TEST(ParseToleranceBandTest, RefusesBadSyntaxSayingWhat) {
  const std::pair<const char*, const char*> cases[] = {
      {"yaw_rate", "expected CHANNEL:abs=A"},
      {":abs=1", "names no channel"},
      {"ay:", "gives no tolerance"},
      {"ay:abs", "\"abs\" is not KEY=VALUE"},
      {"ay:width=1", "unknown term \"width\""},
      {"ay:abs=1,abs=2", "\"abs\" is given twice"},
      {"ay:lead=soon", "lead \"soon\" is not a number"},
      {"ay:abs=1,", "\"\" is not KEY=VALUE"},
  };
  for (const auto& [spec, message] : cases) {
    absl::StatusOr<ToleranceBand> band = ParseToleranceBand(spec);
    EXPECT_EQ(band.status().code(), absl::StatusCode::kInvalidArgument) << spec;
    EXPECT_THAT(std::string(band.status().message()), HasSubstr(message)) << spec;
    EXPECT_THAT(std::string(band.status().message()), HasSubstr(spec)) << spec;
  }
}

TEST(ValidateToleranceBandsTest, RefusesNegativeAndNonFiniteTermsAndTwoBandsOnAChannel) {
  EXPECT_TRUE(ValidateToleranceBands({{.channel = "ay", .abs = 0.1, .lead = 1.0}}).ok());
  ExpectInvalid(ValidateToleranceBands({{.channel = "ay", .abs = -0.1}}), "bands",
                "band of channel \"ay\": abs must be a finite number >= 0, got -0.1");
  ExpectInvalid(ValidateToleranceBands({{.channel = "ay", .lag = -1.0}}), "bands", "lag must be");
  ExpectInvalid(
      ValidateToleranceBands({{.channel = "ay", .rel = std::numeric_limits<double>::infinity()}}),
      "bands", "rel must be a finite number");
  ExpectInvalid(ValidateToleranceBands({{.channel = "ay", .abs = 1.0}, {.channel = "ay"}}), "bands",
                "channel \"ay\" has two bands");
}

// ---- the envelope ----

// A unit step at t = 5 sampled every second.
const std::vector<double> kStepTimes = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
const std::vector<double> kStepValues = {0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1};

TEST(ToleranceEnvelopeTest, AStepWithLeadAndLag) {
  // The window [t - 1, t + 2]: the band rises two samples before the step and falls one after.
  const BandEnvelope envelope =
      ToleranceEnvelope(kStepTimes, kStepValues, {.channel = "x", .abs = 0.1, .lead = 2, .lag = 1});
  EXPECT_THAT(envelope.lower,
              Pointwise(DoubleEq(), std::vector<double>{-0.1, -0.1, -0.1, -0.1, -0.1, -0.1, 0.9,
                                                        0.9, 0.9, 0.9, 0.9}));
  EXPECT_THAT(envelope.upper,
              Pointwise(DoubleEq(), std::vector<double>{0.1, 0.1, 0.1, 1.1, 1.1, 1.1, 1.1, 1.1, 1.1,
                                                        1.1, 1.1}));
}

TEST(ToleranceEnvelopeTest, TheWindowsEndsAreInterpolated) {
  // lead 1.5 at t = 3 reaches 4.5, halfway up the step's ramp from 4 to 5; lag 0.25 at t = 5
  // reaches 4.75, three quarters up.
  const BandEnvelope envelope =
      ToleranceEnvelope(kStepTimes, kStepValues, {.channel = "x", .lead = 1.5, .lag = 0.25});
  EXPECT_DOUBLE_EQ(envelope.upper[2], 0.0);
  EXPECT_DOUBLE_EQ(envelope.upper[3], 0.5);
  EXPECT_DOUBLE_EQ(envelope.upper[4], 1.0);
  EXPECT_DOUBLE_EQ(envelope.lower[5], 0.75);
  EXPECT_DOUBLE_EQ(envelope.lower[6], 1.0);
  // Cut to the run's range at both ends.
  EXPECT_DOUBLE_EQ(envelope.lower[0], 0.0);
  EXPECT_DOUBLE_EQ(envelope.upper[10], 1.0);
}

TEST(ToleranceEnvelopeTest, RelativeToleranceShrinksToTheAbsoluteOneAtZeroCrossings) {
  const std::vector<double> times = {0, 1, 2, 3, 4};
  const std::vector<double> values = {-2, -1, 0, 1, 2};
  const BandEnvelope envelope =
      ToleranceEnvelope(times, values, {.channel = "x", .abs = 0.05, .rel = 0.1});
  // tol = max(0.05, 0.1 |y|): 0.2, 0.1, 0.05 at the crossing, 0.1, 0.2.
  const double tolerance[] = {0.2, 0.1, 0.05, 0.1, 0.2};
  for (size_t k = 0; k < times.size(); ++k) {
    EXPECT_DOUBLE_EQ(envelope.lower[k], values[k] - tolerance[k]) << k;
    EXPECT_DOUBLE_EQ(envelope.upper[k], values[k] + tolerance[k]) << k;
  }
  // Without an absolute term the band closes on the reference where it crosses zero.
  const BandEnvelope relative = ToleranceEnvelope(times, values, {.channel = "x", .rel = 0.1});
  EXPECT_EQ(relative.lower[2], 0.0);
  EXPECT_EQ(relative.upper[2], 0.0);
}

// The definition, sample by sample: every sample in the window and both of its ends, each end
// interpolated between the two samples around it found by a search of its own.
BandEnvelope BruteForceEnvelope(const std::vector<double>& t, const std::vector<double>& y,
                                const ToleranceBand& band) {
  const auto value_at = [&](double time) {
    const size_t right = std::upper_bound(t.begin(), t.end(), time) - t.begin();
    if (right == 0) return y.front();
    if (right == t.size()) return y.back();
    const size_t left = right - 1;
    return y[left] + (time - t[left]) / (t[right] - t[left]) * (y[right] - y[left]);
  };
  BandEnvelope envelope;
  for (size_t k = 0; k < t.size(); ++k) {
    const double start = std::max(t[k] - band.lag, t.front());
    const double end = std::min(t[k] + band.lead, t.back());
    double low = std::min(value_at(start), value_at(end));
    double high = std::max(value_at(start), value_at(end));
    for (size_t i = 0; i < t.size(); ++i) {
      if (t[i] < start || t[i] > end) continue;
      low = std::min(low, y[i]);
      high = std::max(high, y[i]);
    }
    const double tolerance = std::max(band.abs, band.rel * std::abs(y[k]));
    envelope.lower.push_back(low - tolerance);
    envelope.upper.push_back(high + tolerance);
  }
  return envelope;
}

TEST(ToleranceEnvelopeTest, EqualsTheBruteForceOneOnRandomRuns) {
  std::mt19937_64 rng(42);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::normal_distribution<double> normal;
  for (int trial = 0; trial < 200; ++trial) {
    const size_t n = 1 + static_cast<size_t>(unit(rng) * 300);
    std::vector<double> t(n);
    std::vector<double> y(n);
    double time = normal(rng);
    for (size_t i = 0; i < n; ++i) {
      time += 0.001 + unit(rng) * (trial % 3 == 0 ? 0.01 : 0.1);  // uneven steps
      t[i] = time;
      // Runs of equal values too, where the deques must keep the latest sample.
      y[i] = trial % 4 == 0 ? std::round(3 * normal(rng)) : normal(rng);
    }
    const ToleranceBand band{.channel = "x",
                             .abs = trial % 5 == 0 ? 0.0 : unit(rng),
                             .rel = unit(rng),
                             .lead = trial % 7 == 0 ? 0.0 : unit(rng) * 2,
                             .lag = trial % 6 == 0 ? 0.0 : unit(rng) * 2};
    const BandEnvelope fast = ToleranceEnvelope(t, y, band);
    const BandEnvelope slow = BruteForceEnvelope(t, y, band);
    for (size_t k = 0; k < n; ++k) {
      ASSERT_NEAR(fast.lower[k], slow.lower[k], 1e-12) << "trial " << trial << " k " << k;
      ASSERT_NEAR(fast.upper[k], slow.upper[k], 1e-12) << "trial " << trial << " k " << k;
    }
  }
}

// ---- a pair's score ----

TEST(ScoreToleranceBandTest, CountsInsideOnTheSharedRangeAndFindsTheFirstViolation) {
  const Series ref = MakeRun("ref", {"x"}, kStepTimes, kStepValues);
  // Late by half a second, from t = 1 to 9.5: the band with lag 1 holds it.
  Series sim = MakeRun("sim", {"x"}, {}, {});
  for (double t = 1.0; t <= 9.5; t += 0.5) {
    sim.times.push_back(t);
    sim.values.push_back(t >= 5.5 ? 1.0 : 0.0);
  }
  const BandScore held =
      ScoreToleranceBand(sim, ref, 0, 1.0, {.channel = "x", .abs = 0.1, .lag = 1.0});
  EXPECT_EQ(held.samples, 9u);  // reference samples 1 .. 9
  EXPECT_EQ(held.inside, 1.0);
  EXPECT_EQ(held.max_excursion, 0.0);
  EXPECT_FALSE(held.first_violation.has_value());

  // Without time tolerance the late step leaves the band at t = 5 by 1 - 0.1 (the simulated
  // run interpolated there is 0).
  const BandScore strict = ScoreToleranceBand(sim, ref, 0, 1.0, {.channel = "x", .abs = 0.1});
  EXPECT_DOUBLE_EQ(strict.inside, 8.0 / 9.0);
  EXPECT_DOUBLE_EQ(strict.max_excursion, 0.9);
  EXPECT_EQ(strict.first_violation, std::optional<double>(5.0));

  // In the channel's units: a divisor of 10 scales the values, not the tolerance.
  const BandScore scaled = ScoreToleranceBand(sim, ref, 0, 10.0, {.channel = "x", .abs = 0.1});
  EXPECT_DOUBLE_EQ(scaled.max_excursion, 9.9);
}

TEST(ScoreToleranceBandTest, RunsThatShareNoTimeHaveNoScore) {
  const Series ref = MakeRun("ref", {"x"}, {0, 1}, {0, 0});
  const Series sim = MakeRun("sim", {"x"}, {2, 3}, {0, 0});
  const BandScore score = ScoreToleranceBand(sim, ref, 0, 1.0, {.channel = "x", .abs = 1.0});
  EXPECT_EQ(score.samples, 0u);
  EXPECT_TRUE(std::isnan(score.inside));
  EXPECT_TRUE(std::isnan(score.max_excursion));
  EXPECT_EQ(WorstBandInside({{.sim = 0, .ref = 0, .band = 0, .score = score}}), 0.0);
}

// ---- in a validation ----

std::vector<Series> Steps(const std::string& prefix, const std::vector<double>& delays) {
  std::vector<Series> runs;
  for (size_t r = 0; r < delays.size(); ++r) {
    Series run = MakeRun(prefix + std::to_string(r), {"x", "y"}, {}, {});
    for (int i = 0; i <= 100; ++i) {
      const double t = 0.1 * i;
      run.times.push_back(t);
      run.values.push_back(t >= 5.0 + delays[r] ? 10.0 : 0.0);
      run.values.push_back(std::sin(t));
    }
    runs.push_back(std::move(run));
  }
  return runs;
}

ValidationOptions BandOptions(std::optional<double> min_inside) {
  ValidationOptions options;
  options.bands = {{.channel = "x", .abs = 0.5, .lag = 0.25}, {.channel = "y", .abs = 0.01}};
  if (min_inside.has_value()) {
    options.verdict = VerdictOptions{.permutations = 19, .band_min_inside = min_inside};
  }
  return options;
}

TEST(ValidationBandsTest, ScoresEveryPlanPairAndJudgesTheRule) {
  const std::vector<Series> sim = Steps("s", {0.0, 0.2, 0.4});
  const std::vector<Series> ref = Steps("r", {0.0, 0.0, 0.1});
  absl::StatusOr<ValidationReport> report = Validate(sim, ref, BandOptions(0.9));
  ASSERT_TRUE(report.ok()) << report.status();
  ASSERT_EQ(report->tolerance_bands.size(), 2u);
  ASSERT_EQ(report->bands.size(), 2 * report->plan.size());
  for (size_t k = 0; k < report->plan.size(); ++k) {
    for (int b = 0; b < 2; ++b) {
      const PairBand& pair = report->bands[2 * k + b];
      EXPECT_EQ(pair.sim, report->plan[k].row);
      EXPECT_EQ(pair.ref, report->plan[k].col);
      EXPECT_EQ(pair.band, b);
      EXPECT_EQ(pair.score.samples, 101u);
    }
  }
  // The sine is the same in every run; the step of s2 is 0.3 s or more late for every
  // reference, past the lag of 0.25 s: some of its samples fall outside.
  const double worst = WorstBandInside(report->bands);
  EXPECT_LT(worst, 1.0);
  EXPECT_GT(worst, 0.9);
  ASSERT_TRUE(report->verdict.has_value());
  const VerdictRule& rule = report->verdict->rules.back();
  EXPECT_EQ(rule.name, "band_min_inside");
  EXPECT_EQ(rule.value, worst);
  EXPECT_EQ(rule.threshold, 0.9);
  EXPECT_TRUE(rule.pass);
  EXPECT_EQ(report->verdict->pass, std::optional<bool>(true));

  absl::StatusOr<ValidationReport> strict = Validate(sim, ref, BandOptions(1.0));
  ASSERT_TRUE(strict.ok()) << strict.status();
  EXPECT_FALSE(strict->verdict->rules.back().pass);
  EXPECT_EQ(strict->verdict->pass, std::optional<bool>(false));
}

TEST(ValidationBandsTest, ScaledRunsAreComparedInTheChannelsUnits) {
  // One pair, so that the plan is the same with and without scaling.
  const std::vector<Series> sim = Steps("s", {0.4});
  const std::vector<Series> ref = Steps("r", {0.0});
  ValidationOptions options = BandOptions(std::nullopt);
  absl::StatusOr<ValidationReport> plain = Validate(sim, ref, options);
  options.prepare.scale = Scale::kReferenceStd;
  absl::StatusOr<ValidationReport> scaled = Validate(sim, ref, options);
  ASSERT_TRUE(plain.ok()) << plain.status();
  ASSERT_TRUE(scaled.ok()) << scaled.status();
  ASSERT_EQ(plain->bands.size(), 2u);
  ASSERT_EQ(scaled->bands.size(), 2u);
  EXPECT_LT(plain->bands[0].score.inside, 1.0);
  EXPECT_DOUBLE_EQ(plain->bands[0].score.max_excursion, 9.5);  // 10 - 0.5, in x's units
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_DOUBLE_EQ(plain->bands[i].score.inside, scaled->bands[i].score.inside) << i;
    EXPECT_NEAR(plain->bands[i].score.max_excursion, scaled->bands[i].score.max_excursion, 1e-9)
        << i;
  }
}

TEST(ValidationBandsTest, TheHtmlReportDrawsTheBandAroundTheReference) {
  const std::vector<Series> sim = Steps("s", {0.0, 0.2, 0.4});
  const std::vector<Series> ref = Steps("r", {0.0, 0.0, 0.1});
  ValidationOptions options;
  options.bands = {{.channel = "x", .abs = 0.5, .lag = 0.25}};
  absl::StatusOr<ValidationReport> report = Validate(sim, ref, options);
  ASSERT_TRUE(report.ok()) << report.status();
  const absl::StatusOr<std::string> page = RenderHtmlReport(
      *report, sim, ref, {.tool_version = "1", .generated_at = "2026-01-01T00:00:00Z"});
  ASSERT_TRUE(page.ok()) << page.status();
  EXPECT_THAT(*page, HasSubstr("tolerance band (--band)"));
  const nlohmann::json data = PageData(*page);
  for (const nlohmann::json& run : data["overlays"]) {
    const nlohmann::json& banded = run["channels"][0]["refs"][0];
    ASSERT_TRUE(banded["band"].is_object()) << run["run"];
    ASSERT_EQ(banded["band"]["lower"].size(), banded["t"].size());
    ASSERT_EQ(banded["band"]["upper"].size(), banded["t"].size());
    for (size_t i = 0; i < banded["t"].size(); ++i) {
      EXPECT_LE(banded["band"]["lower"][i].get<double>(), banded["v"][i].get<double>() - 0.5);
      EXPECT_GE(banded["band"]["upper"][i].get<double>(), banded["v"][i].get<double>() + 0.5);
    }
    EXPECT_TRUE(banded["band"]["inside"].is_number());
    EXPECT_TRUE(run["channels"][1]["refs"][0]["band"].is_null());  // no band on y
  }
}

// The bands' envelopes and scores are bounded before any work, and a limit they break names them.
TEST(ValidationBandsTest, TheJobsSizeCountsTheBands) {
  const std::vector<RunShape> sim = {{.id = "s", .samples = 1000000, .channels = 2},
                                     {.id = "t", .samples = 1000000, .channels = 2}};
  const std::vector<RunShape> ref = sim;
  ValidationOptions options;
  const ValidationLimits limits{.threads = 4};
  absl::StatusOr<ValidationSize> without = EstimateValidationSize(sim, ref, options, limits);
  options.bands = {{.channel = "x", .abs = 1.0}};
  absl::StatusOr<ValidationSize> with = EstimateValidationSize(sim, ref, options, limits);
  ASSERT_TRUE(without.ok()) << without.status();
  ASSERT_TRUE(with.ok()) << with.status();
  // Each of 4 threads holds a band's envelope over a million samples.
  EXPECT_GE(with->bytes - without->bytes, 4u * 1000000u * 2u * sizeof(double));
  const absl::Status refused = CheckValidationSize(
      sim, ref, options,
      {.bytes = {.value = with->bytes - 1, .name = "--max-bytes"}, .threads = 4});
  EXPECT_EQ(refused.code(), absl::StatusCode::kResourceExhausted) << refused;
}

TEST(ValidationBandsTest, BadBandOptionsAreRefusedNamingTheField) {
  const std::vector<Series> sim = Steps("s", {0.0});
  const std::vector<Series> ref = Steps("r", {0.0});
  ValidationOptions options = BandOptions(std::nullopt);
  options.bands.push_back({.channel = "z", .abs = 1.0});
  ExpectInvalid(Validate(sim, ref, options).status(), "bands",
                "band of channel \"z\": the runs compared have no such channel (they have x, y)");

  options = BandOptions(std::nullopt);
  options.bands[0].abs = -1.0;
  ExpectInvalid(ValidateValidationOptions(options, 1, 1), "bands", "abs must be");

  options = BandOptions(1.5);
  ExpectInvalid(ValidateValidationOptions(options, 1, 1), "band_min_inside",
                "must be a share between 0 and 1, got 1.5");

  options = BandOptions(0.5);
  options.bands.clear();
  ExpectInvalid(ValidateValidationOptions(options, 1, 1), "band_min_inside",
                "give at least one band");
}

}  // namespace
}  // namespace wasserwarp
