// Runs the real `wasserwarp identify` and `wasserwarp sensitivity` on the example generator's
// parameter study: the identification must find the generator's true parameters within its
// interval, and the commands' exit statuses and errors are the contract pipelines rely on.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "process_runner.h"
#include "scratch_dir.h"

namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::StartsWith;
using ::wasserwarp::test_support::ProgramResult;
using ::wasserwarp::test_support::ReadFile;
using ::wasserwarp::test_support::ScratchDir;

class CliStudyTest : public testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new ScratchDir("cli_study_test_");
    ASSERT_FALSE(dir_->root().empty());
    const ProgramResult data = wasserwarp::test_support::RunProgram(
        WASSERWARP_EXAMPLE_DATA, {"--out", Path("data")}, dir_->root());
    ASSERT_EQ(data.exit_code, 0) << data.err;
  }

  static void TearDownTestSuite() { delete dir_; }

  static std::string Path(const std::string& name) { return dir_->Path(name); }

  static ProgramResult Run(const std::string& command, const std::vector<std::string>& extra,
                           const std::string& params = Path("data/study/sim_params.csv")) {
    std::vector<std::string> args = {
        command,        "--sim", Path("data/study/sim"), "--ref", Path("data/study/ref"),
        "--sim-params", params};
    args.insert(args.end(), extra.begin(), extra.end());
    return wasserwarp::test_support::RunProgram(WASSERWARP_CLI, args, dir_->root());
  }

  static void ExpectBadInput(const ProgramResult& result, const std::string& message) {
    EXPECT_EQ(result.exit_code, 2) << result.err;
    EXPECT_THAT(result.err, AllOf(StartsWith("wasserwarp: "), HasSubstr(message)));
  }

  static ScratchDir* dir_;
};

ScratchDir* CliStudyTest::dir_ = nullptr;

TEST_F(CliStudyTest, IdentificationRecoversTheGeneratorsTrueParameters) {
  const ProgramResult result = Run(
      "identify", {"--ref-groups", Path("data/study/ref_groups.csv"), "--nominal",
                   "front_cornering=75000,yaw_inertia=2600", "--resamples", "199", "--json", "-"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const nlohmann::json identify = nlohmann::json::parse(result.out)["identify"];
  const std::string truth = ReadFile(Path("data/study/truth.csv"));
  ASSERT_EQ(truth, "parameter,value\nfront_cornering,69000\nyaw_inertia,2600\n");
  const std::map<std::string, double> expected = {{"front_cornering", 69000.0},
                                                  {"yaw_inertia", 2600.0}};
  for (const auto& [name, value] : expected) {
    const double lo = identify["interval"][name][0];
    const double hi = identify["interval"][name][1];
    EXPECT_LE(lo, value) << name;
    EXPECT_GE(hi, value) << name;
    EXPECT_LT(hi - lo, 0.2 * value) << name;
  }
  EXPECT_EQ(identify["points"].size(), 21);
  EXPECT_EQ(identify["points"][0]["runs"], 10);
  EXPECT_EQ(identify["on_boundary"], false);
  EXPECT_EQ(identify["surface"]["convex"], true);
  EXPECT_EQ(identify["paired"], true);
  EXPECT_EQ(identify["groups"].size(), 2);
  EXPECT_TRUE(identify["nominal_difference"]["front_cornering"]["z"].is_number());
  EXPECT_TRUE(identify["baseline_ref_ref_median"].is_number());
  EXPECT_THAT(result.err, HasSubstr("result: PASS"));
}

TEST_F(CliStudyTest, SensitivityAroundADesignPoint) {
  const ProgramResult result =
      Run("sensitivity", {"--nominal", "front_cornering=69750,yaw_inertia=2600", "--qoi",
                          "yaw_rate:max", "--resamples", "99", "--json", "-"});
  ASSERT_TRUE(result.exit_code == 0 || result.exit_code == 1) << result.err;
  const nlohmann::json sensitivity = nlohmann::json::parse(result.out)["sensitivity"];
  EXPECT_EQ(result.exit_code, sensitivity["flagged"] ? 1 : 0);
  ASSERT_EQ(sensitivity["parameters"].size(), 2);
  const nlohmann::json& cf = sensitivity["parameters"][0];
  EXPECT_EQ(cf["name"], "front_cornering");
  EXPECT_EQ(cf["scheme"], "central");
  EXPECT_TRUE(cf["second_derivative"].is_number());
  EXPECT_EQ(cf["paired"], true);
  // Whether pairing pays off for W is the data's to say (tests/parameter_study_test.cc checks
  // the gain on data built for it); here it is reported.
  EXPECT_TRUE(cf["variance_gain"].is_number());
  EXPECT_EQ(sensitivity["quantities"].size(), 4);  // AVM and mean along each parameter
  EXPECT_EQ(sensitivity["nominal"]["yaw_inertia"], 2600.0);
}

TEST_F(CliStudyTest, ReportPagesAreWritten) {
  const ProgramResult identify =
      Run("identify", {"--resamples", "49", "--report", Path("identify.html")});
  ASSERT_EQ(identify.exit_code, 0) << identify.err;
  const ProgramResult sensitivity =
      Run("sensitivity", {"--nominal", "front_cornering=69750,yaw_inertia=2600", "--resamples",
                          "49", "--report", Path("sensitivity.html")});
  ASSERT_LE(sensitivity.exit_code, 1) << sensitivity.err;
  for (const std::string page : {"identify.html", "sensitivity.html"}) {
    const std::string html = ReadFile(Path(page));
    EXPECT_THAT(html, StartsWith("<!DOCTYPE html>")) << page;
    EXPECT_THAT(html, HasSubstr("front_cornering")) << page;
  }
}

TEST_F(CliStudyTest, BadParameterFilesAndOptionsAreNamed) {
  dir_->Write("bad/missing_value.csv",
              "run_id,front_cornering,yaw_inertia,trial\nrun_000_00,1,,t0\n");
  ExpectBadInput(Run("identify", {}, Path("bad/missing_value.csv")),
                 "missing_value.csv:2:3: parameter \"yaw_inertia\" missing for run \"run_000_00\"");
  dir_->Write("bad/short.csv", "run_id,front_cornering,yaw_inertia,trial\nrun_000_00,1,2,t0\n");
  ExpectBadInput(Run("identify", {}, Path("bad/short.csv")),
                 "short.csv: no parameters for simulated run \"run_000_01\"");
  ExpectBadInput(Run("sensitivity", {}), "sensitivity: --nominal K=V[,K=V...] is required");
  ExpectBadInput(Run("sensitivity", {"--nominal", "front_cornering"}),
                 "--nominal: expected name=value, got \"front_cornering\"");
  ExpectBadInput(Run("sensitivity", {"--nominal", "front_cornering=1,yaw_inertia=2600"}),
                 "--nominal: no simulated run has exactly these parameter values");
  ExpectBadInput(Run("identify", {"--resamples", "0"}), "--resamples: must be from 1 to");
  dir_->Write("bad/name.csv", "run_id,2cf,trial\nrun_000_00,1,t0\n");
  ExpectBadInput(Run("identify", {}, Path("bad/name.csv")),
                 "name.csv:1:2: parameter name \"2cf\" must be 1 to 64 characters of "
                 "[A-Za-z0-9_.-], not starting with a digit, so that it can be a CSV column and a "
                 "JSON key: it starts with a digit");
  ExpectBadInput(Run("identify", {"--response", "cubic"}),
                 "--response: expected squared or distance, got \"cubic\"");
}

}  // namespace
