// The real `wasserwarp` binary on MDF 4 files made by tests/mdf4_writer.h: `inspect`, `convert`,
// and .mf4 files where CSV run files go.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "mdf4_writer.h"
#include "process_runner.h"
#include "scratch_dir.h"

namespace wasserwarp {
namespace {

using test_support::Le;
using test_support::LeDouble;
using test_support::Mdf4ChannelSpec;
using test_support::Mdf4Writer;
using test_support::ProgramResult;
using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::StartsWith;

// Group "fast": x = 10 t at t = 0, 1, 2, 3; group "slow": speed 100 and 300 at t = 0.5 and 2.5,
// and "fast" has a "speed" too.
std::string BenchFile() {
  Mdf4Writer w;
  const Mdf4ChannelSpec time = {.name = "time", .channel_type = 2, .sync_type = 1, .unit = "s"};
  const std::vector<Mdf4ChannelSpec> fast = {
      time, {.name = "x", .byte_offset = 8, .unit = "m"}, {.name = "speed", .byte_offset = 8}};
  const std::vector<Mdf4ChannelSpec> slow = {time,
                                             {.name = "speed",
                                              .data_type = 0,
                                              .byte_offset = 8,
                                              .bit_count = 16,
                                              .conversion = w.Conversion(1, {0, 100})}};
  std::string data;
  for (int t = 0; t < 4; ++t) data += Le(1, 1) + LeDouble(t) + LeDouble(10.0 * t);
  data += Le(2, 1) + LeDouble(0.5) + Le(1, 2) + Le(2, 1) + LeDouble(2.5) + Le(3, 2);
  w.DataGroup(1,
              {{.name = "fast", .record_id = 1, .cycles = 4, .data_bytes = 16, .channels = fast},
               {.name = "slow", .record_id = 2, .cycles = 2, .data_bytes = 10, .channels = slow}},
              w.Dt(data));
  return w.bytes();
}

class CliMdf4Test : public testing::Test {
 protected:
  CliMdf4Test() { file_ = dir_.Write("bench/run_01.mf4", BenchFile()); }

  ProgramResult Run(const std::vector<std::string>& args) const {
    return test_support::RunProgram(WASSERWARP_CLI, args, dir_.root());
  }

  const test_support::ScratchDir dir_{"cli_mdf4_test_"};
  std::string file_;
};

TEST_F(CliMdf4Test, InspectPrintsJson) {
  const ProgramResult result = Run({"inspect", file_, "--json"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const nlohmann::json json = nlohmann::json::parse(result.out);
  const nlohmann::json& file = json["files"][0];
  EXPECT_EQ(file["path"], file_);
  EXPECT_EQ(file["format"], "mdf4");
  ASSERT_EQ(file["groups"].size(), 2);
  EXPECT_EQ(file["groups"][1]["name"], "slow");
  EXPECT_EQ(file["groups"][1]["samples"], 2);
  const nlohmann::json& speed = file["groups"][1]["channels"][1];
  EXPECT_EQ(speed["name"], "speed");
  EXPECT_EQ(speed["data_type"], "uint16 LE");
  EXPECT_EQ(speed["conversion"], "linear 0 + 100 x");
  EXPECT_EQ(speed["samples"], 2);
  EXPECT_EQ(speed["time_first"], 0.5);
  EXPECT_EQ(speed["time_last"], 2.5);
  EXPECT_EQ(speed["min"], 100);
  EXPECT_EQ(speed["max"], 300);
  EXPECT_EQ(speed["mean"], 200);
  EXPECT_EQ(speed["readable"], true);
  EXPECT_EQ(speed["reason"], "");
}

TEST_F(CliMdf4Test, InspectPrintsText) {
  const ProgramResult result = Run({"inspect", file_});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_THAT(result.out, AllOf(StartsWith(file_ + ": MDF 4.10, 2 groups\n"),
                                HasSubstr("  group \"fast\": 4 records\n"),
                                HasSubstr("    x [m]: float64 LE, identity, 4 samples\n")));
}

TEST_F(CliMdf4Test, ConvertWritesTheRunAsCsv) {
  const ProgramResult result =
      Run({"convert", file_, "--channels", "x,slow/speed", "--out", dir_.Path("run.csv")});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_THAT(result.err, HasSubstr("note: " + file_ +
                                    ": channel \"slow/speed\" of group "
                                    "\"slow\" interpolated linearly"));
  // x's unit goes with it, as a CSV header writes one.
  EXPECT_EQ(test_support::ReadFile(dir_.Path("run.csv")),
            "time,x[m],slow/speed\n0,0,100\n1,10,150\n2,20,250\n3,30,300\n");
}

TEST_F(CliMdf4Test, AmbiguousChannelIsBadInput) {
  const ProgramResult result = Run({"convert", file_, "--channels", "speed"});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_THAT(result.err, HasSubstr("channel \"speed\" is in several groups; name one of "
                                    "fast/speed, slow/speed"));
}

TEST_F(CliMdf4Test, Mf4FilesGoWhereCsvFilesGo) {
  dir_.Write("bench/run_02.csv", "time,x\n0,0\n1,10\n2,20\n3,30\n");
  const ProgramResult twed = Run({"twed", file_, dir_.Path("bench/run_02.csv"), "--channels", "x"});
  ASSERT_EQ(twed.exit_code, 0) << twed.err;
  EXPECT_EQ(twed.out, "0\n");
  const ProgramResult validate = Run({"validate", "--sim", dir_.Path("bench"), "--ref",
                                      dir_.Path("bench"), "--channels", "x", "--json", "-"});
  ASSERT_NE(validate.exit_code, 2) << validate.err;
  const nlohmann::json json = nlohmann::json::parse(validate.out);
  EXPECT_EQ(json["distance"], 0) << validate.out;
  EXPECT_EQ(json["simulation"][0]["id"], "run_01");
  EXPECT_EQ(json["simulation"][1]["id"], "run_02");
}

TEST_F(CliMdf4Test, TheReportSaysWhatReadingTheFilesNoted) {
  dir_.Write("bench/run_02.csv", "time,x,slow/speed\n0,0,100\n1,10,150\n2,20,250\n3,30,300\n");
  const ProgramResult validate =
      Run({"validate", "--sim", dir_.Path("bench"), "--ref", dir_.Path("bench"), "--channels",
           "x,slow/speed", "--json", "-", "--report", dir_.Path("report.html")});
  ASSERT_EQ(validate.exit_code, 0) << validate.err;
  const nlohmann::json json = nlohmann::json::parse(validate.out);
  ASSERT_EQ(json["input_notes"].size(), 2u);  // the file is read as --sim and as --ref
  EXPECT_THAT(json["input_notes"][0].get<std::string>(),
              HasSubstr(": channel \"slow/speed\" of group \"slow\" interpolated linearly"));
  EXPECT_THAT(validate.err, HasSubstr("note: " + file_));
  EXPECT_THAT(test_support::ReadFile(dir_.Path("report.html")), HasSubstr("interpolated linearly"));
}

}  // namespace
}  // namespace wasserwarp
