// Validation records as release evidence (issue 38) through the CLI against a real
// `wasserwarp-server`: records labelled by `validate --label`, found with `validations list
// --filter` across sessions, ordered by version in `validations history`, gated on with
// `validations latest`, deleted with `validations delete`, and sessions' tombstones listed.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "e2e_example_data.h"
#include "e2e_process.h"

namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using wasserwarp::test_support::ProgramResult;

constexpr char kSession[] = "bench";
constexpr char kModelFilter[] = "labels.model = \"vdyn\"";

class E2eValidationRecordsCliTest : public wasserwarp::e2e::ServerWithExampleDataTest {
 protected:
  void SetUp() override {
    ServerWithExampleDataTest::SetUp();
    if (HasFatalFailure()) return;
    ASSERT_EQ(Cli({"sessions", "create", "--server", server_->address(), "--session", kSession})
                  .exit_code,
              0);
    const ProgramResult uploaded = OnServer(
        {"upload", "--session", kSession, "--sim", Path("data/sim_a"), "--ref", Path("data/ref")});
    ASSERT_EQ(uploaded.exit_code, 0) << uploaded.err;
  }

  ProgramResult Cli(const std::vector<std::string>& args) const {
    return Run(WASSERWARP_CLI, args);
  }

  // `args` plus --server.
  ProgramResult OnServer(std::vector<std::string> args) const {
    args.insert(args.end(), {"--server", server_->address()});
    return Cli(args);
  }

  // A validation of the session labelled model=vdyn and version=`version`; with
  // `fail`, a rule no run meets. Its exit status is the verdict's.
  ProgramResult ValidateVersion(const std::string& version, bool fail = false) const {
    std::vector<std::string> args = {
        "validate", "--session",          kSession,         "--label", "model=vdyn",
        "--label",  "version=" + version, "--permutations", "49"};
    args.insert(args.end(), {"--max-distance", fail ? "0" : "1e9"});
    return OnServer(args);
  }

  nlohmann::json Json(const ProgramResult& result) const {
    EXPECT_EQ(result.exit_code, 0) << result.err << server_->Log();
    return nlohmann::json::parse(result.out, nullptr, /*allow_exceptions=*/false);
  }
};

TEST_F(E2eValidationRecordsCliTest, ListFindsRecordsByLabelAcrossSessions) {
  ASSERT_EQ(ValidateVersion("4.9.2").exit_code, 0);
  const ProgramResult other =
      OnServer({"validate", "--session", kSession, "--label", "model=other"});
  ASSERT_EQ(other.exit_code, 0) << other.err;

  const nlohmann::json found = Json(
      OnServer({"validations", "list", "--all-sessions", "--filter", kModelFilter, "--json", "-"}));
  ASSERT_TRUE(found.is_array()) << found;
  ASSERT_EQ(found.size(), 1u) << found.dump(1);
  const nlohmann::json& record = found[0];
  EXPECT_EQ(record["state"], "succeeded");
  EXPECT_EQ(record["labels"], nlohmann::json({{"model", "vdyn"}, {"version", "4.9.2"}}));
  EXPECT_TRUE(record["outcome"]["distance"].is_number());
  EXPECT_EQ(record["outcome"]["passed"], true);
  EXPECT_TRUE(record["create_time"].is_string());
  EXPECT_TRUE(record["end_time"].is_string());
  EXPECT_TRUE(record.contains("principal"));
  EXPECT_EQ(record["request_digest"].get<std::string>().size(), 64u);
  // Lists leave the events out: GetValidation gives them.
  EXPECT_TRUE(record["events"].empty());

  // The session's own list with the same filter; the order asked for.
  const nlohmann::json in_session = Json(OnServer(
      {"validations", "list", "--session", kSession, "--order-by", "create_time", "--json", "-"}));
  ASSERT_EQ(in_session.size(), 2u);
  EXPECT_LE(in_session[0]["create_time"].get<std::string>(),
            in_session[1]["create_time"].get<std::string>());
  // A filter the server cannot parse is bad input.
  EXPECT_EQ(
      OnServer({"validations", "list", "--all-sessions", "--filter", "labels.model ="}).exit_code,
      2);
}

