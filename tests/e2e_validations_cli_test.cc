// `validate --detach` and `wasserwarp validations` against a real `wasserwarp-server`: a
// validation queued and looked at later must show what `validate` shows, with its exit status.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "cli_output.h"
#include "e2e_example_data.h"
#include "e2e_process.h"

namespace {

using ::testing::AllOf;
using ::testing::EndsWith;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::MatchesRegex;
using ::testing::StartsWith;
using wasserwarp::e2e::ServerProcess;
using wasserwarp::test_support::ProgramResult;
using wasserwarp::test_support::ReportWithoutSeconds;
using wasserwarp::test_support::SummaryWithoutTime;

constexpr char kSession[] = "bench";

class E2eValidationsCliTest : public wasserwarp::e2e::ServerWithExampleDataTest {
 protected:
  void SetUp() override {
    ServerWithExampleDataTest::SetUp();
    if (HasFatalFailure()) return;
    ASSERT_NO_FATAL_FAILURE(FillSession(server_->address()));
  }

  ProgramResult Cli(const std::vector<std::string>& args) const {
    return Run(WASSERWARP_CLI, args);
  }

  // `args` plus --server and --session.
  ProgramResult OnSession(std::vector<std::string> args,
                          const std::string& server_address = "") const {
    args.insert(args.end(),
                {"--server", server_address.empty() ? server_->address() : server_address,
                 "--session", kSession});
    return Cli(args);
  }

  void FillSession(const std::string& address) const {
    const ProgramResult created =
        Cli({"sessions", "create", "--server", address, "--session", kSession});
    ASSERT_EQ(created.exit_code, 0) << created.err;
    const ProgramResult uploaded =
        OnSession({"upload", "--sim", Path("data/sim_a"), "--ref", Path("data/ref")}, address);
    ASSERT_EQ(uploaded.exit_code, 0) << uploaded.err;
  }

  // The name `validate --detach extra...` prints.
  std::string Detach(std::vector<std::string> extra, const std::string& address = "") const {
    extra.insert(extra.begin(), {"validate", "--detach"});
    const ProgramResult detached = OnSession(extra, address);
    EXPECT_EQ(detached.exit_code, 0) << detached.err;
    EXPECT_THAT(detached.out,
                MatchesRegex(absl::StrCat("sessions/", kSession, "/validations/[a-z0-9._-]+\n")));
    return std::string(absl::StripTrailingAsciiWhitespace(detached.out));
  }

