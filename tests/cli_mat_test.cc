// The real `wasserwarp` binary on MATLAB files written by tests/mat_writer.h: `inspect`,
// `convert`, and .mat files where CSV run files go.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "mat_writer.h"
#include "process_runner.h"
#include "scratch_dir.h"

namespace wasserwarp {
namespace {

using test_support::MatSignal;
using test_support::MatStructureWithTime;
using test_support::MatVector;
using test_support::MoveAll;
using test_support::ProgramResult;
using ::testing::HasSubstr;
using ::testing::StartsWith;

class CliMatTest : public testing::Test {
 protected:
  CliMatTest() {
    std::filesystem::create_directories(dir_.Path("bench"));
    vectors_ = dir_.Path("bench/run_01.mat");
    EXPECT_TRUE(test_support::WriteMat(
        vectors_, MAT_FT_MAT5,
        MoveAll(MatVector<double>("time", {0, 1, 2, 3}), MatVector<double>("x", {0, 10, 20, 30}),
                MatVector<int16_t>("gear", {1, 1, 2, 2}))));
    structure_ = dir_.Path("bench/run_02.mat");
    EXPECT_TRUE(test_support::WriteMat(
        structure_, MAT_FT_MAT73,
        MoveAll(MatStructureWithTime(
            "yout", {0, 1, 2, 3},
            MoveAll(MatSignal{"x", MatVector<double>("values", {0, 10, 20, 30})},
                    MatSignal{"gear", MatVector<int16_t>("values", {1, 1, 2, 2})})))));
  }

  ProgramResult Run(const std::vector<std::string>& args) const {
    return test_support::RunProgram(WASSERWARP_CLI, args, dir_.root());
  }

  // The JSON of `validate` on channels x and gear with `runs`; null where it fails.
  nlohmann::json ValidateJson(std::vector<std::string> runs) const {
    runs.insert(runs.begin(), "validate");
    runs.insert(runs.end(), {"--channels", "x,gear", "--json", "-"});
    const ProgramResult result = Run(runs);
    EXPECT_NE(result.exit_code, 2) << result.err;
    return result.exit_code == 2 ? nlohmann::json() : nlohmann::json::parse(result.out);
  }

  const test_support::ScratchDir dir_{"cli_mat_test_"};
  std::string vectors_;
  std::string structure_;
};

TEST_F(CliMatTest, InspectPrintsJson) {
  const ProgramResult result = Run({"inspect", vectors_, structure_, "--json"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const nlohmann::json json = nlohmann::json::parse(result.out);
  const nlohmann::json& file = json["files"][1];
  EXPECT_EQ(file["path"], structure_);
  EXPECT_EQ(file["format"], "mat");
  EXPECT_EQ(file["version"], "7.3");
  EXPECT_EQ(json["files"][0]["version"], "5");
  EXPECT_EQ(file["groups"][0]["name"], "yout");
  EXPECT_EQ(file["groups"][0]["samples"], 4);
  const nlohmann::json& gear = file["groups"][0]["channels"][2];
  EXPECT_EQ(gear["name"], "gear");
  EXPECT_EQ(gear["data_type"], "int16");
  EXPECT_EQ(gear["samples"], 4);
  EXPECT_EQ(gear["time_first"], 0);
  EXPECT_EQ(gear["time_last"], 3);
  EXPECT_EQ(gear["min"], 1);
  EXPECT_EQ(gear["max"], 2);
  EXPECT_EQ(gear["mean"], 1.5);
  EXPECT_EQ(gear["readable"], true);
}

TEST_F(CliMatTest, InspectPrintsText) {
  const ProgramResult result = Run({"inspect", vectors_});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_THAT(result.out, StartsWith(vectors_ + ": MATLAB 5, 1 group\n"));
  EXPECT_THAT(result.out, HasSubstr("    gear: int16, identity, 4 samples\n"));
}

TEST_F(CliMatTest, ConvertWritesTheRunAsCsv) {
  const ProgramResult result =
      Run({"convert", structure_, "--channels", "gear,x", "--out", dir_.Path("run.csv")});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(test_support::ReadFile(dir_.Path("run.csv")),
            "time,gear,x\n0,1,0\n1,1,10\n2,2,20\n3,2,30\n");
}

TEST_F(CliMatTest, WrongLayoutIsBadInput) {
  const std::string path = dir_.Path("other.mat");
  ASSERT_TRUE(test_support::WriteMat(path, MAT_FT_MAT5, MoveAll(MatVector<double>("t", {0, 1}))));
  const ProgramResult result = Run({"convert", path});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_THAT(result.err, HasSubstr(path + ": no variable \"time\" and no structure with time; "
                                           "its variables are t (double 2x1); the layouts read"));
}

TEST_F(CliMatTest, TwedTakesMatFiles) {
  const ProgramResult twed = Run({"twed", vectors_, structure_, "--channels", "x,gear"});
  ASSERT_EQ(twed.exit_code, 0) << twed.err;
  EXPECT_EQ(twed.out, "0\n");
}

TEST_F(CliMatTest, ValidateTakesMatFilesAndDirectoriesOfThem) {
  const nlohmann::json files = ValidateJson({"--sim", structure_, "--ref", vectors_});
  EXPECT_EQ(files["distance"], 0) << files;
  EXPECT_EQ(files["simulation"][0]["id"], "run_02");
  EXPECT_EQ(files["reference"][0]["id"], "run_01");
  const nlohmann::json directory = ValidateJson({"--sim", dir_.Path("bench"), "--ref", vectors_});
  ASSERT_EQ(directory["simulation"].size(), 2) << directory;
  EXPECT_EQ(directory["simulation"][1]["id"], "run_02");
}

}  // namespace
}  // namespace wasserwarp