TEST_F(E2eValidationRecordsCliTest, HistoryOrdersVersionsAsVersions) {
  for (const char* version : {"4.10.0", "4.9.2", "4.2.0", "4.2.0-rc1"}) {
    ASSERT_EQ(ValidateVersion(version).exit_code, 0) << version;
  }
  ASSERT_EQ(OnServer({"validate", "--session", kSession, "--label", "model=vdyn"}).exit_code, 0);

  const std::string page = Path("history.html");
  const ProgramResult history =
      OnServer({"validations", "history", "--filter", kModelFilter, "--by", "labels.version",
                "--json", "-", "--report", page});
  const nlohmann::json records = Json(history);
  ASSERT_TRUE(records.is_array()) << history.out;
  std::vector<std::string> versions;
  for (const nlohmann::json& record : records) versions.push_back(record["by"]);
  EXPECT_THAT(versions, ElementsAre("4.2.0-rc1", "4.2.0", "4.9.2", "4.10.0"));
  EXPECT_TRUE(records[0]["distance"].is_number());
  EXPECT_EQ(records[0]["passed"], true);
  // The record without a version is left out, and said so.
  EXPECT_THAT(history.err, HasSubstr("1 without the label version"));
  EXPECT_TRUE(wasserwarp::test_support::ReadFile(page).find("<canvas data-chart=\"distance\"") !=
              std::string::npos);

  // The table, a line per record under its header, in the same order.
  const ProgramResult table =
      OnServer({"validations", "history", "--filter", kModelFilter, "--by", "labels.version"});
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_LT(table.out.find("4.9.2"), table.out.find("4.10.0"));
}

TEST_F(E2eValidationRecordsCliTest, LatestExitsAsValidateDoes) {
  ASSERT_EQ(ValidateVersion("4.9.2").exit_code, 0);
  const ProgramResult passed = OnServer({"validations", "latest", "--filter", kModelFilter});
  EXPECT_EQ(passed.exit_code, 0) << passed.err;
  EXPECT_THAT(passed.err, HasSubstr("latest: sessions/bench/validations/"));

  ASSERT_EQ(ValidateVersion("4.10.0", /*fail=*/true).exit_code, 1);
  const ProgramResult failed =
      OnServer({"validations", "latest", "--session", kSession, "--filter", kModelFilter});
  EXPECT_EQ(failed.exit_code, 1) << failed.err;
  // The older record still passes when the filter names it.
  EXPECT_EQ(OnServer({"validations", "latest", "--filter",
                      absl::StrCat(kModelFilter, " AND labels.version = \"4.9.2\"")})
                .exit_code,
            0);
  const ProgramResult none =
      OnServer({"validations", "latest", "--filter", "labels.model = \"nothing\""});
  EXPECT_EQ(none.exit_code, 2) << none.err;
  EXPECT_THAT(none.err, HasSubstr("no validation"));
}

TEST_F(E2eValidationRecordsCliTest, DeleteRemovesTheRecord) {
  ASSERT_EQ(ValidateVersion("4.9.2").exit_code, 0);
  const nlohmann::json found = Json(
      OnServer({"validations", "list", "--all-sessions", "--filter", kModelFilter, "--json", "-"}));
  ASSERT_EQ(found.size(), 1u);
  const std::string name = found[0]["name"];

  const ProgramResult deleted = OnServer({"validations", "delete", name});
  ASSERT_EQ(deleted.exit_code, 0) << deleted.err;
  EXPECT_EQ(deleted.out, absl::StrCat("deleted validation ", name, "\n"));
  EXPECT_EQ(OnServer({"validations", "show", name}).exit_code, 2);
  EXPECT_EQ(Json(OnServer({"validations", "list", "--all-sessions", "--filter", kModelFilter,
                           "--json", "-"})),
            nlohmann::json::array());
}

TEST_F(E2eValidationRecordsCliTest, DeletedSessionStaysAsATombstoneWithItsRecords) {
  ASSERT_EQ(ValidateVersion("4.9.2").exit_code, 0);
  ASSERT_EQ(OnServer({"sessions", "delete", "--session", kSession}).exit_code, 0);

  const ProgramResult live = OnServer({"sessions", "list"});
  ASSERT_EQ(live.exit_code, 0) << live.err;
  EXPECT_EQ(live.out, "no sessions\n");
  const ProgramResult all = OnServer({"sessions", "list", "--show-deleted"});
  ASSERT_EQ(all.exit_code, 0) << all.err;
  EXPECT_THAT(all.out, HasSubstr("bench    deleted"));
  // The record stays readable and is still found.
  EXPECT_EQ(OnServer({"validations", "latest", "--filter", kModelFilter}).exit_code, 0);
}

TEST_F(E2eValidationRecordsCliTest, UsageErrorsComeBeforeTheServer) {
  const std::vector<std::vector<std::string>> wrong = {
      {"validations", "history", "--server", "localhost:1", "--filter", kModelFilter},
      {"validations", "history", "--server", "localhost:1", "--by", "labels."},
      {"validations", "list", "--server", "localhost:1"},
      {"validations", "list", "--server", "localhost:1", "--session", "a", "--all-sessions"},
      {"validations", "delete", "--server", "localhost:1"},
      {"validate", "--sim", "a.csv", "--ref", "b.csv", "--label", "model=x"},
      {"validate", "--server", "localhost:1", "--session", "a", "--label", "=x"},
  };
  for (const std::vector<std::string>& args : wrong) {
    const ProgramResult result = Cli(args);
    EXPECT_EQ(result.exit_code, 2) << args[1] << ": " << result.err;
    EXPECT_THAT(result.err, ::testing::Not(HasSubstr("cannot reach"))) << args[1];
  }
}

}  // namespace
