// Runs the real `wasserwarp compare`: the exit status, stdout and stderr are the contract that
// release pipelines depend on.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <tuple>
#include <vector>

#include "cli_output.h"
#include "process_runner.h"
#include "scratch_dir.h"

namespace {

namespace fs = std::filesystem;
using ::testing::AllOf;
using ::testing::ContainsRegex;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::StartsWith;

using ::wasserwarp::test_support::ProgramResult;
using ::wasserwarp::test_support::ReadFile;
using ::wasserwarp::test_support::ReportWithoutSeconds;
using ::wasserwarp::test_support::ScratchDir;

// Demo data once for every test: 4 runs of each variant (the same random inputs, so the same
// ids) against 3 reference runs.
class CliCompareTest : public testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new ScratchDir("cli_compare_test_");
    ASSERT_FALSE(dir_->root().empty());
    const ProgramResult data = RunProgram(
        WASSERWARP_EXAMPLE_DATA, {"--out", Path("data"), "--sim-runs", "4", "--ref-runs", "3"});
    ASSERT_EQ(data.exit_code, 0) << data.err;
  }

  static void TearDownTestSuite() { delete dir_; }

  static std::string Path(const std::string& name) { return dir_->Path(name); }
  static std::string SimA() { return Path("data/sim_a"); }
  static std::string SimB() { return Path("data/sim_b"); }
  static std::string Ref() { return Path("data/ref"); }

  static std::string Write(const std::string& name, const std::string& content) {
    return dir_->Write(name, content);
  }

  static ProgramResult Run(const std::vector<std::string>& args) {
    return RunProgram(WASSERWARP_CLI, args);
  }

  // `compare` of the demo variants with `extra` flags.
  static ProgramResult Compare(const std::vector<std::string>& extra) {
    std::vector<std::string> args = {"compare", "--sim-a", SimA(),        "--sim-b", SimB(),
                                     "--ref",   Ref(),     "--resamples", "99"};
    args.insert(args.end(), extra.begin(), extra.end());
    return Run(args);
  }

  static ProgramResult RunProgram(const std::string& program,
                                  const std::vector<std::string>& args) {
    return wasserwarp::test_support::RunProgram(program, args, dir_->root());
  }

  // Runs `args`, expects exit status 2 and one error line on stderr containing `message`.
  static void ExpectBadInput(const std::vector<std::string>& args, const std::string& message) {
    const ProgramResult result = Run(args);
    EXPECT_EQ(result.exit_code, 2) << result.err;
    EXPECT_THAT(result.err, AllOf(StartsWith("wasserwarp: "), HasSubstr(message)));
    EXPECT_THAT(result.out, IsEmpty());
  }

  static ScratchDir* dir_;
};

ScratchDir* CliCompareTest::dir_ = nullptr;

TEST_F(CliCompareTest, HelpDescribesEveryFlag) {
  for (const std::vector<std::string>& args :
       std::vector<std::vector<std::string>>{{"compare", "--help"}, {"help", "compare"}}) {
    const ProgramResult result = Run(args);
    EXPECT_EQ(result.exit_code, 0);
    EXPECT_THAT(result.out,
                AllOf(StartsWith("usage: wasserwarp compare --sim-a PATH... --sim-b PATH..."),
                      HasSubstr("--ref PATH..."), HasSubstr("--scale none|reference-std"),
                      HasSubstr("--order Q"), HasSubstr("--resamples K"),
                      HasSubstr("--confidence C"), HasSubstr("--seed S"), HasSubstr("--threads N"),
                      HasSubstr("--json FILE|-"), HasSubstr("--server HOST:PORT")));
  }
  EXPECT_THAT(Run({"--help"}).out, HasSubstr("wasserwarp compare --sim-a PATH..."));
}

