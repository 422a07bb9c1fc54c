// What `validate` without a server says its report is evidence of: --label, the engine, the
// request digest and the file each run was read from.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "process_runner.h"
#include "scratch_dir.h"

namespace {

using ::testing::HasSubstr;
using ::wasserwarp::test_support::ProgramResult;

class CliEvidenceTest : public testing::Test {
 protected:
  void SetUp() override {
    dir_.Write("sim/s1.csv", "time,x,y\n0,0,1\n0.5,1,1\n1,2,0\n");
    dir_.Write("sim/s2.csv", "time,x,y\n0,0,2\n0.5,2,1\n1,3,1\n1.5,3,0\n");
    dir_.Write("ref/r1.csv", "time,x,y\n0,0,1\n0.5,1.5,1\n1,2,0\n");
    dir_.Write("ref/r2.csv", "time,y,x\n0,2,0\n0.4,1,2\n1.1,1,3\n");
  }

  ProgramResult Validate(const std::vector<std::string>& extra) const {
    std::vector<std::string> args = {
        "validate", "--sim", dir_.Path("sim"), "--ref", dir_.Path("ref"), "--json", "-"};
    args.insert(args.end(), extra.begin(), extra.end());
    return wasserwarp::test_support::RunProgram(WASSERWARP_CLI, args, dir_.root());
  }

  std::string Path(const std::string& name) const { return dir_.Path(name); }

 private:
  const wasserwarp::test_support::ScratchDir dir_{"cli_evidence_test_"};
};

TEST_F(CliEvidenceTest, JsonCarriesLabelsEngineDigestAndSources) {
  const ProgramResult result =
      Validate({"--label", "release=2.4", "--label", "vehicle/variant=sport", "team=a b"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const nlohmann::json report = nlohmann::json::parse(result.out);
  EXPECT_EQ(report["labels"],
            nlohmann::json({{"release", "2.4"}, {"team", "a b"}, {"vehicle/variant", "sport"}}));
  for (const char* key : {"version", "commit", "build_type", "simd_target"}) {
    ASSERT_TRUE(report["engine"][key].is_string()) << key;
    EXPECT_FALSE(report["engine"][key].get<std::string>().empty()) << key;
  }
  const std::string digest = report["request_digest"];
  EXPECT_EQ(digest.size(), 64u);
  // The file as found in the directory given, and the SHA-256 of its bytes.
  EXPECT_EQ(report["simulation"][0]["source"]["file"], Path("sim") + "/s1.csv");
  EXPECT_EQ(report["simulation"][0]["source"]["sha256"],
            "eaedaa2e9d08566af7316ed507db50a285cffee1ce949215250479923a98ad68");
  EXPECT_EQ(report["reference"][1]["source"]["file"], Path("ref") + "/r2.csv");

  // The same evidence again, other labels, threads and --exhaustive: the same digest.
  const ProgramResult again = Validate({"--threads", "1", "--exhaustive"});
  ASSERT_EQ(again.exit_code, 0) << again.err;
  const nlohmann::json second = nlohmann::json::parse(again.out);
  EXPECT_EQ(second["request_digest"], digest);
  EXPECT_EQ(second["labels"], nlohmann::json::object());
  // Another parameter: another digest.
  const ProgramResult other = Validate({"--nu", "0.5"});
  ASSERT_EQ(other.exit_code, 0) << other.err;
  EXPECT_NE(nlohmann::json::parse(other.out)["request_digest"], digest);
}

TEST_F(CliEvidenceTest, ABadLabelIsBadInputNamingIt) {
  for (const auto& [label, message] : std::vector<std::pair<std::string, std::string>>{
           {"Release=1", "labels[Release]"},
           {"release", "\"release\" is not KEY=VALUE"},
           {"note=" + std::string(257, 'v'), "labels[note]"}}) {
    const ProgramResult result = Validate({"--label", label});
    EXPECT_EQ(result.exit_code, 2) << label;
    EXPECT_THAT(result.err, HasSubstr("--label: ")) << label;
    EXPECT_THAT(result.err, HasSubstr(message)) << label;
    EXPECT_TRUE(result.out.empty()) << label;
  }
}

}  // namespace
