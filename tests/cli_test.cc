// Runs the real `wasserwarp` binary: the exit status, stdout and stderr are the contract that
// release pipelines depend on. Over 500 lines: the commands share one fixture of run files, and
// splitting it would copy the fixture.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "process_runner.h"
#include "scratch_dir.h"

namespace {

namespace fs = std::filesystem;
using ::testing::AllOf;
using ::testing::ContainsRegex;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::MatchesRegex;
using ::testing::Not;
using ::testing::StartsWith;
using ::wasserwarp::test_support::ProgramResult;
using ::wasserwarp::test_support::ReadFile;

constexpr char kA[] = "time,x\n0,1\n1,2\n2,3\n";
constexpr char kB[] = "time,x\n0,4\n1,5\n2,6\n3,7\n";

class CliTest : public testing::Test {
 protected:
  std::string Path(const std::string& name) const { return dir_.Path(name); }

  std::string Write(const std::string& name, const std::string& content) const {
    return dir_.Write(name, content);
  }

  // Three simulated runs against two reference runs, two channels each.
  void WriteRunSets() const {
    Write("sim/s1.csv", "time,x,y\n0,0,1\n0.5,1,1\n1,2,0\n");
    Write("sim/s2.csv", "time,x,y\n0,0,2\n0.5,2,1\n1,3,1\n1.5,3,0\n");
    Write("sim/s3.csv", "time,x,y\n10,5,5\n10.5,6,5\n11,7,6\n");
    Write("ref/r1.csv", "time,x,y\n0,0,1\n0.5,1.5,1\n1,2,0\n");
    Write("ref/r2.csv", "time,y,x\n0,2,0\n0.4,1,2\n1.1,1,3\n");
  }

  ProgramResult Run(const std::vector<std::string>& args) const {
    return RunProgram(WASSERWARP_CLI, args);
  }

  ProgramResult RunProgram(const std::string& program, const std::vector<std::string>& args) const {
    return wasserwarp::test_support::RunProgram(program, args, dir_.root());
  }

  // Runs `args`, expects exit status 2 and one error line on stderr containing `message`.
  void ExpectBadInput(const std::vector<std::string>& args, const std::string& message) const {
    const ProgramResult result = Run(args);
    EXPECT_EQ(result.exit_code, 2) << result.err;
    EXPECT_THAT(result.err, AllOf(StartsWith("wasserwarp: "), HasSubstr(message)));
    EXPECT_THAT(result.out, IsEmpty());
  }

 private:
  const wasserwarp::test_support::ScratchDir dir_{"cli_test_"};
};

TEST_F(CliTest, HelpGoesToStdoutWithSuccess) {
  for (const std::vector<std::string>& args :
       std::vector<std::vector<std::string>>{{"--help"}, {"help"}, {"-h"}}) {
    const ProgramResult result = Run(args);
    EXPECT_EQ(result.exit_code, 0);
    EXPECT_THAT(result.out, AllOf(StartsWith("usage: wasserwarp <command>"), HasSubstr("twed"),
                                  HasSubstr("validate")));
    EXPECT_THAT(result.err, IsEmpty());
  }
  for (const std::string command : {"twed", "validate"}) {
    for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
             {command, "--help"}, {"help", command}, {command, "--bogus", "-h"}}) {
      const ProgramResult result = Run(args);
      EXPECT_EQ(result.exit_code, 0);
      EXPECT_THAT(result.out, AllOf(StartsWith("usage: wasserwarp " + command),
                                    HasSubstr("--time-window S"), HasSubstr("--channels a,b")));
    }
  }
  EXPECT_THAT(Run({"validate", "--help"}).out,
              AllOf(HasSubstr("--sim PATH..."), HasSubstr("--json FILE|-"),
                    HasSubstr("--cost-matrix"), HasSubstr("--scale none|reference-std")));
}

