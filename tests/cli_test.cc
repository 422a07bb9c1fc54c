// Runs the real `wasserwarp` binary: the exit status, stdout and stderr are the contract that
// release pipelines depend on.

#include <fcntl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <spawn.h>
#include <stdlib.h>
#include <sys/wait.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

extern char** environ;

namespace {

namespace fs = std::filesystem;
using ::testing::AllOf;
using ::testing::ContainsRegex;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::MatchesRegex;
using ::testing::StartsWith;

struct CliResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream content;
  content << in.rdbuf();
  return content.str();
}

constexpr char kA[] = "time,x\n0,1\n1,2\n2,3\n";
constexpr char kB[] = "time,x\n0,4\n1,5\n2,6\n3,7\n";

class CliTest : public testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::path(testing::TempDir()) / "cli_test_XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
  }
  void TearDown() override {
    std::error_code ignored;
    fs::remove_all(dir_, ignored);
  }

  std::string Path(const std::string& name) const { return (dir_ / name).string(); }

  std::string Write(const std::string& name, const std::string& content) const {
    const fs::path file = dir_ / name;
    fs::create_directories(file.parent_path());
    std::ofstream(file, std::ios::binary) << content;
    return file.string();
  }

  // Three simulated runs against two reference runs, two channels each.
  void WriteRunSets() const {
    Write("sim/s1.csv", "time,x,y\n0,0,1\n0.5,1,1\n1,2,0\n");
    Write("sim/s2.csv", "time,x,y\n0,0,2\n0.5,2,1\n1,3,1\n1.5,3,0\n");
    Write("sim/s3.csv", "time,x,y\n10,5,5\n10.5,6,5\n11,7,6\n");
    Write("ref/r1.csv", "time,x,y\n0,0,1\n0.5,1.5,1\n1,2,0\n");
    Write("ref/r2.csv", "time,y,x\n0,2,0\n0.4,1,2\n1.1,1,3\n");
  }

  CliResult Run(const std::vector<std::string>& args) const {
    return RunProgram(WASSERWARP_CLI, args);
  }

  CliResult RunProgram(const std::string& program, const std::vector<std::string>& args) const {
    std::vector<std::string> argv_strings = {program};
    argv_strings.insert(argv_strings.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (std::string& arg : argv_strings) argv.push_back(arg.data());
    argv.push_back(nullptr);

    const std::string out_path = Path("cli.stdout");
    const std::string err_path = Path("cli.stderr");
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                     0644);
    posix_spawn_file_actions_addopen(&actions, 2, err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                     0644);
    CliResult result;
    pid_t pid = 0;
    const int spawned = posix_spawn(&pid, program.c_str(), &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    EXPECT_EQ(spawned, 0) << "cannot start " << program;
    if (spawned != 0) return result;
    int status = 0;
    waitpid(pid, &status, 0);
    result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    result.out = ReadFile(out_path);
    result.err = ReadFile(err_path);
    return result;
  }

  // Runs `args`, expects exit status 2 and one error line on stderr containing `message`.
  void ExpectBadInput(const std::vector<std::string>& args, const std::string& message) const {
    const CliResult result = Run(args);
    EXPECT_EQ(result.exit_code, 2) << result.err;
    EXPECT_THAT(result.err, AllOf(StartsWith("wasserwarp: "), HasSubstr(message)));
    EXPECT_THAT(result.out, IsEmpty());
  }

 private:
  fs::path dir_;
};

TEST_F(CliTest, HelpGoesToStdoutWithSuccess) {
  for (const std::vector<std::string>& args :
       std::vector<std::vector<std::string>>{{"--help"}, {"help"}, {"-h"}}) {
    const CliResult result = Run(args);
    EXPECT_EQ(result.exit_code, 0);
    EXPECT_THAT(result.out, AllOf(StartsWith("usage: wasserwarp <command>"), HasSubstr("twed"),
                                  HasSubstr("validate")));
    EXPECT_THAT(result.err, IsEmpty());
  }
  for (const std::string command : {"twed", "validate"}) {
    for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
             {command, "--help"}, {"help", command}, {command, "--bogus", "-h"}}) {
      const CliResult result = Run(args);
      EXPECT_EQ(result.exit_code, 0);
      EXPECT_THAT(result.out, AllOf(StartsWith("usage: wasserwarp " + command),
                                    HasSubstr("--time-window S"), HasSubstr("--channels a,b")));
    }
  }
  EXPECT_THAT(Run({"validate", "--help"}).out,
              AllOf(HasSubstr("--sim PATH..."), HasSubstr("--json FILE|-"),
                    HasSubstr("--cost-matrix"), HasSubstr("--scale none|reference-std")));
}

