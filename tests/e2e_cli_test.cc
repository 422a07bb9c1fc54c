// The `wasserwarp` CLI against a real `wasserwarp-server`: every command that can go through
// the service must print what the embedded computation prints, with the same exit status.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "cli_output.h"
#include "e2e_example_data.h"
#include "e2e_process.h"

namespace {

using ::testing::AllOf;
using ::testing::ContainsRegex;
using ::testing::EndsWith;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::StartsWith;
using wasserwarp::test_support::ProgramResult;
using wasserwarp::test_support::ReportWithoutSeconds;
using wasserwarp::test_support::SummaryWithoutTime;

class E2eCliTest : public wasserwarp::e2e::ServerWithExampleDataTest {
 protected:
  std::string Sim() const { return Path("data/sim_a"); }
  std::string Ref() const { return Path("data/ref"); }
  const std::string& Server() const { return server_->address(); }

  std::string Write(const std::string& name, const std::string& content) const {
    return dir_.Write(name, content);
  }

  ProgramResult Cli(const std::vector<std::string>& args) const {
    return Run(WASSERWARP_CLI, args);
  }

  // `args` plus --server: the same command through the service.
  ProgramResult CliOnServer(std::vector<std::string> args) const {
    args.insert(args.end(), {"--server", Server()});
    return Cli(args);
  }

  // The JSON of `validate args... --json -`, embedded and through the service, must agree.
  void ExpectSameReport(const std::vector<std::string>& embedded_args,
                        const std::vector<std::string>& server_args) const {
    const ProgramResult embedded = Cli(embedded_args);
    ASSERT_EQ(embedded.exit_code, 0) << embedded.err;
    const ProgramResult served = Cli(server_args);
    ASSERT_EQ(served.exit_code, 0) << served.err << server_->Log();
    EXPECT_EQ(ReportWithoutSeconds(served.out), ReportWithoutSeconds(embedded.out));
    EXPECT_EQ(SummaryWithoutTime(served.err), SummaryWithoutTime(embedded.err));
  }