TEST_F(CliTest, ValidationsHelpDocumentsTheNotEndedExitStatus) {
  EXPECT_THAT(Run({"--help"}).out,
              AllOf(HasSubstr("validations list|show|history|latest|cancel|watch|delete --server"),
                    HasSubstr("4 the validation has not ended yet")));
  const ProgramResult help = Run({"validations", "--help"});
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_THAT(help.out, AllOf(StartsWith("usage: wasserwarp validations list"),
                              HasSubstr("--validation V"), HasSubstr("exit status 4"),
                              HasSubstr("--state STATE"), HasSubstr("--token-file")));
  EXPECT_THAT(Run({"validate", "--help"}).out, HasSubstr("--detach"));
}

TEST_F(CliTest, DetachNeedsAServerAndASession) {
  ExpectBadInput({"validate", "--detach"}, "--detach needs --server HOST:PORT and --session ID");
  ExpectBadInput({"validate", "--detach", "--server", "127.0.0.1:1"},
                 "--detach needs --server HOST:PORT and --session ID");
  ExpectBadInput({"validations", "show", "--server", "127.0.0.1:1", "--session", "s"},
                 "validations show: --validation V is required");
  ExpectBadInput({"validations", "list", "--server", "127.0.0.1:1"},
                 "validations list: --session ID or --all-sessions is required");
}

