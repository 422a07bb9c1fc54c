// `validate --band` and `--band-min-inside` without a server: the bands in the JSON report,
// the rule in the verdict and the JUnit file, and bad specs refused naming the flag.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "process_runner.h"
#include "scratch_dir.h"

namespace {

using ::testing::HasSubstr;
using ::wasserwarp::test_support::ProgramResult;

class CliBandTest : public testing::Test {
 protected:
  void SetUp() override {
    // x steps from 0 to 1: at 0.5 s in both references and s1, at 0.75 s in s2.
    dir_.Write("sim/s1.csv", "time,x,y\n0,0,1\n0.25,0,1\n0.5,1,1\n0.75,1,1\n1,1,0\n");
    dir_.Write("sim/s2.csv", "time,x,y\n0,0,1\n0.25,0,1\n0.5,0,1\n0.75,1,1\n1,1,0\n");
    dir_.Write("ref/r1.csv", "time,x,y\n0,0,1\n0.25,0,1\n0.5,1,1\n0.75,1,1\n1,1,0\n");
    dir_.Write("ref/r2.csv", "time,x,y\n0,0,1.1\n0.25,0,1\n0.5,1,1\n0.75,1,1\n1,1,0\n");
  }

  ProgramResult Validate(const std::vector<std::string>& extra) const {
    std::vector<std::string> args = {
        "validate", "--sim", dir_.Path("sim"), "--ref", dir_.Path("ref"), "--json", "-"};
    args.insert(args.end(), extra.begin(), extra.end());
    return wasserwarp::test_support::RunProgram(WASSERWARP_CLI, args, dir_.root());
  }

  std::string Read(const std::string& name) const {
    std::ifstream in(dir_.Path(name));
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }

  std::string Path(const std::string& name) const { return dir_.Path(name); }

 private:
  const wasserwarp::test_support::ScratchDir dir_{"cli_band_test_"};
};

TEST_F(CliBandTest, JsonHoldsEveryPairsBandAndTheRuleJudgesTheWorst) {
  // Without lag s2's late step is outside at 0.5 s (by 1 - 0.1); with a lag of 0.25 s the band
  // holds it.
  const ProgramResult strict = Validate({"--band", "x:abs=0.1", "--band-min-inside", "0.9",
                                         "--permutations", "9", "--junit", Path("junit.xml")});
  EXPECT_EQ(strict.exit_code, 1) << strict.err;
  const nlohmann::json report = nlohmann::json::parse(strict.out);
  ASSERT_EQ(report["tolerance_bands"].size(), 1u);
  EXPECT_EQ(
      report["tolerance_bands"][0],
      nlohmann::json({{"channel", "x"}, {"abs", 0.1}, {"rel", 0.0}, {"lead", 0.0}, {"lag", 0.0}}));
  ASSERT_EQ(report["bands"].size(), report["plan"].size());
  bool late_seen = false;
  for (const nlohmann::json& band : report["bands"]) {
    EXPECT_EQ(band["channel"], "x");
    EXPECT_EQ(band["samples"], 5);
    if (band["sim"] == 1) {
      late_seen = true;
      EXPECT_EQ(band["inside"], 0.8);
      EXPECT_DOUBLE_EQ(band["max_excursion"].get<double>(), 0.9);
      EXPECT_EQ(band["first_violation"], 0.5);
    } else {
      EXPECT_EQ(band["inside"], 1.0);
      EXPECT_TRUE(band["first_violation"].is_null());
    }
  }
  EXPECT_TRUE(late_seen);
  const nlohmann::json& rule = report["verdict"]["rules"].back();
  EXPECT_EQ(rule["name"], "band_min_inside");
  EXPECT_EQ(rule["value"], 0.8);
  EXPECT_EQ(rule["pass"], false);
  EXPECT_EQ(report["verdict"]["pass"], false);
  EXPECT_THAT(Read("junit.xml"), HasSubstr("<failure type=\"band_min_inside\""));

  const ProgramResult held =
      Validate({"--band", "x:abs=0.1,lag=0.25", "--band-min-inside", "0.9", "--permutations", "9"});
  EXPECT_EQ(held.exit_code, 0) << held.err;
  const nlohmann::json held_report = nlohmann::json::parse(held.out);
  EXPECT_EQ(held_report["verdict"]["rules"].back()["value"], 1.0);
  EXPECT_EQ(held_report["verdict"]["pass"], true);
}

TEST_F(CliBandTest, TheSummaryNamesEachBandsWorstPair) {
  const std::vector<std::string> args = {"validate",  "--sim",  Path("sim"), "--ref",
                                         Path("ref"), "--band", "x:abs=0.1"};
  const ProgramResult result = wasserwarp::test_support::RunProgram(WASSERWARP_CLI, args, ".");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_THAT(result.out, HasSubstr("band x:abs=0.1,rel=0,lead=0,lag=0: worst pair s2 vs r"));
  EXPECT_THAT(result.out, HasSubstr("80.0% inside, max excursion 0.9, first outside at 0.5 s"));
}

TEST_F(CliBandTest, BadBandsAreRefusedNamingTheFlagAndTheProblem) {
  const std::pair<std::vector<std::string>, std::vector<std::string>> cases[] = {
      {{"--band", "x"}, {"--band: ", "band \"x\": expected CHANNEL:abs=A,rel=R,lead=S,lag=S"}},
      {{"--band", "x:abs=1,width=2"}, {"--band: ", "unknown term \"width\""}},
      {{"--band", "x:abs=-1"},
       {"--band: ", "band of channel \"x\": abs must be a finite number >= 0, got -1"}},
      {{"--band", "x:lag=-0.5"}, {"--band: ", "lag must be a finite number >= 0"}},
      {{"--band", "x:abs=1", "--band", "x:rel=0.1"}, {"--band: ", "channel \"x\" has two bands"}},
      {{"--band", "z:abs=1"},
       {"--band: ",
        "band of channel \"z\": the runs compared have no such channel (they have x, "
        "y)"}},
      {{"--band", "x:abs=1", "--band-min-inside", "1.5"},
       {"--band-min-inside: ", "must be a share between 0 and 1, got 1.5"}},
      {{"--band-min-inside", "0.5"}, {"--band-min-inside: ", "give at least one band"}},
  };
  for (const auto& [flags, messages] : cases) {
    const ProgramResult result = Validate(flags);
    EXPECT_EQ(result.exit_code, 2) << flags[1];
    for (const std::string& message : messages) {
      EXPECT_THAT(result.err, HasSubstr(message)) << flags[1];
    }
  }
}

}  // namespace
