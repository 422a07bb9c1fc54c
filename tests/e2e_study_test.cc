// `wasserwarp identify --server` and `sensitivity --server` against a real `wasserwarp-server`:
// the cost matrices come from the service, the numbers must be those of the embedded study.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "e2e_example_data.h"
#include "e2e_process.h"

namespace {

using ::testing::HasSubstr;
using wasserwarp::test_support::ProgramResult;

// The study's points at the nominal yaw inertia, four trials each: a 1-D study small enough for
// every build type.
class E2eStudyTest : public wasserwarp::e2e::ServerWithExampleDataTest {
 protected:
  void SetUp() override {
    ServerWithExampleDataTest::SetUp();
    if (HasFatalFailure()) return;
    std::string params = "run_id,front_cornering,trial\n";
    sims_ = {"--sim"};
    for (int cf = 0; cf < 7; ++cf) {
      const int point = 3 * cf + 1;
      for (int trial = 0; trial < 4; ++trial) {
        const std::string id = absl::StrFormat("run_%03d_%02d", point, trial);
        sims_.push_back(Path(absl::StrCat("data/study/sim/", id, ".csv")));
        absl::StrAppendFormat(&params, "%s,%d,t%02d\n", id, 63000 + 2250 * cf, trial);
      }
    }
    dir_.Write("params.csv", params);
  }

  ProgramResult Study(const std::string& command, std::vector<std::string> extra) const {
    std::vector<std::string> args = {command,
                                     "--sim-params",
                                     Path("params.csv"),
                                     "--ref",
                                     Path("data/study/ref"),
                                     "--resamples",
                                     "49",
                                     "--splits",
                                     "49",
                                     "--json",
                                     "-"};
    args.insert(args.end(), sims_.begin(), sims_.end());
    args.insert(args.end(), extra.begin(), extra.end());
    return Run(WASSERWARP_CLI, args);
  }

  static nlohmann::json WithoutSeconds(const std::string& out, const std::string& key) {
    nlohmann::json json = nlohmann::json::parse(out);
    json[key].erase("seconds");
    return json;
  }

  std::vector<std::string> sims_;
};

TEST_F(E2eStudyTest, ServerCostMatricesGiveTheEmbeddedStudy) {
  for (const auto& [command, key, extra] :
       std::vector<std::tuple<std::string, std::string, std::vector<std::string>>>{
           {"identify", "identify", {"--scale", "reference-std", "--qoi", "yaw_rate:max"}},
           {"sensitivity",
            "sensitivity",
            {"--nominal", "front_cornering=69750", "--qoi", "yaw_rate:max"}}}) {
    const ProgramResult embedded = Study(command, extra);
    ASSERT_LE(embedded.exit_code, 1) << embedded.err;
    std::vector<std::string> served_extra = extra;
    served_extra.insert(served_extra.end(), {"--server", server_->address()});
    const ProgramResult served = Study(command, served_extra);
    ASSERT_EQ(served.exit_code, embedded.exit_code) << served.err << server_->Log();
    EXPECT_EQ(WithoutSeconds(served.out, key), WithoutSeconds(embedded.out, key)) << command;
  }
  EXPECT_THAT(server_->Log(), HasSubstr("CreateSession"));
  const ProgramResult list =
      Run(WASSERWARP_CLI, {"sessions", "list", "--server", server_->address()});
  EXPECT_EQ(list.out, "no sessions\n");
}

}  // namespace