TEST_F(CliCompareTest, JsonOnStdoutHasEveryKeyInOrder) {
  const ProgramResult result = Compare({"--json", "-", "--confidence", "0.9", "--seed", "7"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  ASSERT_TRUE(nlohmann::json::accept(result.out)) << result.out;
  const nlohmann::ordered_json report = nlohmann::ordered_json::parse(result.out);
  std::vector<std::string> keys;
  for (const auto& item : report.items()) keys.push_back(item.key());
  EXPECT_THAT(keys,
              ElementsAre("distance_a", "distance_b", "difference", "interval", "interval_method",
                          "bias_correction", "acceleration", "paired", "variance_gain", "resamples",
                          "confidence", "seed", "runs", "dp_cells", "seconds"));
  EXPECT_EQ(report["difference"].get<double>(),
            report["distance_a"].get<double>() - report["distance_b"].get<double>());
  ASSERT_EQ(report["interval"].size(), 2u);
  EXPECT_LE(report["interval"][0].get<double>(), report["interval"][1].get<double>());
  // sim_a and sim_b are the same random draws, run for run.
  EXPECT_EQ(report["paired"], true);
  EXPECT_GT(report["variance_gain"].get<double>(), 0.0);
  EXPECT_EQ(report["resamples"], 99);
  EXPECT_EQ(report["confidence"], 0.9);
  EXPECT_EQ(report["seed"], 7);
  EXPECT_EQ(report["runs"], nlohmann::ordered_json({{"a", 4}, {"b", 4}, {"ref", 3}}));
  EXPECT_GT(report["dp_cells"].get<uint64_t>(), 0u);
  // The summary moves to stderr so that stdout stays pure JSON.
  EXPECT_THAT(result.err, AllOf(StartsWith("W_a: "), HasSubstr("90% interval: [")));
}

TEST_F(CliCompareTest, DistancesAreWhatValidateReportsForEachVariant) {
  const std::vector<std::string> flags = {"--scale", "reference-std", "--lambda", "0.3"};
  std::vector<std::string> compare_flags = flags;
  compare_flags.insert(compare_flags.end(), {"--json", "-"});
  const ProgramResult compared = Compare(compare_flags);
  ASSERT_EQ(compared.exit_code, 0) << compared.err;
  const nlohmann::json report = nlohmann::json::parse(compared.out);
  for (const auto& [sim, key] :
       {std::pair{SimA(), "distance_a"}, std::pair{SimB(), "distance_b"}}) {
    std::vector<std::string> args = {"validate", "--sim", sim, "--ref", Ref(), "--json", "-"};
    args.insert(args.end(), flags.begin(), flags.end());
    const ProgramResult validated = Run(args);
    ASSERT_EQ(validated.exit_code, 0) << validated.err;
    EXPECT_EQ(report[key].get<double>(),
              nlohmann::json::parse(validated.out)["distance"].get<double>())
        << key;
  }
  // The wrong model is the further one, clearly.
  EXPECT_LT(report["interval"][1].get<double>(), 0.0);
  EXPECT_THAT(compared.err, HasSubstr("result: variant A is closer to the references"));
}

TEST_F(CliCompareTest, Iso18571RatesEachVariantAsValidateRatesIt) {
  const ProgramResult compared = Compare({"--iso18571", "--json", "-"});
  ASSERT_EQ(compared.exit_code, 0) << compared.err;
  const nlohmann::ordered_json report = nlohmann::ordered_json::parse(compared.out);
  for (const auto& [sim, key, prefix] :
       {std::tuple{SimA(), "a", "variant A: "}, std::tuple{SimB(), "b", "variant B: "}}) {
    const ProgramResult validated =
        Run({"validate", "--sim", sim, "--ref", Ref(), "--iso18571", "--json", "-"});
    ASSERT_EQ(validated.exit_code, 0) << validated.err;
    const nlohmann::ordered_json expected = nlohmann::ordered_json::parse(validated.out);
    ASSERT_TRUE(report.contains(key)) << key;
    // The same plan pairs (sim, ref), channels and numbers, bit for bit.
    ASSERT_FALSE(expected["iso18571"].empty());
    EXPECT_EQ(report[key]["iso18571"], expected["iso18571"]) << key;
    EXPECT_EQ(report[key]["iso18571_average"], expected["iso18571_average"]) << key;
    EXPECT_EQ(report[key].contains("iso18571_warnings"), expected.contains("iso18571_warnings"));
    EXPECT_THAT(compared.err, HasSubstr(std::string(prefix) + "ISO/TS 18571, plan-weighted"));
  }
  // Without the flag the comparison has neither section.
  const nlohmann::json plain = nlohmann::json::parse(Compare({"--json", "-"}).out);
  EXPECT_FALSE(plain.contains("a"));
  EXPECT_FALSE(plain.contains("b"));

  EXPECT_THAT(Run({"compare", "--help"}).out, HasSubstr("--iso18571"));
  // compare judges nothing: the verdict's rule on the ratings is validate's.
  ExpectBadInput({"compare", "--sim-a", SimA(), "--sim-b", SimB(), "--ref", Ref(), "--iso18571",
                  "--min-iso-rating", "0.5"},
                 "--min-iso-rating");
  ExpectBadInput(
      {"compare", "--sim-a", SimA(), "--sim-b", SimB(), "--ref", Ref(), "--iso18571", "yes"},
      "compare: unexpected argument \"yes\"");
}

TEST_F(CliCompareTest, SummaryOnStdoutAndJsonInAFile) {
  const std::string json_path = Path("out/compare.json");
  fs::create_directories(Path("out"));
  const ProgramResult result = Compare({"--json", json_path});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_THAT(
      result.out,
      AllOf(ContainsRegex("^W_a: [0-9.e+-]+ \\(variant A, 4 runs\\)\n"),
            ContainsRegex("\nW_b: [0-9.e+-]+ \\(variant B, 4 runs\\)\n"),
            ContainsRegex("\ndifference W_a - W_b: -?[0-9.e+-]+\n"),
            ContainsRegex("\n95% interval: \\[[0-9.e+-]+, [0-9.e+-]+\\] \\(bootstrap, 99 "
                          "resamples, seed 1\\)\n"),
            HasSubstr("resampling: paired by run id; variance gain "), HasSubstr("result: "),
            HasSubstr("sizes: 3 reference runs, "), HasSubstr("time: ")));
  EXPECT_THAT(result.err, IsEmpty());
  const nlohmann::json report = nlohmann::json::parse(ReadFile(json_path));
  EXPECT_EQ(report["resamples"], 99);
}

TEST_F(CliCompareTest, SameSeedSameNumbersWhateverTheThreads) {
  const ProgramResult one = Compare({"--json", "-", "--threads", "1"});
  ASSERT_EQ(one.exit_code, 0) << one.err;
  const ProgramResult two = Compare({"--json", "-", "--threads", "2"});
  ASSERT_EQ(two.exit_code, 0) << two.err;
  EXPECT_EQ(ReportWithoutSeconds(one.out), ReportWithoutSeconds(two.out));
  const ProgramResult reseeded = Compare({"--json", "-", "--seed", "2"});
  ASSERT_EQ(reseeded.exit_code, 0) << reseeded.err;
  EXPECT_NE(ReportWithoutSeconds(one.out)["interval"],
            ReportWithoutSeconds(reseeded.out)["interval"]);
}

TEST_F(CliCompareTest, VariantsWithDifferentRunIdsAreNotPaired) {
  const ProgramResult result =
      Run({"compare", "--sim-a", SimA(), "--sim-b", SimB() + "/sim_01.csv", SimB() + "/sim_02.csv",
           "--ref", Ref(), "--resamples", "50", "--json", "-"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const nlohmann::json report = nlohmann::json::parse(result.out);
  EXPECT_EQ(report["paired"], false);
  EXPECT_TRUE(report["variance_gain"].is_null());
  EXPECT_EQ(report["runs"]["b"], 2);
  EXPECT_THAT(result.err, HasSubstr("resampling: independent"));
}

TEST_F(CliCompareTest, BadInputIsExitTwoNamingIt) {
  const std::string a = SimA();
  const std::string b = SimB();
  const std::string ref = Ref();
  ExpectBadInput({"compare", "--sim-a", a, "--ref", ref}, "compare: --sim-b PATH... is required");
  ExpectBadInput({"compare", "--sim-b", b, "--ref", ref}, "compare: --sim-a PATH... is required");
  ExpectBadInput({"compare", "--sim-a", a, "--sim-b", b}, "compare: --ref PATH... is required");
  ExpectBadInput({"compare", "x.csv", "--sim-a", a, "--sim-b", b, "--ref", ref},
                 "compare: unexpected argument \"x.csv\"");
  const auto with = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = {"compare", "--sim-a", a, "--sim-b", b, "--ref", ref};
    args.insert(args.end(), extra.begin(), extra.end());
    return args;
  };
  ExpectBadInput(with({"--resamples", "0"}), "--resamples: must be from 1 to ");
  ExpectBadInput(with({"--resamples", "many"}), "--resamples: expected an integer");
  ExpectBadInput(with({"--confidence", "1"}), "--confidence: must be between 0 and 1");
  ExpectBadInput(with({"--confidence", "95%"}), "--confidence: expected a number");
  ExpectBadInput(with({"--seed", "-1"}), "--seed: expected a non-negative integer");
  ExpectBadInput(with({"--threads", "0"}), "--threads: must be at least 1");
  ExpectBadInput(with({"--order", "0.5"}), "order");
  ExpectBadInput(with({"--nu", "-1"}), "--nu: must be >= 0");
  ExpectBadInput(with({"--permutations", "9"}), "unknown flag --permutations");
  ExpectBadInput(with({"--tls-ca", "ca.pem"}), "compare: --tls-ca needs --server HOST:PORT");
  ExpectBadInput(with({"--channels", "yaw_rate,no_such_channel"}),
                 "variant A: simulation run \"sim_01\" has no channel \"no_such_channel\"");

  // B on other channels than A.
  const std::string a_run = Write("other/a/run.csv", "time,x,y\n0,0,1\n1,1,2\n2,2,3\n");
  const std::string b_run = Write("other/b/run.csv", "time,x\n0,0\n1,1\n2,3\n");
  const std::string ref_run = Write("other/ref/run.csv", "time,x,y\n0,0,1\n1,2,1\n");
  ExpectBadInput({"compare", "--sim-a", a_run, "--sim-b", b_run, "--ref", ref_run},
                 "variant B: simulation run \"run\" has no channel \"y\"");
  const std::string bad = Write("other/bad.csv", "time,x,y\n0,1,1\n1,2e,1\n");
  ExpectBadInput({"compare", "--sim-a", a_run, "--sim-b", bad, "--ref", ref_run},
                 bad + ":3:2: expected a number, got \"2e\"");
  ExpectBadInput({"compare", "--sim-a", a_run, "--sim-b", Path("missing"), "--ref", ref_run},
                 Path("missing"));
}

}  // namespace