  static std::string IdOf(const std::string& name) { return name.substr(name.rfind('/') + 1); }
};

TEST_F(E2eValidationsCliTest, DetachedValidationShowsWhatValidateShows) {
  const ProgramResult direct = OnSession({"validate", "--json", "-"});
  ASSERT_EQ(direct.exit_code, 0) << direct.err;

  const std::string name = Detach({});
  const ProgramResult watched =
      OnSession({"validations", "watch", "--validation", name, "--json", "-"});
  ASSERT_EQ(watched.exit_code, 0) << watched.err << server_->Log();
  EXPECT_EQ(ReportWithoutSeconds(watched.out), ReportWithoutSeconds(direct.out));
  EXPECT_EQ(SummaryWithoutTime(watched.err), SummaryWithoutTime(direct.err));

  // By its id too; the stored report's seconds make the JSON the same byte for byte.
  const ProgramResult shown =
      OnSession({"validations", "show", "--validation", IdOf(name), "--json", "-"});
  ASSERT_EQ(shown.exit_code, 0) << shown.err;
  EXPECT_EQ(shown.out, watched.out);
  EXPECT_EQ(SummaryWithoutTime(shown.err), SummaryWithoutTime(direct.err));

  // The full name needs no --session.
  const ProgramResult by_name = Cli(
      {"validations", "show", "--server", server_->address(), "--validation", name, "--json", "-"});
  ASSERT_EQ(by_name.exit_code, 0) << by_name.err;
  EXPECT_EQ(by_name.out, watched.out);

  const ProgramResult text = OnSession({"validations", "show", "--validation", IdOf(name)});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_EQ(SummaryWithoutTime(text.out), SummaryWithoutTime(direct.err));
}

TEST_F(E2eValidationsCliTest, ListIsNewestFirstAndFilters) {
  ASSERT_EQ(OnSession({"validate"}).exit_code, 0);
  const std::string name = Detach({});
  ASSERT_EQ(OnSession({"validations", "watch", "--validation", name}).exit_code, 0);

  const ProgramResult listed = OnSession({"validations", "list", "--json", "-"});
  ASSERT_EQ(listed.exit_code, 0) << listed.err;
  const nlohmann::json list = nlohmann::json::parse(listed.out);
  ASSERT_EQ(list.size(), 2u) << listed.out;
  EXPECT_EQ(list[0]["name"], name);
  EXPECT_EQ(list[0]["id"], IdOf(name));
  EXPECT_EQ(list[0]["state"], "succeeded");
  EXPECT_EQ(list[0]["attempts"], 1);
  EXPECT_TRUE(list[0]["error"].is_null());
  EXPECT_EQ(list[1]["state"], "succeeded");
  EXPECT_GE(list[0]["create_time"].get<std::string>(), list[1]["create_time"].get<std::string>());

  const ProgramResult limited = OnSession({"validations", "list", "--limit", "1", "--json", "-"});
  ASSERT_EQ(limited.exit_code, 0) << limited.err;
  EXPECT_EQ(nlohmann::json::parse(limited.out).size(), 1u);
  EXPECT_EQ(nlohmann::json::parse(limited.out)[0]["name"], name);

  const ProgramResult text = OnSession({"validations", "list"});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_THAT(text.out, AllOf(StartsWith("id "), HasSubstr(IdOf(name) + "  succeeded  ")));

  const ProgramResult none = OnSession({"validations", "list", "--state", "failed"});
  ASSERT_EQ(none.exit_code, 0) << none.err;
  EXPECT_EQ(none.out, "no validations\n");
  EXPECT_EQ(OnSession({"validations", "list", "--state", "done"}).exit_code, 2);
}

TEST_F(E2eValidationsCliTest, DetachWithJsonPrintsTheValidation) {
  const ProgramResult detached = OnSession({"validate", "--detach", "--json", "-"});
  ASSERT_EQ(detached.exit_code, 0) << detached.err;
  const nlohmann::json validation = nlohmann::json::parse(detached.out);
  EXPECT_THAT(validation["name"].get<std::string>(),
              StartsWith(absl::StrCat("sessions/", kSession, "/validations/")));
  EXPECT_EQ(validation["state"], "queued");
  EXPECT_TRUE(validation["create_time"].is_string());
  EXPECT_EQ(detached.err, validation["name"].get<std::string>() + "\n");
}

TEST_F(E2eValidationsCliTest, VerdictsKeepValidatesExitStatus) {
  const std::vector<std::string> failing = {"--max-distance", "0", "--permutations", "99"};
  std::vector<std::string> direct_args = {"validate", "--json", "-"};
  direct_args.insert(direct_args.end(), failing.begin(), failing.end());
  const ProgramResult direct = OnSession(direct_args);
  ASSERT_EQ(direct.exit_code, 1) << direct.err;

  const std::string name = Detach(failing);
  const ProgramResult watched =
      OnSession({"validations", "watch", "--validation", name, "--json", "-"});
  EXPECT_EQ(watched.exit_code, 1) << watched.err;
  EXPECT_EQ(ReportWithoutSeconds(watched.out), ReportWithoutSeconds(direct.out));
  const ProgramResult shown =
      OnSession({"validations", "show", "--validation", name, "--json", "-"});
  EXPECT_EQ(shown.exit_code, 1) << shown.err;
  EXPECT_EQ(shown.out, watched.out);
}

TEST_F(E2eValidationsCliTest, ShowWritesTheStoredPageAndMatrices) {
  const ProgramResult direct = OnSession({"validate", "--cost-matrix", "--json", "-"});
  ASSERT_EQ(direct.exit_code, 0) << direct.err;
  const std::string name = Detach({"--report", Path("unused.html"), "--cost-matrix"});
  ASSERT_EQ(OnSession({"validations", "watch", "--validation", name}).exit_code, 0);
  const ProgramResult shown = OnSession({"validations", "show", "--validation", name, "--json", "-",
                                         "--cost-matrix", "--report", Path("page.html")});
  ASSERT_EQ(shown.exit_code, 0) << shown.err;
  EXPECT_EQ(ReportWithoutSeconds(shown.out), ReportWithoutSeconds(direct.out));
  EXPECT_THAT(wasserwarp::test_support::ReadFile(Path("page.html")), StartsWith("<!DOCTYPE html>"));

  // A validation that did not ask for the page has none to write.
  const std::string plain = Detach({});
  ASSERT_EQ(OnSession({"validations", "watch", "--validation", plain}).exit_code, 0);
  const ProgramResult no_page =
      OnSession({"validations", "show", "--validation", plain, "--report", Path("none.html")});
  EXPECT_EQ(no_page.exit_code, 2);
  EXPECT_THAT(no_page.err, AllOf(StartsWith("wasserwarp: "), HasSubstr("HTML page")));
}

TEST_F(E2eValidationsCliTest, CancelledWhileQueued) {
  // One job slot, held by a long verdict, so that the next validation waits.
  absl::StatusOr<std::unique_ptr<ServerProcess>> started = ServerProcess::Start(
      WASSERWARP_SERVER, Path(""), {"--max_concurrent_jobs=1", "--job_threads=1"});
  ASSERT_TRUE(started.ok()) << started.status();
  const std::unique_ptr<ServerProcess> server = *std::move(started);
  ASSERT_NO_FATAL_FAILURE(FillSession(server->address()));
  const std::string big =
      Detach({"--max-distance", "1", "--permutations", "1000000"}, server->address());
  const std::string queued = Detach({}, server->address());

  const ProgramResult pending =
      OnSession({"validations", "show", "--validation", queued}, server->address());
  EXPECT_EQ(pending.exit_code, 4) << pending.err;
  EXPECT_THAT(pending.out, StartsWith(absl::StrCat("validation ", queued, " is queued\n")));

  const ProgramResult cancelled =
      OnSession({"validations", "cancel", "--validation", queued}, server->address());
  ASSERT_EQ(cancelled.exit_code, 0) << cancelled.err;
  EXPECT_EQ(cancelled.out, queued + ": cancelled\n");

  const ProgramResult shown =
      OnSession({"validations", "show", "--validation", queued}, server->address());
  EXPECT_EQ(shown.exit_code, 3);
  EXPECT_THAT(shown.err,
              StartsWith(absl::StrCat("wasserwarp: validation ", queued, " was cancelled")));
  EXPECT_THAT(shown.out, IsEmpty());
  const ProgramResult listed =
      OnSession({"validations", "list", "--state", "cancelled", "--json", "-"}, server->address());
  ASSERT_EQ(listed.exit_code, 0) << listed.err;
  const nlohmann::json list = nlohmann::json::parse(listed.out);
  ASSERT_EQ(list.size(), 1u);
  EXPECT_EQ(list[0]["name"], queued);
  EXPECT_EQ(list[0]["error"]["code"], "CANCELLED");

  // The long one ends when its job stops, and the server can shut down.
  EXPECT_EQ(OnSession({"validations", "cancel", "--validation", big}, server->address()).exit_code,
            0);
  EXPECT_EQ(server->Stop(), 0) << server->Log();
}

TEST_F(E2eValidationsCliTest, WatchShowsValidatesProgressBarOnATerminal) {
  // A verdict long enough for progress events before the report.
  const std::string name = Detach({"--max-distance", "100", "--permutations", "20000"});
  const ProgramResult result =
      wasserwarp::e2e::RunProgramOnTerminal(WASSERWARP_CLI,
                                            {"validations", "watch", "--server", server_->address(),
                                             "--session", kSession, "--validation", name},
                                            Path(""));
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_THAT(result.err,
              AllOf(HasSubstr("] "), HasSubstr("%"), HasSubstr(" pairs"), EndsWith("\r\033[K")));
  EXPECT_THAT(result.out, StartsWith("distance: "));
}

TEST_F(E2eValidationsCliTest, UnknownValidationIsNotFound) {
  for (const std::string subcommand : {"show", "watch", "cancel"}) {
    const ProgramResult result =
        OnSession({"validations", subcommand, "--validation", "no-such-validation"});
    EXPECT_EQ(result.exit_code, 2) << subcommand;
    EXPECT_THAT(
        result.err,
        AllOf(StartsWith("wasserwarp: "),
              HasSubstr(absl::StrCat("sessions/", kSession, "/validations/no-such-validation"))))
        << subcommand;
    EXPECT_THAT(result.out, IsEmpty());
  }
}

TEST_F(E2eValidationsCliTest, UsageErrorsComeBeforeTheServer) {
  const ProgramResult no_session = Cli({"validate", "--detach", "--server", server_->address()});
  EXPECT_EQ(no_session.exit_code, 2);
  EXPECT_THAT(no_session.err,
              AllOf(StartsWith("wasserwarp: validate: --detach needs --server HOST:PORT and "
                               "--session ID"),
                    HasSubstr("runs on the server")));
  EXPECT_EQ(Cli({"validate", "--detach", "--session", kSession}).exit_code, 2);

  for (const std::vector<std::string>& args :
       std::vector<std::vector<std::string>>{{"validations", "show"},
                                             {"validations", "show", "--validation", "Bad Id"},
                                             {"validations", "list", "--validation", "x"},
                                             {"validations", "list", "--limit", "0"},
                                             {"validations", "purge"},
                                             {"validations"}}) {
    const ProgramResult result = OnSession(args);
    EXPECT_EQ(result.exit_code, 2) << args.back();
    EXPECT_THAT(result.err, StartsWith("wasserwarp: ")) << args.back();
  }
}

}  // namespace