  // Samples in a run file: its lines less the header.
  int SamplesIn(const std::string& path) const {
    std::ifstream in(path);
    std::string line;
    int lines = 0;
    while (std::getline(in, line)) lines += line.empty() ? 0 : 1;
    return lines - 1;
  }
};

TEST_F(E2eCliTest, TwedThroughTheServerPrintsTheEmbeddedNumber) {
  const std::string a = Sim() + "/sim_01.csv";
  const std::string b = Ref() + "/ref_02.csv";
  for (const std::vector<std::string>& flags :
       std::vector<std::vector<std::string>>{{},
                                             {"--nu", "0.5", "--lambda=0.3", "--align", "none"},
                                             {"--p", "1", "--channels", "yaw_rate,steering_angle"},
                                             {"--time-window", "0.5"}}) {
    std::vector<std::string> args = {"twed", a, b};
    args.insert(args.end(), flags.begin(), flags.end());
    const ProgramResult embedded = Cli(args);
    ASSERT_EQ(embedded.exit_code, 0) << embedded.err;
    const ProgramResult served = CliOnServer(args);
    EXPECT_EQ(served.exit_code, 0) << served.err;
    EXPECT_EQ(served.out, embedded.out) << absl::StrJoin(flags, " ");
    EXPECT_THAT(served.err, IsEmpty());
  }
}

TEST_F(E2eCliTest, TwedErrorsKeepTheirExitStatus) {
  const std::vector<std::string> args = {"twed", Sim() + "/sim_01.csv", Ref() + "/ref_01.csv",
                                         "--channels", "no_such_channel"};
  const ProgramResult embedded = Cli(args);
  ASSERT_EQ(embedded.exit_code, 2);
  const ProgramResult served = CliOnServer(args);
  EXPECT_EQ(served.exit_code, 2) << served.err;
  EXPECT_THAT(served.err, AllOf(StartsWith("wasserwarp: "), HasSubstr("no_such_channel")));
}

TEST_F(E2eCliTest, OneOffValidateGivesTheEmbeddedReport) {
  const std::string weights = Write("ref_weights.csv", "ref_01,1\nref_02,2\nref_03,3\n");
  const std::vector<std::string> args = {
      "validate", "--sim", Sim(),           "--ref", Ref(),           "--scale", "reference-std",
      "--lambda", "0.3",   "--ref-weights", weights, "--cost-matrix", "--json",  "-"};
  std::vector<std::string> served = args;
  served.insert(served.end(), {"--server", Server()});
  ExpectSameReport(args, served);
  // The one-off session is gone.
  const ProgramResult list = CliOnServer({"sessions", "list"});
  EXPECT_EQ(list.exit_code, 0) << list.err;
  EXPECT_EQ(list.out, "no sessions\n");
}

TEST_F(E2eCliTest, OneOffValidatePrintsTheSummaryAndWritesTheJsonFile) {
  const std::vector<std::string> args = {"validate", "--sim",   Sim(), "--ref",
                                         Ref(),      "--order", "2"};
  std::vector<std::string> embedded_args = args;
  embedded_args.insert(embedded_args.end(), {"--json", Path("embedded.json")});
  const ProgramResult embedded = Cli(embedded_args);
  ASSERT_EQ(embedded.exit_code, 0) << embedded.err;
  std::vector<std::string> served_args = args;
  served_args.insert(served_args.end(), {"--json", Path("served.json"), "--server", Server()});
  const ProgramResult served = Cli(served_args);
  ASSERT_EQ(served.exit_code, 0) << served.err;
  EXPECT_EQ(SummaryWithoutTime(served.out), SummaryWithoutTime(embedded.out));
  // Not a terminal: no progress bar.
  EXPECT_THAT(served.err, IsEmpty());
  EXPECT_EQ(ReportWithoutSeconds(wasserwarp::test_support::ReadFile(Path("served.json"))),
            ReportWithoutSeconds(wasserwarp::test_support::ReadFile(Path("embedded.json"))));
}

// Runs whose CSV headers give units (issue 43): the simulated yaw rate in deg/s, the reference's
// in rad/s. Uploaded by the CLI, converted by the server as by the embedded engine.
TEST_F(E2eCliTest, CsvUnitsReachTheServer) {
  const auto write_run = [this](const std::string& name, const std::string& unit, double gain) {
    std::string csv = absl::StrCat("time,yaw_rate[", unit, "],speed[km/h]\n");
    for (int i = 0; i < 120; ++i) {
      const double t = 0.01 * i;
      absl::StrAppend(&csv, t, ",", gain * std::sin(3.0 * t + gain), ",", 50.0 + gain * t, "\n");
    }
    return Write(name, csv);
  };
  for (int k = 0; k < 3; ++k) {
    write_run(absl::StrCat("units/ref/ref_", k, ".csv"), "rad/s", 1.0 + 0.1 * k);
    write_run(absl::StrCat("units/sim/sim_", k, ".csv"), "deg/s", 60.0 + 2.0 * k);
  }
  const std::vector<std::string> args = {
      "validate", "--sim", Path("units/sim"), "--ref", Path("units/ref"), "--json", "-"};
  std::vector<std::string> served = args;
  served.insert(served.end(), {"--server", Server()});
  ExpectSameReport(args, served);
  const ProgramResult report = Cli(served);
  EXPECT_THAT(report.out, HasSubstr("\"rad/s\""));

  ASSERT_EQ(CliOnServer({"sessions", "create", "--session", "units"}).exit_code, 0);
  const ProgramResult upload =
      CliOnServer({"upload", "--session", "units", "--sim", Path("units/sim")});
  ASSERT_EQ(upload.exit_code, 0) << upload.err;
  const ProgramResult show = CliOnServer({"sessions", "show", "--session", "units"});
  ASSERT_EQ(show.exit_code, 0) << show.err;
  EXPECT_THAT(show.out, HasSubstr("yaw_rate[deg/s],speed[km/h]\n"));
}

TEST_F(E2eCliTest, SessionWorkflowGivesTheEmbeddedReport) {
  const ProgramResult created =
      CliOnServer({"sessions", "create", "--session", "bench-1", "--nu", "0.5", "--scale",
                   "reference-std", "--ttl", "2h", "--label", "rig=hil3", "--label", "owner=ci"});
  ASSERT_EQ(created.exit_code, 0) << created.err;
  EXPECT_EQ(created.out, "bench-1\n");

  const ProgramResult refs = CliOnServer({"upload", "--session", "bench-1", "--ref", Ref()});
  ASSERT_EQ(refs.exit_code, 0) << refs.err;
  EXPECT_THAT(refs.out, HasSubstr("uploaded 0 simulated and 3 reference runs"));
  const std::string weights =
      Write("sim_weights.csv", "id,weight\nsim_01,4\nsim_02,1\nsim_03,1\nsim_04,2\n");
  const ProgramResult sims =
      CliOnServer({"upload", "--session", "bench-1", "--sim", Sim(), "--sim-weights", weights});
  ASSERT_EQ(sims.exit_code, 0) << sims.err;
  EXPECT_THAT(sims.out, HasSubstr("uploaded 4 simulated and 0 reference runs"));

  // Session defaults, with one more parameter given for this validation.
  ExpectSameReport(
      {"validate", "--sim", Sim(), "--ref", Ref(), "--sim-weights", weights, "--nu", "0.5",
       "--scale", "reference-std", "--lambda", "0.3", "--cost-matrix", "--json", "-"},
      {"validate", "--server", Server(), "--session", "bench-1", "--lambda", "0.3", "--cost-matrix",
       "--json", "-"});
  // A session default overridden for one validation.
  ExpectSameReport(
      {"validate", "--sim", Sim(), "--ref", Ref(), "--sim-weights", weights, "--nu", "0.01",
       "--scale", "reference-std", "--json", "-"},
      {"validate", "--server", Server(), "--session", "bench-1", "--nu", "0.01", "--json", "-"});

  const ProgramResult list = CliOnServer({"sessions", "list"});
  ASSERT_EQ(list.exit_code, 0) << list.err;
  EXPECT_THAT(list.out, AllOf(StartsWith("session"), ContainsRegex("bench-1 +4 +3 "),
                              HasSubstr("owner=ci,rig=hil3")));

  const ProgramResult show = CliOnServer({"sessions", "show", "--session", "bench-1"});
  ASSERT_EQ(show.exit_code, 0) << show.err;
  EXPECT_THAT(show.out, AllOf(StartsWith("session: bench-1\n"), HasSubstr("(after 2h idle)"),
                              HasSubstr("labels: owner=ci,rig=hil3\n"),
                              HasSubstr("default parameters: nu 0.5, scale reference-std\n"),
                              HasSubstr("runs: 4 simulated, 3 reference, ")));
  EXPECT_THAT(show.out,
              ContainsRegex(absl::StrCat("reference +ref_02 +", SamplesIn(Ref() + "/ref_02.csv"),
                                         " +- +steering_angle,yaw_rate,lateral_acceleration\n")));
  EXPECT_THAT(show.out, ContainsRegex(absl::StrCat("simulation +sim_04 +",
                                                   SamplesIn(Sim() + "/sim_04.csv"), " +2 ")));

  const ProgramResult deleted = CliOnServer({"sessions", "delete", "--session", "bench-1"});
  ASSERT_EQ(deleted.exit_code, 0) << deleted.err;
  EXPECT_EQ(deleted.out, "deleted session bench-1\n");
  // Its validations are records: the session stays as a tombstone until it is deleted too.
  const ProgramResult tombstone = CliOnServer({"sessions", "show", "--session", "bench-1"});
  ASSERT_EQ(tombstone.exit_code, 0) << tombstone.err;
  EXPECT_THAT(tombstone.out, HasSubstr("deleted"));
  ASSERT_EQ(CliOnServer({"sessions", "delete", "--session", "bench-1"}).exit_code, 0);
  const ProgramResult gone = CliOnServer({"sessions", "show", "--session", "bench-1"});
  EXPECT_EQ(gone.exit_code, 2);
  EXPECT_THAT(gone.err, AllOf(StartsWith("wasserwarp: "), HasSubstr("bench-1")));
}

TEST_F(E2eCliTest, ServerChoosesTheSessionIdWhenNoneIsGiven) {
  const ProgramResult created = CliOnServer({"sessions", "create"});
  ASSERT_EQ(created.exit_code, 0) << created.err;
  const std::string id(absl::StripTrailingAsciiWhitespace(created.out));
  ASSERT_FALSE(id.empty());
  const ProgramResult show = CliOnServer({"sessions", "show", "--session", id});
  EXPECT_EQ(show.exit_code, 0) << show.err;
  EXPECT_THAT(show.out, AllOf(StartsWith("session: " + id + "\n"),
                              HasSubstr("default parameters: the server's\n"),
                              HasSubstr("runs: 0 simulated, 0 reference, ")));
}

TEST_F(E2eCliTest, UnknownSessionIsBadInput) {
  const ProgramResult result =
      CliOnServer({"validate", "--session", "no-such-session", "--json", "-"});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_THAT(result.err, AllOf(StartsWith("wasserwarp: "), HasSubstr("no-such-session")));
  EXPECT_THAT(result.out, IsEmpty());
}

TEST_F(E2eCliTest, DuplicateRunIsBadInput) {
  ASSERT_EQ(CliOnServer({"sessions", "create", "--session", "dup"}).exit_code, 0);
  ASSERT_EQ(CliOnServer({"upload", "--session", "dup", "--ref", Ref()}).exit_code, 0);
  const ProgramResult again =
      CliOnServer({"upload", "--session", "dup", "--ref", Ref() + "/ref_02.csv"});
  EXPECT_EQ(again.exit_code, 2);
  EXPECT_THAT(again.err, AllOf(StartsWith("wasserwarp: "), HasSubstr("ref_02")));
}

TEST_F(E2eCliTest, UnreachableServerIsAnInternalError) {
  const std::string nowhere = absl::StrCat("127.0.0.1:", wasserwarp::e2e::ClosedPort());
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {"twed", Sim() + "/sim_01.csv", Ref() + "/ref_01.csv", "--server", nowhere},
           {"validate", "--sim", Sim(), "--ref", Ref(), "--server", nowhere},
           {"sessions", "list", "--server", nowhere}}) {
    const ProgramResult result = Cli(args);
    EXPECT_EQ(result.exit_code, 3) << args.front();
    EXPECT_THAT(result.err, StartsWith("wasserwarp: cannot reach server " + nowhere));
  }
}

