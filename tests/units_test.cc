// Units of channels (wasserwarp/units.h) as run files carry them and PrepareRuns converts them,
// and the channel map that pairs differently named channels.

#include "wasserwarp/units.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "mdf4_writer.h"
#include "random_runs.h"
#include "scratch_dir.h"
#include "wasserwarp/csv.h"
#include "wasserwarp/field_error.h"
#include "wasserwarp/mdf4.h"
#include "wasserwarp/prepare.h"
#include "wasserwarp/validation.h"

namespace wasserwarp {
namespace {

using test_data::RandomWalkRuns;
using test_support::LeDouble;
using test_support::Mdf4ChannelSpec;
using test_support::Mdf4Writer;
using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

double Converted(const std::string& from, const std::string& to, double value) {
  absl::StatusOr<UnitConverter> converter = UnitConverter::Between(from, to);
  EXPECT_TRUE(converter.ok()) << converter.status();
  return converter.ok() ? (*converter)(value) : NAN;
}

TEST(UnitsTest, UdunitsSpellingsAreRead) {
  for (const char* spelling :
       {"m/s", "m s-1", "m.s-1",   "m s^-1", "km/h", "deg/s", "degree/s", "rad/s",
        "1/s", "s-1",   "degC",    "K",      "N.m",  "N m",   "m/s2",     "g",
        "bar", "rpm",   "percent", "%",      "1",    "mV",    "kPa",      "°/s"}) {
    EXPECT_TRUE(CheckUnit(spelling).ok()) << spelling << ": " << CheckUnit(spelling);
  }
  for (const char* spelling : {"", " ", "parsecs per banana", "m//s", "Yaw_Rate", "-"}) {
    EXPECT_EQ(CheckUnit(spelling).code(), absl::StatusCode::kInvalidArgument) << spelling;
  }
  EXPECT_DOUBLE_EQ(Converted("km/h", "m/s", 36.0), 10.0);
  EXPECT_DOUBLE_EQ(Converted("deg/s", "rad/s", 180.0), std::numbers::pi);
  EXPECT_DOUBLE_EQ(Converted("°/s", "deg/s", 3.0), 3.0);
  EXPECT_DOUBLE_EQ(Converted("degC", "K", 0.0), 273.15);
  EXPECT_DOUBLE_EQ(Converted("rpm", "rad/s", 60.0), 2 * std::numbers::pi);
  absl::StatusOr<UnitConverter> apart = UnitConverter::Between("deg/s", "m/s");
  EXPECT_THAT(apart.status().message(), HasSubstr("\"deg/s\" cannot be converted to \"m/s\""));
}

// Runs on one channel "yaw" with `unit` on every run.
std::vector<Series> WithUnit(std::vector<Series> runs, const std::string& unit) {
  for (Series& run : runs) {
    run.channels = {"yaw"};
    run.units = {unit};
  }
  return runs;
}

std::vector<Series> Scaled(std::vector<Series> runs, double factor) {
  for (Series& run : runs) {
    for (double& x : run.values) x *= factor;
  }
  return runs;
}

TEST(UnitsTest, DegreesPerSecondAgainstRadiansGiveTheWOfBothInRadians) {
  const std::vector<Series> sim_rad = WithUnit(RandomWalkRuns("sim", 4, 20, 40, 1, 31), "rad/s");
  const std::vector<Series> ref = WithUnit(RandomWalkRuns("ref", 5, 20, 40, 1, 32), "rad/s");
  const std::vector<Series> sim_deg = WithUnit(Scaled(sim_rad, 180.0 / std::numbers::pi), "deg/s");
  ValidationOptions options;
  absl::StatusOr<ValidationReport> in_radians = Validate(sim_rad, ref, options);
  absl::StatusOr<ValidationReport> in_degrees = Validate(sim_deg, ref, options);
  ASSERT_TRUE(in_radians.ok()) << in_radians.status();
  ASSERT_TRUE(in_degrees.ok()) << in_degrees.status();
  EXPECT_NEAR(in_degrees->distance, in_radians->distance, 1e-12 * in_radians->distance);
  EXPECT_THAT(in_degrees->channel_units, ElementsAre("rad/s"));
  EXPECT_TRUE(in_degrees->unit_warnings.empty());
  // Not converting would be the factor of 57 the units are there to prevent.
  std::vector<Series> unitless = sim_deg;
  for (Series& run : unitless) run.units.clear();
  absl::StatusOr<ValidationReport> unconverted = Validate(unitless, ref, options);
  ASSERT_TRUE(unconverted.ok()) << unconverted.status();
  EXPECT_GT(unconverted->distance, 10 * in_radians->distance);
}

TEST(UnitsTest, UnconvertibleUnitsAreRefusedNamingRunsChannelsAndUnits) {
  std::vector<Series> sim = WithUnit(RandomWalkRuns("sim", 2, 10, 10, 1, 33), "deg/s");
  std::vector<Series> ref = WithUnit(RandomWalkRuns("ref", 2, 10, 10, 1, 34), "m/s");
  for (Series& run : sim) run.channels = {"yawRate"};
  for (Series& run : ref) run.channels = {"v"};
  PrepareOptions options{.channel_map = {{.simulation = "yawRate", .reference = "v"}}};
  absl::StatusOr<PreparedRuns> prepared = PrepareRuns(sim, ref, options);
  EXPECT_EQ(prepared.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(prepared.status().message(),
              AllOf(HasSubstr("simulation run \"sim0\" channel \"yawRate\" in \"deg/s\""),
                    HasSubstr("reference run \"ref0\" channel \"v\" in \"m/s\""),
                    HasSubstr("cannot be converted")));
}

TEST(UnitsTest, AMappingsUnitConvertsBothSides) {
  std::vector<Series> sim = WithUnit(RandomWalkRuns("sim", 1, 10, 10, 1, 35), "km/h");
  std::vector<Series> ref = WithUnit(RandomWalkRuns("ref", 1, 10, 10, 1, 36), "mm/s");
  PrepareOptions options{.channel_map = {{.simulation = "yaw", .reference = "yaw", .unit = "m/s"}}};
  absl::StatusOr<PreparedRuns> prepared = PrepareRuns(sim, ref, options);
  ASSERT_TRUE(prepared.ok()) << prepared.status();
  EXPECT_THAT(prepared->units, ElementsAre("m/s"));
  EXPECT_DOUBLE_EQ(prepared->simulation[0].value(3, 0), sim[0].value(3, 0) / 3.6);
  EXPECT_DOUBLE_EQ(prepared->reference[0].value(3, 0), ref[0].value(3, 0) / 1000);
}

TEST(UnitsTest, AUnitOnOneSideOnlyIsAWarningOrWithStrictUnitsAnError) {
  std::vector<Series> sim = RandomWalkRuns("sim", 2, 10, 10, 1, 37);
  std::vector<Series> ref = WithUnit(RandomWalkRuns("ref", 2, 10, 10, 1, 38), "deg/s");
  for (Series& run : sim) run.channels = {"yaw"};
  absl::StatusOr<PreparedRuns> lenient = PrepareRuns(sim, ref, {});
  ASSERT_TRUE(lenient.ok()) << lenient.status();
  ASSERT_EQ(lenient->unit_notes.size(), 1u);  // once per side, not once per run
  EXPECT_THAT(lenient->unit_notes[0],
              AllOf(HasSubstr("simulation run \"sim0\" channel \"yaw\" without a unit"),
                    HasSubstr("reference run \"ref0\" channel \"yaw\" in \"deg/s\""),
                    HasSubstr("compared without conversion")));
  EXPECT_EQ(lenient->simulation[0].values, sim[0].values);

  absl::StatusOr<PreparedRuns> strict = PrepareRuns(sim, ref, {.strict_units = true});
  EXPECT_EQ(strict.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(ErrorField(strict.status()), "strict_units");
}

// Two channels each: the mapped pair and one of the same name on both sides.
std::vector<Series> Named(std::vector<Series> runs, std::vector<std::string> channels) {
  for (Series& run : runs) run.channels = channels;
  return runs;
}

TEST(UnitsTest, AMappedPairGivesWhatRenamingTheChannelsGivesBitForBit) {
  const std::vector<Series> sim = Named(RandomWalkRuns("sim", 4, 20, 40, 2, 39), {"yawRate", "ay"});
  const std::vector<Series> ref =
      Named(RandomWalkRuns("ref", 5, 20, 40, 2, 40), {"ay", "Yaw_Rate_Sensor"});
  ValidationOptions mapped;
  mapped.prepare.channel_map = {{.simulation = "yawRate", .reference = "Yaw_Rate_Sensor"}};
  absl::StatusOr<ValidationReport> by_map = Validate(sim, ref, mapped);
  ASSERT_TRUE(by_map.ok()) << by_map.status();
  absl::StatusOr<ValidationReport> renamed =
      Validate(Named(sim, {"Yaw_Rate_Sensor", "ay"}), ref, ValidationOptions{});
  ASSERT_TRUE(renamed.ok()) << renamed.status();
  EXPECT_EQ(by_map->distance, renamed->distance);
  EXPECT_THAT(by_map->channels, ElementsAre("Yaw_Rate_Sensor", "ay"));
  EXPECT_THAT(by_map->simulation_channels, ElementsAre("yawRate", "ay"));
  ASSERT_EQ(by_map->pairs.size(), renamed->pairs.size());
  for (size_t k = 0; k < by_map->plan.size(); ++k) {
    EXPECT_EQ(by_map->plan[k].row, renamed->plan[k].row);
    EXPECT_EQ(by_map->plan[k].col, renamed->plan[k].col);
    EXPECT_EQ(by_map->plan[k].cost, renamed->plan[k].cost);
    EXPECT_EQ(by_map->plan[k].mass, renamed->plan[k].mass);
  }
  EXPECT_EQ(by_map->sim_contributions, renamed->sim_contributions);
  EXPECT_NE(by_map->request_digest, renamed->request_digest);  // the map is part of the request
}

TEST(UnitsTest, BadChannelMapsAreRefusedNamingTheField) {
  const std::vector<std::vector<ChannelMapping>> bad = {
      {{.simulation = "", .reference = "a"}},
      {{.simulation = "a", .reference = "b"}, {.simulation = "a", .reference = "c"}},
      {{.simulation = "a", .reference = "b"}, {.simulation = "c", .reference = "b"}},
      {{.simulation = "a", .reference = "b", .unit = "parsecs per banana"}},
      std::vector<ChannelMapping>(kMaxChannelMappings + 1)};
  for (const std::vector<ChannelMapping>& channel_map : bad) {
    const absl::Status status = ValidateChannelMap(channel_map);
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
    EXPECT_EQ(ErrorField(status), "channel_map") << status;
  }
  EXPECT_THAT(ValidateChannelMap(bad[1]).message(),
              HasSubstr("mapping 2: channel \"a\" is mapped twice (a=b and a=c)"));
}

TEST(UnitsTest, CsvHeadersCarryUnitsAndWriteThemBack) {
  absl::StatusOr<Series> run =
      ParseSeriesCsv("time,yaw_rate[deg/s],ay [m/s2],gear\n0,1,2,3\n1,4,5,6\n", "a.csv", "a");
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_THAT(run->channels, ElementsAre("yaw_rate", "ay", "gear"));
  EXPECT_THAT(run->units, ElementsAre("deg/s", "m/s2", ""));
  absl::StatusOr<std::string> text = FormatSeriesCsv(*run);
  ASSERT_TRUE(text.ok()) << text.status();
  EXPECT_EQ(*text, "time,yaw_rate[deg/s],ay[m/s2],gear\n0,1,2,3\n1,4,5,6\n");

  absl::StatusOr<Series> plain = ParseSeriesCsv("time,x\n0,1\n", "b.csv", "b");
  ASSERT_TRUE(plain.ok()) << plain.status();
  EXPECT_TRUE(plain->units.empty());

  absl::StatusOr<Series> misspelt = ParseSeriesCsv("time,x,y[m/banana]\n0,1,2\n", "c.csv", "c");
  EXPECT_THAT(misspelt.status().message(),
              AllOf(HasSubstr("c.csv:1:3: channel \"y\""), HasSubstr("\"m/banana\"")));
  absl::StatusOr<Series> empty = ParseSeriesCsv("time,x[]\n0,1\n", "d.csv", "d");
  EXPECT_THAT(empty.status().message(), HasSubstr("d.csv:1:2: channel \"x\": an empty unit"));
}

TEST(UnitsTest, Mdf4ChannelUnitsAreRead) {
  Mdf4Writer w;
  const std::vector<Mdf4ChannelSpec> channels = {
      {.name = "time", .channel_type = 2, .sync_type = 1, .unit = "s"},
      {.name = "yaw_rate", .byte_offset = 8, .unit = "deg/s"},
      {.name = "count", .byte_offset = 16}};
  std::string data;
  for (int t = 0; t < 3; ++t) data += LeDouble(t) + LeDouble(2.0 * t) + LeDouble(t);
  w.DataGroup(0, {{.name = "g", .cycles = 3, .data_bytes = 24, .channels = channels}}, w.Dt(data));
  absl::StatusOr<Mdf4Run> run = ParseMdf4Run(w.bytes(), "bench.mf4", "bench", {}, {});
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_THAT(run->series.channels, ElementsAre("yaw_rate", "count"));
  EXPECT_THAT(run->series.units, ElementsAre("deg/s", ""));
}

TEST(UnitsTest, ChannelMapFilesAreReadAndBadLinesNamed) {
  const test_support::ScratchDir dir("units_test_");
  const std::string good =
      dir.Write("map.csv",
                "sim_channel,ref_channel,unit\n# from Simulink to INCA\nyawRate,Yaw_Rate,deg/s\n\n"
                "ay,Acc_Y\n");
  absl::StatusOr<std::vector<ChannelMapping>> channel_map = ReadChannelMapCsv(good);
  ASSERT_TRUE(channel_map.ok()) << channel_map.status();
  ASSERT_EQ(channel_map->size(), 2u);
  EXPECT_EQ((*channel_map)[0].unit, "deg/s");
  EXPECT_EQ((*channel_map)[1].reference, "Acc_Y");
  const std::string twice = dir.Write("twice.csv", "a,b\nc,d\na,e\n");
  EXPECT_THAT(ReadChannelMapCsv(twice).status().message(),
              HasSubstr(twice + ":3:1: channel \"a\" is mapped twice"));
  const std::string wide = dir.Write("wide.csv", "a,b,m,x\n");
  EXPECT_THAT(ReadChannelMapCsv(wide).status().message(), HasSubstr(wide + ":1:4: expected"));
}

}  // namespace
}  // namespace wasserwarp