TEST_F(CliTest, VersionIsPrinted) {
  const CliResult result = Run({"--version"});
  EXPECT_EQ(result.exit_code, 0);
  EXPECT_THAT(result.out, MatchesRegex("wasserwarp [0-9]+\\.[0-9]+\\.[0-9]+\n"));
}

TEST_F(CliTest, NoCommandPrintsUsageToStderr) {
  const CliResult result = Run({});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_THAT(result.err, StartsWith("usage: wasserwarp"));
  EXPECT_THAT(result.out, IsEmpty());
}

TEST_F(CliTest, UnknownCommand) {
  ExpectBadInput({"compare", "a.csv"}, "unknown command \"compare\"");
  ExpectBadInput({"help", "compare"}, "unknown command \"compare\"");
}

TEST_F(CliTest, TwedReproducesThePublishedExample) {
  const std::string a = Write("a.csv", kA);
  const std::string b = Write("b.csv", kB);
  const CliResult result = Run({"twed", a, b, "--nu", "0.001", "--lambda=1", "--align", "none"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_THAT(result.out, MatchesRegex("[0-9.]+\n"));
  EXPECT_NEAR(std::stod(result.out), 13.005, 1e-9);
  EXPECT_THAT(result.err, IsEmpty());
}

TEST_F(CliTest, TwedPrintsSeventeenSignificantDigits) {
  const std::string a = Write("a.csv", "time,x\n0,0\n1,0.1\n");
  const std::string b = Write("b.csv", "time,x\n0,0\n1,0.3\n");
  const CliResult result = Run({"twed", a, b, "--nu=0"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  // 0.3 - 0.1 is not 0.2 in binary; 17 digits show the difference.
  EXPECT_EQ(result.out, "0.19999999999999998\n");
}

TEST_F(CliTest, TwedEqualsTheCostMatrixEntryOfValidate) {
  WriteRunSets();
  const CliResult twed = Run({"twed", Path("sim/s2.csv"), Path("ref/r2.csv"), "--p", "1"});
  ASSERT_EQ(twed.exit_code, 0) << twed.err;
  const CliResult validate = Run({"validate", "--sim", Path("sim"), "--ref", Path("ref"), "--p",
                                  "1", "--cost-matrix", "--json", "-"});
  ASSERT_EQ(validate.exit_code, 0) << validate.err;
  const nlohmann::json report = nlohmann::json::parse(validate.out);
  EXPECT_EQ(report["cost_matrix"][1][1].get<double>(), std::stod(twed.out));
}

TEST_F(CliTest, ValidateJsonOnStdoutHasEveryKey) {
  WriteRunSets();
  const CliResult result =
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
  const CliResult result = Run({"validate", "--sim", Path("sim"), "--ref", Path("ref"),
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
  const CliResult result = Run({"validate", "--sim", Path("sim"), "--ref", Path("ref"), "--scale",
                                "reference-std", "--json", json_path});
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

TEST_F(CliTest, ValidateUsesWeightFiles) {
  WriteRunSets();
  const std::string weights =
      Write("ref_weights.csv", "id,weight\n# r2 twice as often\nr1,1\nr2,3\n");
  const CliResult result = Run({"validate", "--sim", Path("sim"), "--ref", Path("ref"),
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
  const CliResult generated =
      RunProgram(WASSERWARP_EXAMPLE_DATA, {"--out", data, "--sim-runs", "3", "--ref-runs", "3"});
  ASSERT_EQ(generated.exit_code, 0) << generated.err;

  std::vector<double> distances;
  for (const std::string model : {"sim_a", "sim_b"}) {
    const CliResult result =
        Run({"validate", "--sim", data + "/" + model, "--ref", data + "/ref", "--json", "-"});
    ASSERT_EQ(result.exit_code, 0) << result.err;
    distances.push_back(nlohmann::json::parse(result.out)["distance"].get<double>());
  }
  EXPECT_LT(distances[0], distances[1]);
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
  ExpectBadInput({"twed", a, a, "--nu", "-1"}, "nu must be >= 0");
  ExpectBadInput({"twed", a, a, "--p", "0.5"}, "p must be >= 1");
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
  const CliResult result = Run({"validate", "--sim", Path("sim"), "--ref", only_x});
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
  const CliResult result = Run({"twed", a, b, "--time-window", "0.5", "--align", "none"});
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