TEST_F(E2eCliTest, BadFilesAndFlagsFailBeforeTheServerIsAsked) {
  const std::string bad = Write("bad.csv", "time,x\n0,1\n1,oops\n");
  const ProgramResult embedded = Cli({"validate", "--sim", bad, "--ref", Ref()});
  ASSERT_EQ(embedded.exit_code, 2);
  const ProgramResult served = CliOnServer({"validate", "--sim", bad, "--ref", Ref()});
  EXPECT_EQ(served.exit_code, 2);
  EXPECT_EQ(served.err, embedded.err);

  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {"validate", "--sim", Sim(), "--ref", Ref(), "--threads", "2"},
           {"validate", "--session", "s", "--sim", Sim()},
           {"validate", "--session", "s", "--nu", "-1"},
           {"sessions", "create", "--ttl", "soon"},
           {"sessions", "create", "--label", "novalue"},
           {"sessions", "list", "--session", "s"},
           {"sessions", "purge"},
           {"upload", "--session", "s"}}) {
    const ProgramResult result = CliOnServer(args);
    EXPECT_EQ(result.exit_code, 2) << absl::StrJoin(args, " ");
    EXPECT_THAT(result.err, StartsWith("wasserwarp: "));
  }
  EXPECT_EQ(Cli({"validate", "--session", "s", "--sim", Sim(), "--ref", Ref()}).exit_code, 2);
}

TEST_F(E2eCliTest, ProgressBarOnlyOnATerminal) {
  const ProgramResult result = wasserwarp::e2e::RunProgramOnTerminal(
      WASSERWARP_CLI, {"validate", "--sim", Sim(), "--ref", Ref(), "--server", Server()}, Path(""));
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_THAT(result.err,
              AllOf(HasSubstr("] "), HasSubstr("%"), HasSubstr(" pairs"), EndsWith("\r\033[K")));
  EXPECT_THAT(result.out, StartsWith("distance: "));
}

}  // namespace