// A CSV run file as inspect shows MDF 4 and MATLAB files: one group, the time its master.
TEST_F(CliTest, InspectShowsACsvRunFile) {
  const std::string path = Write("run.csv", "time,a,b\n0,1,5\n0.5,3,6\n1,2,-7\n");
  ProgramResult result = Run({"inspect", path, "--json"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const nlohmann::json file = nlohmann::json::parse(result.out)["files"][0];
  EXPECT_EQ(file["format"], "csv");
  ASSERT_EQ(file["groups"].size(), 1u);
  EXPECT_EQ(file["groups"][0]["samples"], 3);
  const nlohmann::json& channels = file["groups"][0]["channels"];
  ASSERT_EQ(channels.size(), 3u);
  EXPECT_EQ(channels[0]["name"], "time");
  EXPECT_EQ(channels[0]["master"], true);
  EXPECT_EQ(channels[1]["name"], "a");
  EXPECT_EQ(channels[1]["min"], 1);
  EXPECT_EQ(channels[1]["max"], 3);
  EXPECT_EQ(channels[1]["mean"], 2);
  EXPECT_EQ(channels[2]["time_first"], 0);
  EXPECT_EQ(channels[2]["time_last"], 1);
  EXPECT_EQ(channels[2]["min"], -7);
  result = Run({"inspect", path});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_THAT(result.out, StartsWith(path + ": CSV, 1 group\n"));
  // A bad run file fails as validate would read it: file, line and column.
  ExpectBadInput({"inspect", Write("bad.csv", "time,a\n0,x\n")}, "bad.csv:2:2");
}

TEST_F(CliTest, VersionIsPrinted) {
  const ProgramResult result = Run({"--version"});
  EXPECT_EQ(result.exit_code, 0);
  EXPECT_THAT(result.out, MatchesRegex("wasserwarp [0-9]+\\.[0-9]+\\.[0-9]+\n"));
}

TEST_F(CliTest, NoCommandPrintsUsageToStderr) {
  const ProgramResult result = Run({});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_THAT(result.err, StartsWith("usage: wasserwarp"));
  EXPECT_THAT(result.out, IsEmpty());
}

TEST_F(CliTest, UnknownCommand) {
  ExpectBadInput({"frobnicate", "a.csv"}, "unknown command \"frobnicate\"");
  ExpectBadInput({"help", "frobnicate"}, "unknown command \"frobnicate\"");
}

TEST_F(CliTest, TwedReproducesThePublishedExample) {
  const std::string a = Write("a.csv", kA);
  const std::string b = Write("b.csv", kB);
  const ProgramResult result =
      Run({"twed", a, b, "--nu", "0.001", "--lambda=1", "--align", "none"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_THAT(result.out, MatchesRegex("[0-9.]+\n"));
  EXPECT_NEAR(std::stod(result.out), 13.005, 1e-9);
  EXPECT_THAT(result.err, IsEmpty());
}

TEST_F(CliTest, TwedPrintsSeventeenSignificantDigits) {
  const std::string a = Write("a.csv", "time,x\n0,0\n1,0.1\n");
  const std::string b = Write("b.csv", "time,x\n0,0\n1,0.3\n");
  const ProgramResult result = Run({"twed", a, b, "--nu=0"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  // 0.3 - 0.1 is not 0.2 in binary; 17 digits show the difference.
  EXPECT_EQ(result.out, "0.19999999999999998\n");
}

TEST_F(CliTest, TwedEqualsTheCostMatrixEntryOfValidate) {
  WriteRunSets();
  const ProgramResult twed = Run({"twed", Path("sim/s2.csv"), Path("ref/r2.csv"), "--p", "1"});
  ASSERT_EQ(twed.exit_code, 0) << twed.err;
  const ProgramResult validate = Run({"validate", "--sim", Path("sim"), "--ref", Path("ref"), "--p",
                                      "1", "--cost-matrix", "--json", "-"});
  ASSERT_EQ(validate.exit_code, 0) << validate.err;
  const nlohmann::json report = nlohmann::json::parse(validate.out);
  EXPECT_EQ(report["cost_matrix"][1][1].get<double>(), std::stod(twed.out));
}

TEST_F(CliTest, ValidateJsonOnStdoutHasEveryKey) {
  WriteRunSets();
  const ProgramResult result =
      Run({"validate", "--sim", Path("sim/s1.csv"), Path("sim/s2.csv"), Path("sim/s3.csv"),
           "--ref=" + Path("ref"), "--nu", "0.01", "--json", "-", "--threads", "2"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  ASSERT_TRUE(nlohmann::json::accept(result.out)) << result.out;
  const nlohmann::json report = nlohmann::json::parse(result.out);
  for (const char* key :
       {"distance", "order", "solver", "params", "simulation", "reference", "plan",
        "sim_contributions", "ref_contributions", "pairs", "certificate"}) {
    EXPECT_TRUE(report.contains(key)) << key;
  }
  EXPECT_FALSE(report.contains("cost_matrix"));
  EXPECT_GT(report["distance"].get<double>(), 0.0);
  EXPECT_EQ(report["order"], 1.0);
  const nlohmann::json& params = report["params"];
  EXPECT_EQ(params["nu"], 0.01);
  EXPECT_EQ(params["lambda"], 0.0);
  EXPECT_EQ(params["p"], 2.0);
  EXPECT_TRUE(params["time_window"].is_null());
  EXPECT_EQ(params["align"], "start");
  EXPECT_EQ(params["scale"], "none");
  ASSERT_EQ(report["simulation"].size(), 3u);
  EXPECT_EQ(report["simulation"][2]["id"], "s3");
  EXPECT_EQ(report["simulation"][1]["samples"], 4);
  EXPECT_NEAR(report["simulation"][0]["weight"].get<double>(), 1.0 / 3.0, 1e-15);
  ASSERT_EQ(report["reference"].size(), 2u);
  EXPECT_EQ(report["reference"][1]["id"], "r2");
  ASSERT_FALSE(report["plan"].empty());
  for (const char* key : {"sim", "ref", "mass", "cost"}) {
    EXPECT_TRUE(report["plan"][0].contains(key)) << key;
  }
  ASSERT_EQ(report["pairs"].size(), report["plan"].size());
  for (const char* key :
       {"sim", "ref", "twed", "matches", "sim_deletions", "ref_deletions", "mean_time_shift"}) {
    EXPECT_TRUE(report["pairs"][0].contains(key)) << key;
  }
  EXPECT_EQ(report["sim_contributions"].size(), 3u);
  EXPECT_EQ(report["ref_contributions"].size(), 2u);
  EXPECT_TRUE(report["certificate"].contains("max_dual_violation"));
  EXPECT_TRUE(report["certificate"].contains("primal_dual_gap"));
  // The summary moves to stderr so that stdout stays pure JSON.
  EXPECT_THAT(result.err, HasSubstr("distance: "));
}

TEST_F(CliTest, ValidateCostMatrixOnRequest) {
  WriteRunSets();
  const ProgramResult result = Run({"validate", "--sim", Path("sim"), "--ref", Path("ref"),
                                    "--cost-matrix", "--json", "-", "--order", "2"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const nlohmann::json report = nlohmann::json::parse(result.out);
  ASSERT_TRUE(report.contains("cost_matrix"));
  ASSERT_EQ(report["cost_matrix"].size(), 3u);
  EXPECT_EQ(report["cost_matrix"][0].size(), 2u);
  EXPECT_EQ(report["order"], 2.0);
}

TEST_F(CliTest, ValidatePrintsTheSummaryAndWritesJsonToAFile) {
  WriteRunSets();
  const std::string json_path = Path("out/report.json");
  fs::create_directories(Path("out"));
  const ProgramResult result = Run({"validate", "--sim", Path("sim"), "--ref", Path("ref"),
                                    "--scale", "reference-std", "--json", json_path});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_THAT(result.out,
              AllOf(ContainsRegex("distance: [0-9.e+-]+ \\(Wasserstein order 1 of TWED\\)"),
                    HasSubstr("solver: "),
                    HasSubstr("sizes: 3 simulated runs, 2 reference runs, 2 channels, "),
                    HasSubstr("worst simulated runs by contribution"), HasSubstr("s3"),
                    HasSubstr("matched to r"), HasSubstr("certificate: max dual violation "),
                    HasSubstr("time: ")));
  EXPECT_THAT(result.err, IsEmpty());
  const nlohmann::json report = nlohmann::json::parse(ReadFile(json_path));
  EXPECT_EQ(report["params"]["scale"], "reference-std");
}

TEST_F(CliTest, MetricsUndefinedForEveryPairAreADashAndSayWhy) {
  Write("sim/s1.csv", "time,x\n0.02,1\n");
  Write("sim/s2.csv", "time,x\n0.03,2\n");
  Write("ref/r1.csv", "time,x\n0.01,1.5\n");
  Write("ref/r2.csv", "time,x\n0.04,2.5\n");
  const ProgramResult result = Run({"validate", "--sim", Path("sim"), "--ref", Path("ref")});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_THAT(result.out, AllOf(HasSubstr("  x: -  -  -  -/-/-  -\n"),
                                HasSubstr("-: undefined for every matched pair: the runs share no "
                                          "span of time (runs of one\n"),
                                Not(HasSubstr("nan"))));
}

TEST_F(CliTest, ValidateUsesWeightFiles) {
  WriteRunSets();
  const std::string weights =
      Write("ref_weights.csv", "id,weight\n# r2 twice as often\nr1,1\nr2,3\n");
  const ProgramResult result = Run({"validate", "--sim", Path("sim"), "--ref", Path("ref"),
                                    "--ref-weights", weights, "--json", "-"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const nlohmann::json report = nlohmann::json::parse(result.out);
  EXPECT_NEAR(report["reference"][0]["weight"].get<double>(), 0.25, 1e-12);
  EXPECT_NEAR(report["reference"][1]["weight"].get<double>(), 0.75, 1e-12);
}

// The product's claim end to end: on the demo data, the model with a wrong front cornering
// stiffness is further from the measurements than the nominal one.
TEST_F(CliTest, DemoDataRanksTheWrongModelWorse) {
  const std::string data = Path("demo");
  const ProgramResult generated =
      RunProgram(WASSERWARP_EXAMPLE_DATA, {"--out", data, "--sim-runs", "3", "--ref-runs", "3"});
  ASSERT_EQ(generated.exit_code, 0) << generated.err;

  std::vector<double> distances;
  for (const std::string model : {"sim_a", "sim_b"}) {
    const ProgramResult result =
        Run({"validate", "--sim", data + "/" + model, "--ref", data + "/ref", "--json", "-"});
    ASSERT_EQ(result.exit_code, 0) << result.err;
    distances.push_back(nlohmann::json::parse(result.out)["distance"].get<double>());
  }
  EXPECT_LT(distances[0], distances[1]);
}

// The lazy transport (the default) and --exhaustive give the same W, and the JSON says how much
// of the matrix each computed.
TEST_F(CliTest, ExhaustiveGivesTheSameDistanceFromEveryPair) {
  const std::string data = Path("demo");
  const ProgramResult generated =
      RunProgram(WASSERWARP_EXAMPLE_DATA, {"--out", data, "--sim-runs", "6", "--ref-runs", "5"});
  ASSERT_EQ(generated.exit_code, 0) << generated.err;
  std::vector<nlohmann::json> reports;
  for (const bool exhaustive : {false, true}) {
    std::vector<std::string> args = {"validate", "--sim", data + "/sim_b", "--ref", data + "/ref",
                                     "--lambda", "0.3",   "--json",        "-"};
    if (exhaustive) args.push_back("--exhaustive");
    const ProgramResult result = Run(args);
    ASSERT_EQ(result.exit_code, 0) << result.err;
    reports.push_back(nlohmann::json::parse(result.out));
  }
  EXPECT_NEAR(reports[0]["distance"].get<double>(), reports[1]["distance"].get<double>(),
              1e-12 * reports[1]["distance"].get<double>());
  for (const nlohmann::json& report : reports) {
    EXPECT_EQ(report["pairs_total"], 30);
    EXPECT_LE(report["pairs_computed"].get<int>(), 30);
    EXPECT_GT(report["dp_cells_full"].get<uint64_t>(), 0u);
    EXPECT_LE(report["int16_cells"].get<uint64_t>(), report["dp_cells_full"].get<uint64_t>());
    EXPECT_LE(report["single_cells"].get<uint64_t>(), report["dp_cells_full"].get<uint64_t>());
  }
  EXPECT_EQ(reports[1]["pairs_computed"], 30);
  EXPECT_EQ(reports[1]["int16_cells"], 0);
  EXPECT_EQ(reports[1]["single_cells"], 0);
  EXPECT_EQ(reports[1]["dp_cells"], reports[1]["dp_cells_full"]);
}

TEST_F(CliTest, VerdictPassExitsZeroAndFailExitsOne) {
  WriteRunSets();
  const std::vector<std::string> runs = {"validate", "--sim",     Path("sim"),
                                         "--ref",    Path("ref"), "--permutations",
                                         "19",       "--json",    "-"};
  std::vector<std::string> pass = runs;
  pass.insert(pass.end(), {"--max-distance", "1e9", "--qoi", "x:max,y:value_at:0.5"});
  const ProgramResult passed = Run(pass);
  ASSERT_EQ(passed.exit_code, 0) << passed.err;
  const nlohmann::json report = nlohmann::json::parse(passed.out);
  EXPECT_EQ(report["verdict"]["pass"], true);
  EXPECT_EQ(report["verdict"]["permutations"], 19);
  EXPECT_EQ(report["verdict"]["rules"][0]["name"], "max_distance");
  EXPECT_EQ(report["qoi"].size(), 2u);
  EXPECT_EQ(report["pair_metrics"].size(), 2 * report["plan"].size());
  EXPECT_THAT(passed.err, AllOf(HasSubstr("verdict: PASS"), HasSubstr("permutation test: p = "),
                                HasSubstr("area validation metric x:max: ")));

  std::vector<std::string> fail = runs;
  fail.insert(fail.end(), {"--max-distance", "0"});
  const ProgramResult failed = Run(fail);
  EXPECT_EQ(failed.exit_code, 1) << failed.err;
  EXPECT_EQ(nlohmann::json::parse(failed.out)["verdict"]["pass"], false);
  EXPECT_THAT(failed.err, AllOf(HasSubstr("rule max_distance: "), HasSubstr("verdict: FAIL")));

  // Without a rule the report has the test but no judgement.
  const ProgramResult unjudged = Run(runs);
  ASSERT_EQ(unjudged.exit_code, 0) << unjudged.err;
  EXPECT_TRUE(nlohmann::json::parse(unjudged.out)["verdict"]["pass"].is_null());
}

TEST_F(CliTest, HtmlReportIsWrittenAndTheJsonKeepsItsShape) {
  WriteRunSets();
  const std::string page_path = Path("report.html");
  const ProgramResult result = Run({"validate", "--sim", Path("sim"), "--ref", Path("ref"),
                                    "--max-distance", "100", "--report", page_path, "--json", "-"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const std::string page = ReadFile(page_path);
  EXPECT_THAT(page, AllOf(StartsWith("<!DOCTYPE html>"), HasSubstr("s3"), HasSubstr("r2")));
  const nlohmann::json report = nlohmann::json::parse(result.out);
  EXPECT_FALSE(report.contains("cost_matrix"));
  EXPECT_FALSE(report.contains("pooled_cost_matrix"));
  ExpectBadInput({"validate", "--sim", Path("sim"), "--ref", Path("ref"), "--report",
                  Path("no/such/dir/report.html")},
                 "no/such/dir/report.html: cannot write");
}

TEST_F(CliTest, BadVerdictFlags) {
  WriteRunSets();
  const std::vector<std::string> runs = {"validate", "--sim", Path("sim"), "--ref", Path("ref")};
  const auto with = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = runs;
    args.insert(args.end(), extra.begin(), extra.end());
    return args;
  };
  ExpectBadInput(with({"--alpha", "x"}), "--alpha: expected a number");
  ExpectBadInput(with({"--alpha", "1.5"}), "alpha");
  ExpectBadInput(with({"--permutations", "0"}), "permutations");
  ExpectBadInput(with({"--max-distance", "-1"}), "--max-distance: must be a finite number >= 0");
  ExpectBadInput(with({"--min-iso-rating", "1.5"}),
                 "--min-iso-rating: must be between 0 and 1, got 1.5");
  ExpectBadInput(with({"--min-iso-rating", "x"}), "--min-iso-rating: expected a number");
  ExpectBadInput(with({"--seed", "7"}), "--seed: needs a decision rule");
  ExpectBadInput(with({"--seed", "-7", "--alpha", "0.05"}), "--seed: expected a non-negative");
  ExpectBadInput(with({"--qoi", "x:median"}), "--qoi: ");
  ExpectBadInput(with({"--qoi", "speed:max"}), "speed");
}

// Sizes the options imply are checked before any work, against this machine's limits.
TEST_F(CliTest, OptionsThatImplyTooMuchAreRefusedBeforeAnyWork) {
  WriteRunSets();
  ExpectBadInput({"validate", "--sim", Path("sim"), "--ref", Path("ref"), "--resample", "1e12"},
                 "--resample: simulated run");
  ExpectBadInput({"validate", "--sim", Path("sim"), "--ref", Path("ref"), "--resample", "1e12"},
                 "(the embedded engine's samples per run)");
  const std::string a = Write("a.csv", kA);
  ExpectBadInput({"twed", a, a, "--resample", "1e300"}, "--resample: ");
}

TEST_F(CliTest, MissingFile) {
  const std::string a = Write("a.csv", kA);
  ExpectBadInput({"twed", a, Path("missing.csv")}, Path("missing.csv"));
  ExpectBadInput({"validate", "--sim", Path("nope"), "--ref", a}, Path("nope") + ": no such file");
}

TEST_F(CliTest, DirectoryWithoutRuns) {
  const std::string a = Write("a.csv", kA);
  Write("empty/readme.txt", "");
  ExpectBadInput({"validate", "--sim", a, "--ref", Path("empty")}, Path("empty"));
}

TEST_F(CliTest, BadCsvNamesFileLineAndColumn) {
  const std::string a = Write("a.csv", kA);
  const std::string bad = Write("bad.csv", "time,x\n0,1\n1,2e\n");
  ExpectBadInput({"twed", a, bad}, bad + ":3:2: expected a number, got \"2e\"");
  const std::string fields = Write("fields.csv", "time,x\n0,1,5\n");
  ExpectBadInput({"validate", "--sim", a, "--ref", fields}, fields + ":2:3: expected 2 fields");
}

TEST_F(CliTest, NonIncreasingTime) {
  const std::string a = Write("a.csv", kA);
  const std::string bad = Write("bad.csv", "time,x\n0,1\n2,2\n1.5,3\n");
  ExpectBadInput({"validate", "--sim", a, "--ref", bad},
                 bad + ":4:1: time 1.5 is not after time 2 on line 3");
}

TEST_F(CliTest, NanValue) {
  const std::string a = Write("a.csv", kA);
  const std::string bad = Write("bad.csv", "time,x\n0,nan\n");
  ExpectBadInput({"twed", bad, a}, bad + ":2:2: expected a finite number, got \"nan\"");
}

TEST_F(CliTest, DuplicateRunIdsNameBothFiles) {
  const std::string first = Write("a/run.csv", kA);
  const std::string second = Write("b/run.csv", kB);
  ExpectBadInput({"validate", "--sim", first, second, "--ref", Path("b")},
                 "duplicate run id \"run\": " + first + " and " + second);
}

TEST_F(CliTest, UnknownFlag) {
  const std::string a = Write("a.csv", kA);
  ExpectBadInput({"twed", a, a, "--bogus", "1"}, "twed: unknown flag --bogus");
  ExpectBadInput({"twed", a, a, "-nu", "1"}, "unknown flag -nu");
  ExpectBadInput({"validate", "--sim", a, "--ref", a, "--time_window", "1"},
                 "unknown flag --time_window");
  ExpectBadInput({"twed", a, a, "--cost-matrix"}, "unknown flag --cost-matrix");
}

TEST_F(CliTest, MissingFlagValue) {
  const std::string a = Write("a.csv", kA);
  ExpectBadInput({"twed", a, a, "--nu"}, "--nu: needs a value");
  ExpectBadInput({"twed", a, a, "--nu=", "1"}, "--nu: needs a value");
  ExpectBadInput({"validate", "--sim", "--ref", a}, "--sim: needs a value");
  ExpectBadInput({"validate", "--sim", a, "--ref", a, "--json", "--cost-matrix"},
                 "--json: needs a value");
  ExpectBadInput({"validate", "--sim", a, "--ref", a, "--cost-matrix=yes"},
                 "--cost-matrix: takes no value");
  ExpectBadInput({"twed", a, a, "--nu", "1", "--nu", "2"}, "--nu: given twice");
}

TEST_F(CliTest, BadNumber) {
  const std::string a = Write("a.csv", kA);
  ExpectBadInput({"twed", a, a, "--nu", "abc"}, "--nu: expected a number, got \"abc\"");
  ExpectBadInput({"twed", a, a, "--time-window=1,5"}, "--time-window: expected a number");
  ExpectBadInput({"twed", a, a, "--lambda", "nan"}, "--lambda: expected a finite number");
  ExpectBadInput({"validate", "--sim", a, "--ref", a, "--order", "x"},
                 "--order: expected a number");
  ExpectBadInput({"validate", "--sim", a, "--ref", a, "--threads", "1.5"},
                 "--threads: expected an integer");
  ExpectBadInput({"validate", "--sim", a, "--ref", a, "--threads", "0"},
                 "--threads: must be at least 1");
  ExpectBadInput({"twed", a, a, "--nu", "-1"}, "--nu: must be >= 0");
  ExpectBadInput({"twed", a, a, "--p", "0.5"}, "--p: must be >= 1");
  ExpectBadInput({"validate", "--sim", a, "--ref", a, "--order", "0.5"}, "0.5");
}

TEST_F(CliTest, BadAlignOrScale) {
  const std::string a = Write("a.csv", kA);
  ExpectBadInput({"twed", a, a, "--align", "end"}, "--align: ");
  ExpectBadInput({"validate", "--sim", a, "--ref", a, "--scale", "std"}, "--scale: ");
}

TEST_F(CliTest, ChannelMissingInOneRun) {
  WriteRunSets();
  const std::string only_x = Write("only_x.csv", "time,x\n0,1\n1,2\n");
  const ProgramResult result = Run({"validate", "--sim", Path("sim"), "--ref", only_x});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_THAT(result.err,
              AllOf(StartsWith("wasserwarp: "), HasSubstr("\"only_x\""), HasSubstr("\"y\"")));
  ExpectBadInput({"twed", Path("sim/s1.csv"), Path("ref/r1.csv"), "--channels", "x,z"}, "\"z\"");
  ExpectBadInput({"twed", Path("sim/s1.csv"), Path("ref/r1.csv"), "--channels", "x,,y"},
                 "--channels: empty channel name");
}

TEST_F(CliTest, WeightsFileErrors) {
  WriteRunSets();
  const std::string negative = Write("w1.csv", "r1,1\nr2,-1\n");
  ExpectBadInput(
      {"validate", "--sim", Path("sim"), "--ref", Path("ref"), "--ref-weights", negative},
      negative + ":2:2: a weight must not be negative");
  const std::string unknown = Write("w2.csv", "r1,1\nr2,1\nghost,1\n");
  ExpectBadInput({"validate", "--sim", Path("sim"), "--ref", Path("ref"), "--ref-weights", unknown},
                 unknown + ": weight for unknown run \"ghost\"");
  const std::string missing = Write("w3.csv", "s1,1\ns3,1\n");
  ExpectBadInput({"validate", "--sim", Path("sim"), "--ref", Path("ref"), "--sim-weights", missing},
                 missing + ": no weight for run \"s2\"");
  ExpectBadInput(
      {"validate", "--sim", Path("sim"), "--ref", Path("ref"), "--sim-weights", Path("w4.csv")},
      Path("w4.csv"));
}

TEST_F(CliTest, InfeasibleTimeWindow) {
  const std::string a = Write("near.csv", "time,x\n0,1\n1,2\n2,3\n");
  const std::string b = Write("far.csv", "time,x\n0,1\n10,2\n20,3\n");
  const ProgramResult result = Run({"twed", a, b, "--time-window", "0.5", "--align", "none"});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_THAT(result.err, AllOf(StartsWith("wasserwarp: "), HasSubstr("near"), HasSubstr("far"),
                                HasSubstr("time window")));
  ExpectBadInput({"validate", "--sim", a, "--ref", b, "--time-window", "0.5"}, "time window");
}

TEST_F(CliTest, RunsAreRequired) {
  const std::string a = Write("a.csv", kA);
  ExpectBadInput({"validate", "--ref", a}, "--sim PATH... is required");
  ExpectBadInput({"validate", "--sim", a}, "--ref PATH... is required");
  ExpectBadInput({"validate", a, "--sim", a, "--ref", a}, "unexpected argument");
  ExpectBadInput({"twed", a}, "expected two run files A.csv B.csv, got 1");
}

}  // namespace

namespace {

TEST_F(CliTest, VerdictOnGroupsAtDifferentRatesIsThinnedOrRefused) {
  WriteRunSets();
  Write("fast/f1.csv", "time,x,y\n0,0,1\n0.25,0.5,1\n0.5,1,1\n0.75,1.5,0.5\n1,2,0\n");
  Write("fast/f2.csv", "time,x,y\n0,0,2\n0.25,1,1.5\n0.5,2,1\n0.75,2.5,1\n1,3,1\n");
  const std::vector<std::string> runs = {"validate", "--sim",          Path("sim"),
                                         "--ref",    Path("fast"),     "--alpha",
                                         "0.05",     "--permutations", "19"};
  std::vector<std::string> none = runs;
  none.insert(none.end(), {"--resample", "none"});
  ExpectBadInput(none,
                 "--resample: none, but simulated runs are sampled at 2 Hz and reference "
                 "runs at 4 Hz");
  const ProgramResult thinned = Run(runs);
  ASSERT_EQ(thinned.exit_code, 0) << thinned.err;
  EXPECT_THAT(thinned.out, HasSubstr("verdict computed on runs thinned to 2 Hz"));

  std::vector<std::string> bad_rule = runs;
  bad_rule.insert(bad_rule.end(), {"--ratio-rule", "mean"});
  ExpectBadInput(bad_rule, "--ratio-rule: unknown rule \"mean\"");
  ExpectBadInput({"validate", "--sim", Path("sim"), "--ref", Path("ref"), "--ratio-rule", "median"},
                 "--ratio-rule: needs a decision rule");
}

}  // namespace
