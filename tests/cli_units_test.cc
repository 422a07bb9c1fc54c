// The real `wasserwarp` binary on run files with units and channels named differently in
// simulation and on the bench: --map, --map-file and --strict-units.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "process_runner.h"
#include "scratch_dir.h"

namespace wasserwarp {
namespace {

using test_support::ProgramResult;
using ::testing::AllOf;
using ::testing::HasSubstr;

// The simulation logs yawRate in rad/s, the bench Yaw_Rate_Sensor in deg/s: the same signal.
class CliUnitsTest : public testing::Test {
 protected:
  CliUnitsTest() {
    dir_.Write("sim/s1.csv", "time,yawRate[rad/s],ay\n0,0,0\n1,0.5,1\n2,1,2\n3,0.25,1\n");
    dir_.Write("sim/s2.csv", "time,yawRate[rad/s],ay\n0,0,0\n1,0.4,1\n2,0.9,2\n3,0.3,1\n");
    dir_.Write("ref/r1.csv",
               "time,Yaw_Rate_Sensor[deg/s],ay\n0,0,0\n1,28.6478897565412,1\n2,57.2957795130823,2\n"
               "3,14.3239448782706,1\n");
  }

  ProgramResult Run(std::vector<std::string> args) const {
    args.insert(args.begin(),
                {"validate", "--sim", dir_.Path("sim"), "--ref", dir_.Path("ref"), "--json", "-"});
    return test_support::RunProgram(WASSERWARP_CLI, args, dir_.root());
  }

  const test_support::ScratchDir dir_{"cli_units_test_"};
};

TEST_F(CliUnitsTest, AMappedChannelIsComparedInTheReferencesUnit) {
  const ProgramResult result = Run({"--map", "yawRate=Yaw_Rate_Sensor"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const nlohmann::json report = nlohmann::json::parse(result.out);
  const nlohmann::json& channels = report["params"]["channels"];
  ASSERT_EQ(channels.size(), 2u) << channels;
  EXPECT_EQ(channels[0]["name"], "Yaw_Rate_Sensor");
  EXPECT_EQ(channels[0]["unit"], "deg/s");
  EXPECT_EQ(channels[0]["simulation_channel"], "yawRate");
  EXPECT_TRUE(channels[1]["unit"].is_null());
  EXPECT_TRUE(report["params"]["unit_warnings"].empty());
  // s1 is r1 in other units: the first plan entry pairs them at a TWED of (nearly) nothing.
  EXPECT_LT(report["pairs"][0]["twed"].get<double>(), 1e-9) << report["pairs"];
}

TEST_F(CliUnitsTest, AMapFileGivesWhatTheFlagGives) {
  dir_.Write("map.csv", "sim_channel,ref_channel,unit\nyawRate,Yaw_Rate_Sensor,rad/s\n");
  const ProgramResult by_file = Run({"--map-file", dir_.Path("map.csv")});
  ASSERT_EQ(by_file.exit_code, 0) << by_file.err;
  const nlohmann::json report = nlohmann::json::parse(by_file.out);
  EXPECT_EQ(report["params"]["channels"][0]["unit"], "rad/s");
}

TEST_F(CliUnitsTest, BadMapsAreRefusedNamingFlagFileAndLine) {
  const ProgramResult no_equals = Run({"--map", "yawRate"});
  EXPECT_EQ(no_equals.exit_code, 2);
  EXPECT_THAT(no_equals.err, HasSubstr("--map: expected SIM=REF, got \"yawRate\""));
  const ProgramResult twice = Run({"--map", "yawRate=Yaw_Rate_Sensor,yawRate=ay"});
  EXPECT_EQ(twice.exit_code, 2);
  EXPECT_THAT(twice.err, HasSubstr("--map: channel \"yawRate\" is mapped twice"));
  const std::string map =
      dir_.Write("bad_map.csv", "# bench\nyawRate,Yaw_Rate_Sensor,furlong/s/s/banana\n");
  const ProgramResult bad_unit = Run({"--map-file", map});
  EXPECT_EQ(bad_unit.exit_code, 2);
  EXPECT_THAT(bad_unit.err, AllOf(HasSubstr("--map-file: " + map + ":2:1: the mapping of"),
                                  HasSubstr("furlong/s/s/banana")));
  const ProgramResult missing = Run({"--map-file", dir_.Path("absent.csv")});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_THAT(missing.err, HasSubstr("--map-file: "));
}

TEST_F(CliUnitsTest, UnconvertibleUnitsAndOneSidedUnits) {
  dir_.Write("ref/r1.csv", "time,Yaw_Rate_Sensor[m/s],ay\n0,0,0\n1,1,1\n2,2,2\n3,1,1\n");
  const ProgramResult apart = Run({"--map", "yawRate=Yaw_Rate_Sensor"});
  EXPECT_EQ(apart.exit_code, 2);
  EXPECT_THAT(apart.err, AllOf(HasSubstr("simulation run \"s1\" channel \"yawRate\" in \"rad/s\""),
                               HasSubstr("reference run \"r1\" channel \"Yaw_Rate_Sensor\" in "
                                         "\"m/s\""),
                               HasSubstr("cannot be converted")));

  dir_.Write("ref/r1.csv", "time,Yaw_Rate_Sensor,ay\n0,0,0\n1,1,1\n2,2,2\n3,1,1\n");
  const ProgramResult lenient = Run({"--map", "yawRate=Yaw_Rate_Sensor"});
  ASSERT_EQ(lenient.exit_code, 0) << lenient.err;
  const nlohmann::json report = nlohmann::json::parse(lenient.out);
  ASSERT_EQ(report["params"]["unit_warnings"].size(), 1u);
  EXPECT_THAT(lenient.err, HasSubstr("warning: simulation run \"s1\" channel \"yawRate\" in "));
  const ProgramResult strict = Run({"--map", "yawRate=Yaw_Rate_Sensor", "--strict-units"});
  EXPECT_EQ(strict.exit_code, 2);
  EXPECT_THAT(strict.err, HasSubstr("--strict-units: simulation run \"s1\""));
}

}  // namespace
}  // namespace wasserwarp
