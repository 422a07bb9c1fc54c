// `wasserwarp compare --server` against a real `wasserwarp-server`: the cost matrices come from
// the service, the numbers must be those of the embedded comparison.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "cli_output.h"
#include "e2e_example_data.h"
#include "e2e_process.h"

namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;
using ::testing::StartsWith;
using wasserwarp::test_support::ProgramResult;
using wasserwarp::test_support::ReportWithoutSeconds;
using wasserwarp::test_support::SummaryWithoutTime;

class E2eCompareTest : public wasserwarp::e2e::ServerWithExampleDataTest {
 protected:
  ProgramResult Cli(const std::vector<std::string>& args) const {
    return Run(WASSERWARP_CLI, args);
  }

  std::vector<std::string> CompareArgs(const std::vector<std::string>& extra) const {
    std::vector<std::string> args = {"compare",        "--sim-a",          Path("data/sim_a"),
                                     "--sim-b",        Path("data/sim_b"), "--ref",
                                     Path("data/ref"), "--resamples",      "99"};
    args.insert(args.end(), extra.begin(), extra.end());
    return args;
  }

  // `compare` with `extra` flags embedded and with --server: the served run, after checking
  // that it reports and prints what the embedded one does.
  ProgramResult ServedAsEmbedded(const std::vector<std::string>& extra) const {
    const std::vector<std::string> args = CompareArgs(extra);
    const ProgramResult embedded = Cli(args);
    std::vector<std::string> served_args = args;
    served_args.insert(served_args.end(), {"--server", server_->address()});
    const ProgramResult served = Cli(served_args);
    EXPECT_EQ(embedded.exit_code, 0) << embedded.err;
    EXPECT_EQ(served.exit_code, 0) << served.err << server_->Log();
    if (embedded.exit_code != 0 || served.exit_code != 0) return served;
    EXPECT_EQ(ReportWithoutSeconds(served.out), ReportWithoutSeconds(embedded.out));
    EXPECT_EQ(SummaryWithoutTime(served.err), SummaryWithoutTime(embedded.err));
    return served;
  }
};

TEST_F(E2eCompareTest, ServerCostMatricesGiveTheEmbeddedComparison) {
  const ProgramResult served = ServedAsEmbedded(
      {"--scale", "reference-std", "--lambda", "0.3", "--seed", "5", "--json", "-"});
  ASSERT_EQ(served.exit_code, 0);
  EXPECT_EQ(nlohmann::json::parse(served.out)["paired"], true);
  EXPECT_THAT(server_->Log(), HasSubstr("CreateSession"));

  // Both one-off sessions are gone.
  const ProgramResult list = Cli({"sessions", "list", "--server", server_->address()});
  EXPECT_EQ(list.exit_code, 0) << list.err;
  EXPECT_EQ(list.out, "no sessions\n");
}

TEST_F(E2eCompareTest, ServerRatesEachVariantAsTheEmbeddedComparisonDoes) {
  const ProgramResult served = ServedAsEmbedded({"--iso18571", "--json", "-"});
  ASSERT_EQ(served.exit_code, 0);
  const nlohmann::json report = nlohmann::json::parse(served.out);
  EXPECT_FALSE(report["a"]["iso18571"].empty());
  EXPECT_FALSE(report["b"]["iso18571_average"].empty());
  EXPECT_THAT(served.err, HasSubstr("variant B: ISO/TS 18571, plan-weighted"));
}

TEST_F(E2eCompareTest, BadInputFailsBeforeTheServerIsAsked) {
  const std::vector<std::string> args = CompareArgs({"--channels", "yaw_rate,no_such_channel"});
  const ProgramResult embedded = Cli(args);
  ASSERT_EQ(embedded.exit_code, 2);
  std::vector<std::string> served_args = args;
  served_args.insert(served_args.end(), {"--server", server_->address()});
  const ProgramResult served = Cli(served_args);
  EXPECT_EQ(served.exit_code, 2);
  EXPECT_EQ(served.err, embedded.err);
  EXPECT_THAT(served.out, IsEmpty());
  EXPECT_THAT(server_->Log(), Not(HasSubstr("CreateSession")));
}

TEST_F(E2eCompareTest, UnreachableServerIsAnInternalError) {
  const std::string nowhere = absl::StrCat("127.0.0.1:", wasserwarp::e2e::ClosedPort());
  const ProgramResult result = Cli(CompareArgs({"--server", nowhere}));
  EXPECT_EQ(result.exit_code, 3);
  EXPECT_THAT(result.err, AllOf(StartsWith("wasserwarp: cannot reach server " + nowhere)));
}

}  // namespace
