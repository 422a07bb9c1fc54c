// Event windows (issue 43, part 3): the trigger as the crossing interpolated between the two
// samples that straddle the level, runs recorded with a lead-in giving after windowing the W of
// runs without one, runs that never cross (refused, or left out and listed), hysteresis against
// noise around the level, option values refused with the field named, the window's channel found
// in mapped simulated runs through the channel map, the level in the validated channel's unit,
// and the report page's inputs and the quantities of interest on the runs as the window cut them.

#include "wasserwarp/event_window.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "make_run.h"
#include "nlohmann/json.hpp"
#include "random_runs.h"
#include "wasserwarp/field_error.h"
#include "wasserwarp/html_report.h"
#include "wasserwarp/prepare.h"
#include "wasserwarp/report_json.h"
#include "wasserwarp/validation.h"

namespace wasserwarp {
namespace {

using test_data::MakeRun;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

EventWindow Window(const std::string& condition, double before, double after,
                   double hysteresis = 0.0) {
  EventWindow window;
  EXPECT_TRUE(ParseWindowCondition(condition, window).ok()) << condition;
  window.before = before;
  window.after = after;
  window.hysteresis = hysteresis;
  return window;
}

TEST(EventWindowTest, ConditionsParseAndPrintBack) {
  EventWindow window;
  ASSERT_TRUE(ParseWindowCondition("yaw_rate>0.25", window).ok());
  EXPECT_EQ(window.channel, "yaw_rate");
  EXPECT_EQ(window.crossing, Crossing::kRising);
  EXPECT_EQ(window.level, 0.25);
  EXPECT_EQ(WindowConditionText(window), "yaw_rate>0.25");
  ASSERT_TRUE(ParseWindowCondition("steer<-1e-3", window).ok());
  EXPECT_EQ(window.crossing, Crossing::kFalling);
  EXPECT_EQ(WindowConditionText(window), "steer<-0.001");
  for (const char* bad : {"steer", ">1", "steer>", "steer>abc", "steer>inf", "steer<nan"}) {
    const absl::Status status = ParseWindowCondition(bad, window);
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << bad;
    EXPECT_EQ(ErrorField(status), "window") << bad;
  }
}

TEST(EventWindowTest, BadValuesAreRefusedNamingTheirField) {
  const auto field_of = [](EventWindow window) { return ErrorField(ValidateEventWindow(window)); };
  const EventWindow good = Window("a>1", 1, 2);
  EXPECT_TRUE(ValidateEventWindow(good).ok());
  EXPECT_TRUE(ValidateEventWindow(std::nullopt).ok());
  const double infinity = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (double bad : {-1.0, nan, infinity, 2 * kMaxWindowSeconds}) {
    EventWindow window = good;
    window.before = bad;
    EXPECT_EQ(field_of(window), "window_before") << bad;
    window = good;
    window.after = bad;
    EXPECT_EQ(field_of(window), "window_after") << bad;
    window = good;
    window.hysteresis = bad;
    if (bad != 2 * kMaxWindowSeconds) EXPECT_EQ(field_of(window), "window_hysteresis") << bad;
  }
  EventWindow empty = good;
  empty.before = 0;
  empty.after = 0;
  EXPECT_EQ(field_of(empty), "window_after");
  EventWindow nameless = good;
  nameless.channel.clear();
  EXPECT_EQ(field_of(nameless), "window");
  // The validation's check is this one, before any run is read.
  ValidationOptions options;
  options.prepare.window = empty;
  EXPECT_EQ(ErrorField(ValidateValidationOptions(options, 1, 1)), "window_after");
}

TEST(EventWindowTest, TheTriggerIsInterpolatedBetweenTheStraddlingSamples) {
  // A ramp of slope 2 from t = 10: it crosses 3 at t = 11.5, between the samples at 11 and 12.
  std::vector<double> times;
  std::vector<double> values;
  for (int k = 0; k <= 20; ++k) {
    times.push_back(k);
    values.push_back(std::max(0.0, 2.0 * (k - 10)));
  }
  const Series run = MakeRun("ramp", {"x"}, times, values);
  EXPECT_EQ(FindTrigger(run, 0, Window("x>3", 1, 1)), 11.5);
  EXPECT_EQ(FindTrigger(run, 0, Window("x>100", 1, 1)), std::nullopt);
  // Falling: the ramp read backwards.
  std::reverse(values.begin(), values.end());
  EXPECT_EQ(FindTrigger(MakeRun("down", {"x"}, times, values), 0, Window("x<3", 1, 1)), 8.5);

  // Cut to [-2, 3] around 11.5: interpolated ends at exactly -2 and 3, samples between.
  absl::StatusOr<WindowedRuns> windowed = WindowRuns({run}, "simulation", Window("x>3", 2, 3));
  ASSERT_TRUE(windowed.ok()) << windowed.status();
  ASSERT_EQ(windowed->runs.size(), 1u);
  EXPECT_THAT(windowed->triggers, ElementsAre(11.5));
  EXPECT_THAT(windowed->runs[0].times, ElementsAre(-2, -1.5, -0.5, 0.5, 1.5, 2.5, 3));
  EXPECT_THAT(windowed->runs[0].values, ElementsAre(0, 0, 2, 4, 6, 8, 9));
}

// The manoeuvre every run records: at rest, then a half-cosine rise of `amplitude` over kRise
// seconds from s = 0, then held.
constexpr double kRise = 4.0;
double Manoeuvre(double amplitude, double s) {
  if (s <= 0) return 0.0;
  if (s >= kRise) return amplitude;
  return amplitude * (1 - std::cos(std::numbers::pi * s / kRise)) / 2;
}

// Sampled every `h` seconds from `start`, the manoeuvre beginning `lead_in` seconds after it.
Series Recorded(const std::string& id, double amplitude, double start, double lead_in, double h,
                double duration) {
  Series run;
  run.id = id;
  run.channels = {"y"};
  for (double k = 0; k * h <= duration; ++k) {
    const double t = start + k * h;
    run.times.push_back(t);
    run.values.push_back(Manoeuvre(amplitude, t - start - lead_in));
  }
  return run;
}

TEST(EventWindowTest, ARandomLeadInGivesTheDistanceOfRunsWithoutOne) {
  constexpr double kH = 0.01;
  constexpr double kLevel = 0.5;
  constexpr double kMinAmplitude = 1.5;
  constexpr double kMaxAmplitude = 2.5;
  constexpr double kBefore = 1.0;
  constexpr double kAfter = 4.0;
  std::mt19937_64 rng(43);
  std::uniform_real_distribution<double> amplitude(kMinAmplitude, kMaxAmplitude);
  std::uniform_real_distribution<double> lead_in(1.0, 5.0);
  std::uniform_real_distribution<double> start(-100.0, 100.0);
  std::vector<Series> without;
  std::vector<Series> with;
  std::vector<Series> reference;
  for (int k = 0; k < 6; ++k) {
    const double a = amplitude(rng);
    without.push_back(Recorded(absl::StrCat("sim", k), a, 0.0, 0.0, kH, 8.0));
    with.push_back(Recorded(absl::StrCat("sim", k), a, start(rng), lead_in(rng), kH, 14.0));
    reference.push_back(Recorded(absl::StrCat("ref", k), amplitude(rng), 0.0, 0.0, kH, 8.0));
  }
  ValidationOptions options;
  options.twed = test_data::MakeTwedParams(0.5, 0.2, 1.0);
  options.prepare.window = Window(absl::StrCat("y>", kLevel), kBefore, kAfter);
  options.prepare.resample_rate = 1 / kH;
  absl::StatusOr<ValidationReport> plain = Validate(without, reference, options);
  ASSERT_TRUE(plain.ok()) << plain.status();
  absl::StatusOr<ValidationReport> lead = Validate(with, reference, options);
  ASSERT_TRUE(lead.ok()) << lead.status();

  // The bound. Each windowed, resampled value estimates f(s_c + tau), s_c the exact crossing,
  // with two linear interpolations of samples h apart: the trigger's, off by at most
  // delta = (M2 h^2 / 8) / m1, and the resampling's, off by at most M2 h^2 / 8 + M1 delta, where
  // M1 and M2 bound |f'| and |f''| and m1 is the least |f'| between the samples that straddle
  // the level. A run with and without lead-in thus differ by at most 2 eps per value, and their
  // TWED (a metric) along the diagonal of their common grid of N samples by at most 2 N (2 eps);
  // W_1 with uniform weights moves by at most the largest such TWED.
  const double pi = std::numbers::pi;
  const double m2 = kMaxAmplitude * pi * pi / (2 * kRise * kRise);
  const double m1_bound = kMaxAmplitude * pi / (2 * kRise);
  const double crossing = kRise / pi * std::acos(1 - 2 * kLevel / kMinAmplitude);
  const double slope_min =
      kMinAmplitude * pi / (2 * kRise) * std::sin(pi * crossing / kRise) - m2 * kH;
  const double delta = m2 * kH * kH / 8 / slope_min;
  const double eps = m2 * kH * kH / 8 + m1_bound * delta;
  const double samples = (kBefore + kAfter) / kH + 1;
  const double bound = 2 * samples * 2 * eps;
  EXPECT_NEAR(lead->distance, plain->distance, bound);
  RecordProperty("w", absl::StrCat(plain->distance));
  RecordProperty("w_difference", absl::StrCat(std::abs(lead->distance - plain->distance)));
  RecordProperty("bound", absl::StrCat(bound));
  EXPECT_LT(bound, 1e-2 * plain->distance);  // the bound says something

  // Each run's trigger, in its own time axis.
  for (size_t k = 0; k < with.size(); ++k) {
    ASSERT_TRUE(lead->simulation[k].trigger_time.has_value());
    ASSERT_TRUE(plain->simulation[k].trigger_time.has_value());
    EXPECT_GT(*lead->simulation[k].trigger_time, with[k].times.front() + 1.0);
  }
  const nlohmann::json json = nlohmann::json::parse(ReportToJson(*lead));
  EXPECT_EQ(json["params"]["window"]["condition"], "y>0.5");
  EXPECT_EQ(json["params"]["window"]["before"], kBefore);
  EXPECT_EQ(json["simulation"][0]["trigger_time"], *lead->simulation[0].trigger_time);
  EXPECT_TRUE(nlohmann::json::parse(ReportToJson(*plain))["reference"][0].contains("trigger_time"));
}

TEST(EventWindowTest, UntriggeredRunsAreRefusedOrLeftOutAndListed) {
  std::vector<Series> simulation;
  for (int k = 0; k < 3; ++k) {
    simulation.push_back(Recorded(absl::StrCat("sim", k), 2.0 + 0.1 * k, 0.0, 1.0, 0.05, 8.0));
  }
  const Series flat = Recorded("flat", 0.2, 0.0, 1.0, 0.05, 8.0);
  std::vector<Series> with_flat = simulation;
  with_flat.insert(with_flat.begin() + 1, flat);
  std::vector<Series> reference = {Recorded("ref0", 2.2, 0.0, 0.5, 0.05, 8.0),
                                   Recorded("ref1", 1.9, 0.0, 2.0, 0.05, 8.0), flat};
  ValidationOptions options;
  options.prepare.window = Window("y>1", 0.5, 3);

  absl::StatusOr<ValidationReport> refused = Validate(with_flat, reference, options);
  ASSERT_EQ(refused.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(ErrorField(refused.status()), "skip_untriggered");
  EXPECT_THAT(refused.status().message(),
              HasSubstr("simulation run \"flat\" has no trigger: its channel \"y\" never crosses "
                        "y>1"));

  options.prepare.window->skip_untriggered = true;
  options.simulation_weights = {1, 5, 2, 3};  // flat's weight goes with it
  absl::StatusOr<ValidationReport> skipped = Validate(with_flat, reference, options);
  ASSERT_TRUE(skipped.ok()) << skipped.status();
  ASSERT_EQ(skipped->untriggered.size(), 2u);
  EXPECT_EQ(skipped->untriggered[0].side, "simulation");
  EXPECT_EQ(skipped->untriggered[0].id, "flat");
  EXPECT_EQ(skipped->untriggered[0].index, 1u);
  EXPECT_EQ(skipped->untriggered[1].side, "reference");
  EXPECT_EQ(skipped->simulation.size(), 3u);
  EXPECT_EQ(skipped->reference.size(), 2u);
  EXPECT_THAT(UntriggeredNote(skipped->untriggered[0], *options.prepare.window),
              HasSubstr("simulation run \"flat\" left out of the validation"));
  // The same as validating the triggered runs alone, with their weights.
  options.simulation_weights = {1, 2, 3};
  absl::StatusOr<ValidationReport> alone =
      Validate(simulation, {reference[0], reference[1]}, options);
  ASSERT_TRUE(alone.ok()) << alone.status();
  EXPECT_EQ(skipped->distance, alone->distance);
  const nlohmann::json json = nlohmann::json::parse(ReportToJson(*skipped));
  EXPECT_EQ(json["params"]["window"]["untriggered"][0]["id"], "flat");
  EXPECT_EQ(json["params"]["window"]["untriggered"][1]["side"], "reference");

  // Nothing left on one side is an error of its own.
  options.simulation_weights.clear();
  absl::StatusOr<ValidationReport> none = Validate({flat}, reference, options);
  ASSERT_FALSE(none.ok());
  EXPECT_THAT(none.status().message(), HasSubstr("no simulation run has its channel \"y\" cross"));
}

TEST(EventWindowTest, HysteresisKeepsNoiseAroundTheLevelFromTriggeringEarly) {
  // At rest at the level with noise of +-0.1 around it for 5 s, then a rise of 1 per second
  // from 0.1 below the level at t = 5, which crosses it at t = 5.1.
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> noise(-0.1, 0.1);
  constexpr double kLevel = 0.3;
  std::vector<double> times;
  std::vector<double> values;
  for (int k = 0; k <= 1000; ++k) {
    const double t = k / 100.0;
    times.push_back(t);
    values.push_back(k < 500 ? kLevel + noise(rng) : kLevel - 0.1 + (t - 5) * 1.0);
  }
  const Series run = MakeRun("noisy", {"y"}, times, values);
  const std::optional<double> early = FindTrigger(run, 0, Window("y>0.3", 0, 1));
  ASSERT_TRUE(early.has_value());
  EXPECT_LT(*early, 1.0);  // the noise crosses at once
  // Noise never reaches 0.1 above the level; the rise does, and its crossing is the trigger.
  const std::optional<double> trigger = FindTrigger(run, 0, Window("y>0.3", 0, 1, 0.15));
  ASSERT_TRUE(trigger.has_value());
  EXPECT_NEAR(*trigger, 5.1, 1e-9);
  // A hysteresis the rise does not reach leaves the run untriggered.
  EXPECT_EQ(FindTrigger(run, 0, Window("y>0.3", 0, 1, 10)), std::nullopt);
}

TEST(EventWindowTest, TheWindowNamesTheValidatedChannelWhichMappedRunsCarryUnderTheirOwnName) {
  // The simulated runs call the channel "y_sim", the references "y": --map y_sim=y.
  std::vector<Series> renamed;
  std::vector<Series> simulation;
  for (int k = 0; k < 3; ++k) {
    Series run = Recorded(absl::StrCat("sim", k), 2.0 + 0.1 * k, 0.0, 1.0 + 0.5 * k, 0.05, 8.0);
    renamed.push_back(run);
    run.channels = {"y_sim"};
    simulation.push_back(std::move(run));
  }
  const std::vector<Series> reference = {Recorded("ref0", 2.2, 0.0, 0.5, 0.05, 8.0),
                                         Recorded("ref1", 1.9, 0.0, 2.0, 0.05, 8.0)};
  ValidationOptions options;
  options.prepare.window = Window("y>0.5", 1, 3);
  absl::StatusOr<ValidationReport> expected = Validate(renamed, reference, options);
  ASSERT_TRUE(expected.ok()) << expected.status();
  options.prepare.channel_map = {{.simulation = "y_sim", .reference = "y"}};
  absl::StatusOr<ValidationReport> mapped = Validate(simulation, reference, options);
  ASSERT_TRUE(mapped.ok()) << mapped.status();
  EXPECT_EQ(mapped->distance, expected->distance);
  ASSERT_EQ(mapped->simulation.size(), 3u);
  for (size_t k = 0; k < 3; ++k) {
    ASSERT_TRUE(mapped->simulation[k].trigger_time.has_value());
    EXPECT_EQ(mapped->simulation[k].trigger_time, expected->simulation[k].trigger_time);
  }

  // The simulated runs' own name of a mapped channel names no reference channel: refused.
  options.prepare.window = Window("y_sim>0.5", 1, 3);
  absl::StatusOr<ValidationReport> own_name = Validate(simulation, reference, options);
  ASSERT_EQ(own_name.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(ErrorField(own_name.status()), "window");
  EXPECT_THAT(own_name.status().message(),
              HasSubstr("names \"y_sim\", the simulated runs' name of the mapped channel \"y\""));

  // A simulated run without the mapped channel is named with both names.
  options.prepare.window = Window("y>0.5", 1, 3);
  simulation[1].channels = {"other"};
  absl::StatusOr<ValidationReport> missing = Validate(simulation, reference, options);
  ASSERT_EQ(missing.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(ErrorField(missing.status()), "window");
  EXPECT_THAT(missing.status().message(),
              HasSubstr("simulation run \"sim1\" has no channel \"y_sim\" (the window's channel "
                        "\"y\" through the channel map)"));
}

TEST(EventWindowTest, TheLevelIsInTheValidatedUnitAndEachRunTriggersInItsOwn) {
  // The references in deg/s, the simulated runs in rad/s: the level 0.5 is in deg/s, the
  // channel's validated unit, so the simulated runs trigger where the same runs recorded in deg/s
  // do. Converting rad/s to deg/s rounds, so triggers agree to 1e-9 s and W to 1e-9 relative.
  std::vector<Series> in_degrees;
  std::vector<Series> in_radians;
  for (int k = 0; k < 3; ++k) {
    Series run = Recorded(absl::StrCat("sim", k), 2.0 + 0.1 * k, 0.0, 1.0 + 0.5 * k, 0.05, 8.0);
    run.units = {"deg/s"};
    in_degrees.push_back(run);
    for (double& value : run.values) value *= std::numbers::pi / 180.0;
    run.units = {"rad/s"};
    in_radians.push_back(std::move(run));
  }
  std::vector<Series> reference = {Recorded("ref0", 2.2, 0.0, 0.5, 0.05, 8.0),
                                   Recorded("ref1", 1.9, 0.0, 2.0, 0.05, 8.0)};
  for (Series& run : reference) run.units = {"deg/s"};
  ValidationOptions options;
  options.prepare.window = Window("y>0.5", 1, 3, 0.1);
  absl::StatusOr<ValidationReport> expected = Validate(in_degrees, reference, options);
  ASSERT_TRUE(expected.ok()) << expected.status();
  absl::StatusOr<ValidationReport> converted = Validate(in_radians, reference, options);
  ASSERT_TRUE(converted.ok()) << converted.status();
  EXPECT_NEAR(converted->distance, expected->distance, 1e-9 * expected->distance);
  ASSERT_EQ(converted->simulation.size(), 3u);
  for (size_t k = 0; k < 3; ++k) {
    ASSERT_TRUE(converted->simulation[k].trigger_time.has_value());
    EXPECT_NEAR(*converted->simulation[k].trigger_time, *expected->simulation[k].trigger_time,
                1e-9);
  }

  // A run whose channel's unit measures something else cannot take the level: refused naming it.
  in_radians[2].units = {"m"};
  absl::StatusOr<ValidationReport> refused = Validate(in_radians, reference, options);
  ASSERT_EQ(refused.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(ErrorField(refused.status()), "window");
  EXPECT_THAT(refused.status().message(),
              HasSubstr("simulation run \"sim2\" channel \"y\": in \"m\" cannot take the "
                        "window's level in \"deg/s\""));
}

// A ramp sampled every second over [0, 20] s, rising by 2 a second from `rise`: it crosses 3 at
// rise + 1.5 s.
Series Ramp(const std::string& id, double rise) {
  std::vector<double> times;
  std::vector<double> values;
  for (int k = 0; k <= 20; ++k) {
    times.push_back(k);
    values.push_back(std::max(0.0, 2.0 * (k - rise)));
  }
  return MakeRun(id, {"x"}, times, values);
}

// The inputs section of `page` up to the end of its first table, the runs' table.
std::string InputsTable(const std::string& page) {
  const size_t begin = page.find("<section id=\"inputs\">");
  if (begin == std::string::npos) return "";
  return page.substr(begin, page.find("</table>", begin) - begin);
}

TEST(EventWindowTest, TheReportPageGivesTheWindowedRunsDurationsAndTriggers) {
  // Triggers at 11.5 and 13.5 s (simulated), 5.5 and 7.5 s (references); windows of 2 + 3 s.
  const std::vector<Series> simulation = {Ramp("sim0", 10), Ramp("sim1", 12)};
  const std::vector<Series> reference = {Ramp("ref0", 4), Ramp("ref1", 6)};
  ValidationOptions options;
  options.prepare.window = Window("x>3", 2, 3);
  absl::StatusOr<ValidationReport> report = Validate(simulation, reference, options);
  ASSERT_TRUE(report.ok()) << report.status();
  absl::StatusOr<std::string> page =
      RenderHtmlReport(*report, simulation, reference, HtmlReportOptions{});
  ASSERT_TRUE(page.ok()) << page.status();
  const std::string inputs = InputsTable(*page);
  EXPECT_THAT(
      inputs,
      HasSubstr("<th class=\"num\">Duration in the window</th><th class=\"num\">Trigger</th>"
                "<th>Weights</th>"));
  EXPECT_THAT(inputs, HasSubstr("<tr><th>Simulated</th><td class=\"num\">2</td>"));
  EXPECT_THAT(inputs,
              HasSubstr("<td class=\"num\">5 s</td><td class=\"num\">11.5 \u2013 13.5 s</td>"));
  EXPECT_THAT(inputs,
              HasSubstr("<td class=\"num\">5 s</td><td class=\"num\">5.5 \u2013 7.5 s</td>"));
  EXPECT_THAT(inputs, Not(HasSubstr("20 s")));

  // Without a window: the runs as given, and no trigger column.
  options.prepare.window.reset();
  report = Validate(simulation, reference, options);
  ASSERT_TRUE(report.ok()) << report.status();
  page = RenderHtmlReport(*report, simulation, reference, HtmlReportOptions{});
  ASSERT_TRUE(page.ok()) << page.status();
  EXPECT_THAT(InputsTable(*page), HasSubstr("<th class=\"num\">Duration</th><th>Weights</th>"));
  EXPECT_THAT(InputsTable(*page), HasSubstr("<td class=\"num\">20 s</td><td>uniform</td>"));
}

TEST(EventWindowTest, QuantitiesOfInterestAreOnTheRunsAsTheWindowCutThem) {
  // Each ramp is 9 at 3 s after its trigger, the window's end, and 2 (20 - rise) at 20 s; a run
  // that never rises is left out, with its weight.
  const std::vector<Series> simulation = {Ramp("sim0", 10), Ramp("flat", 30), Ramp("sim1", 12)};
  const std::vector<Series> reference = {Ramp("ref0", 4), Ramp("ref1", 6)};
  ValidationOptions options;
  options.prepare.window = Window("x>3", 2, 3);
  options.prepare.window->skip_untriggered = true;
  options.simulation_weights = {1, 2, 3};
  options.quantities = {{.channel = "x", .kind = QuantityKind::kMax}};
  absl::StatusOr<ValidationReport> report = Validate(simulation, reference, options);
  ASSERT_TRUE(report.ok()) << report.status();
  ASSERT_EQ(report->quantities.size(), 1u);
  const auto nine = testing::DoubleNear(9, 1e-12);
  EXPECT_THAT(report->quantities[0].sim_values, ElementsAre(nine, nine));
  EXPECT_THAT(report->quantities[0].ref_values, ElementsAre(nine, nine));
}

}  // namespace
}  // namespace wasserwarp
