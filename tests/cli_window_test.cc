// Runs the real `wasserwarp validate` with an event window (issue 43): the flags reach the
// report, untriggered runs are refused or left out with a note, and bad values are refused
// naming the flag.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "process_runner.h"
#include "scratch_dir.h"

namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::StartsWith;
using ::wasserwarp::test_support::ProgramResult;
using ::wasserwarp::test_support::ScratchDir;
using ::wasserwarp::test_support::WriteFile;

// A run of channel y: 0 for `lead_in` seconds, then a rise of `slope` per second, sampled at
// 20 Hz for 10 s.
std::string RunCsv(double lead_in, double slope) {
  std::string csv = "time,y\n";
  for (int k = 0; k <= 200; ++k) {
    const double t = k / 20.0;
    absl::StrAppend(&csv, t, ",", std::max(0.0, slope * (t - lead_in)), "\n");
  }
  return csv;
}

class CliWindowTest : public testing::Test {
 protected:
  void SetUp() override {
    ASSERT_FALSE(dir_.root().empty());
    std::filesystem::create_directories(dir_.Path("sim"));
    std::filesystem::create_directories(dir_.Path("ref"));
    WriteFile(dir_.Path("sim/sim_0.csv"), RunCsv(1.0, 1.0));
    WriteFile(dir_.Path("sim/sim_1.csv"), RunCsv(3.0, 1.1));
    WriteFile(dir_.Path("sim/sim_flat.csv"), RunCsv(20.0, 1.0));
    WriteFile(dir_.Path("ref/ref_0.csv"), RunCsv(2.0, 0.9));
    WriteFile(dir_.Path("ref/ref_1.csv"), RunCsv(4.5, 1.0));
  }

  ProgramResult Validate(const std::vector<std::string>& extra) {
    std::vector<std::string> args = {"validate", "--sim", dir_.Path("sim"), "--ref",
                                     dir_.Path("ref")};
    args.insert(args.end(), extra.begin(), extra.end());
    return wasserwarp::test_support::RunProgram(WASSERWARP_CLI, args, dir_.root());
  }

  static void ExpectBadInput(const ProgramResult& result, const std::string& message) {
    EXPECT_EQ(result.exit_code, 2) << result.err;
    EXPECT_THAT(result.err, AllOf(StartsWith("wasserwarp: "), HasSubstr(message)));
  }

  ScratchDir dir_{"cli_window_test_"};
};

TEST_F(CliWindowTest, WindowsLeaveUntriggeredRunsOutWithANote) {
  const ProgramResult refused =
      Validate({"--window", "y>0.5", "--window-before", "0.5", "--window-after", "3"});
  ExpectBadInput(refused,
                 "--skip-untriggered: unset, and simulation run \"sim_flat\" has no trigger");

  const ProgramResult result =
      Validate({"--window", "y>0.5", "--window-before", "0.5", "--window-after", "3",
                "--skip-untriggered", "--json", dir_.Path("report.json")});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_THAT(result.out, HasSubstr("note: simulation run \"sim_flat\" left out"));
  const nlohmann::json report =
      nlohmann::json::parse(wasserwarp::test_support::ReadFile(dir_.Path("report.json")));
  EXPECT_EQ(report["params"]["window"]["condition"], "y>0.5");
  EXPECT_EQ(report["params"]["window"]["untriggered"][0]["id"], "sim_flat");
  ASSERT_EQ(report["simulation"].size(), 2u);
  // sim_0 rises from t = 1 at 1 per second: it crosses 0.5 at t = 1.5.
  EXPECT_NEAR(report["simulation"][0]["trigger_time"].get<double>(), 1.5, 1e-12);
}

TEST_F(CliWindowTest, BadValuesAreRefusedNamingTheFlag) {
  ExpectBadInput(Validate({"--window", "y"}), "--window: \"y\" is not CHANNEL>LEVEL");
  ExpectBadInput(Validate({"--window-after", "2"}), "--window-after: needs --window");
  ExpectBadInput(Validate({"--window", "y>1", "--window-after", "-1"}),
                 "--window-after: must be a number of seconds");
  ExpectBadInput(Validate({"--window", "y>1"}), "--window-after: the window is empty");
  ExpectBadInput(Validate({"--window", "y>1", "--window-after", "1", "--window-hysteresis", "-2"}),
                 "--window-hysteresis: must be a finite number >= 0");
  ExpectBadInput(Validate({"--window", "z>1", "--window-after", "1"}),
                 "--window: simulation run \"sim_0\" has no channel \"z\"");
}

}  // namespace
