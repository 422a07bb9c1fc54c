// The MATLAB reader on files written here with matio's writer, in MAT v5 (compressed) and v7.3
// (HDF5): both layouts, integer and double classes, and the files it must refuse. The values
// expected are the ones written.

#include "wasserwarp/mat.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "mat_writer.h"
#include "scratch_dir.h"
#include "wasserwarp/run_files.h"

namespace wasserwarp {
namespace {

using test_support::MatArray;
using test_support::MatSignal;
using test_support::MatStruct;
using test_support::MatStructureWithTime;
using test_support::MatText;
using test_support::MatVar;
using test_support::MatVector;
using test_support::MoveAll;
using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

class MatTest : public testing::TestWithParam<mat_ft> {
 protected:
  std::string Write(const std::string& name, const std::vector<MatVar>& vars) const {
    const std::string path = dir_.Path(name);
    EXPECT_TRUE(test_support::WriteMat(path, GetParam(), vars)) << path;
    return path;
  }

  // time 0, 0.5, 1, 1.5; count int16; x double; a text that is no channel. In the order of
  // their names, which is the order matio lists a v7.3 file's variables in.
  std::string VectorsFile() const {
    return Write("run_01.mat",
                 MoveAll(MatVector<int16_t>("count", {-300, 0, 7, 32767}),
                         MatText("note", "bench 3"), MatVector<double>("time", {0, 0.5, 1, 1.5}),
                         MatVector<double>("x", {1.25, -2, 3, 4.5})));
  }

  // yout: speed (4 x 1 double) and wheel (4 x 2 int32).
  std::string StructureFile() const {
    return Write(
        "sim_07.mat",
        MoveAll(MatStructureWithTime(
            "yout", {0, 0.1, 0.2, 0.3},
            MoveAll(MatSignal{"speed", MatVector<double>("values", {10, 11, 12, 13})},
                    MatSignal{"wheel",
                              MatArray<int32_t>("values", 4, 2, {1, 2, 3, 4, -1, -2, -3, -4})}))));
  }

  const test_support::ScratchDir dir_{"mat_test_"};
};

TEST_P(MatTest, ReadsTimeAndVectors) {
  const std::string path = VectorsFile();
  absl::StatusOr<Mdf4Run> run = ReadMatRun(path, {});
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_EQ(run->series.id, "run_01");
  EXPECT_THAT(run->series.channels, ElementsAre("count", "x"));
  EXPECT_THAT(run->series.times, ElementsAre(0, 0.5, 1, 1.5));
  EXPECT_THAT(run->series.values, ElementsAre(-300, 1.25, 0, -2, 7, 3, 32767, 4.5));
  EXPECT_THAT(run->notes,
              ElementsAre(AllOf(HasSubstr(path), HasSubstr("variable \"note\" left out"),
                                HasSubstr("not a numeric vector"))));
}

TEST_P(MatTest, ChannelsArePickedByName) {
  absl::StatusOr<Mdf4Run> run = ReadMatRun(VectorsFile(), {"count"});
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_THAT(run->series.channels, ElementsAre("count"));
  EXPECT_THAT(run->series.values, ElementsAre(-300, 0, 7, 32767));
  EXPECT_TRUE(run->notes.empty());
}

TEST_P(MatTest, UnknownOrUnreadableChannelIsNamed) {
  const std::string path = VectorsFile();
  EXPECT_THAT(
      ReadMatRun(path, {"y"}).status().message(),
      AllOf(HasSubstr(path), HasSubstr("no channel named \"y\"; its channels are count, note, x")));
  EXPECT_THAT(ReadMatRun(path, {"note"}).status().message(),
              AllOf(HasSubstr(path), HasSubstr("variable \"note\": a char 1x7, not a numeric "
                                               "vector")));
}

TEST_P(MatTest, ReadsSimulinkStructureWithTime) {
  absl::StatusOr<Mdf4Run> run = ReadMatRun(StructureFile(), {});
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_EQ(run->series.id, "sim_07");
  EXPECT_THAT(run->series.channels, ElementsAre("speed", "wheel(1)", "wheel(2)"));
  EXPECT_THAT(run->series.times, ElementsAre(0, 0.1, 0.2, 0.3));
  EXPECT_THAT(run->series.values, ElementsAre(10, 1, -1, 11, 2, -2, 12, 3, -3, 13, 4, -4));
  absl::StatusOr<Mdf4Run> picked = ReadMatRun(StructureFile(), {"wheel(2)", "speed"});
  ASSERT_TRUE(picked.ok()) << picked.status();
  EXPECT_THAT(picked->series.values, ElementsAre(-1, 10, -2, 11, -3, 12, -4, 13));
}

TEST_P(MatTest, OtherLayoutListsVariablesAndLayouts) {
  const std::string path =
      Write("other.mat", MoveAll(MatText("name", "ab"), MatVector<double>("t", {0, 1})));
  const absl::Status status = ReadMatRun(path, {}).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(),
              AllOf(HasSubstr(path), HasSubstr("no variable \"time\" and no structure with time"),
                    HasSubstr("its variables are name (char 1x2), t (double 2x1)"),
                    HasSubstr("the layouts read are a vector \"time\""),
                    HasSubstr("Simulink's structure with time")));
}

TEST_P(MatTest, TimeWithoutChannelsIsAnotherLayout) {
  const std::string path =
      Write("bare.mat", MoveAll(MatVector<double>("time", {0, 1}), MatText("name", "ab")));
  EXPECT_THAT(ReadMatRun(path, {}).status().message(),
              AllOf(HasSubstr("no variable can be a channel"), HasSubstr("the layouts read are")));
}

TEST_P(MatTest, StructureWithoutTimeIsRefused) {
  MatVar yout = MatStruct("yout", {"signals"});
  const std::string path = Write("notime.mat", MoveAll(std::move(yout)));
  EXPECT_THAT(
      ReadMatRun(path, {}).status().message(),
      AllOf(HasSubstr(path), HasSubstr("yout (struct 1x1)"), HasSubstr("no variable \"time\"")));
}

TEST_P(MatTest, TimeMustIncrease) {
  const std::string path = Write("back.mat", MoveAll(MatVector<double>("time", {0, 1, 1, 2}),
                                                     MatVector<double>("x", {1, 2, 3, 4})));
  EXPECT_THAT(ReadMatRun(path, {}).status().message(),
              AllOf(HasSubstr(path), HasSubstr("variable \"time\": sample 2: time 1 is not after "
                                               "the previous time 1")));
  const std::string structure = Write(
      "back_sim.mat",
      MoveAll(MatStructureWithTime(
          "yout", {0, 2, 1}, MoveAll(MatSignal{"v", MatVector<double>("values", {1, 2, 3})}))));
  EXPECT_THAT(ReadMatRun(structure, {}).status().message(),
              HasSubstr("variable \"yout.time\": sample 2: time 1 is not after"));
}

TEST_P(MatTest, LengthMismatchIsNamed) {
  const std::string path = Write("short.mat", MoveAll(MatVector<double>("time", {0, 1, 2, 3}),
                                                      MatVector<double>("x", {1, 2, 3}),
                                                      MatVector<double>("y", {1, 2, 3, 4})));
  EXPECT_THAT(ReadMatRun(path, {"x"}).status().message(),
              AllOf(HasSubstr(path), HasSubstr("variable \"x\": 3 values for 4 times")));
  const std::string structure =
      Write("short_sim.mat",
            MoveAll(MatStructureWithTime(
                "yout", {0, 1, 2}, MoveAll(MatSignal{"v", MatVector<double>("values", {1, 2})}))));
  EXPECT_THAT(ReadMatRun(structure, {"v"}).status().message(),
              HasSubstr("variable \"yout.signals(1).values\": 2 x 1 values for 3 samples"));
}

TEST_P(MatTest, NonFiniteValueIsNamed) {
  const std::string path = Write("nan.mat", MoveAll(MatVector<double>("time", {0, 1}),
                                                    MatVector<double>("x", {1, 0.0 / 0.0})));
  EXPECT_THAT(ReadMatRun(path, {}).status().message(),
              HasSubstr("variable \"x\": sample 1: value nan is not finite"));
}

TEST_P(MatTest, DataBeyondTheLimitIsNotRead) {
  const absl::Status status = ReadMatRun(VectorsFile(), {}, {.max_data_bytes = 40}).status();
  EXPECT_THAT(status.message(), HasSubstr("bytes left of the limit"));
}

TEST_P(MatTest, ChannelsBeyondTheLimitAreRefused) {
  const absl::Status status = ReadMatRun(StructureFile(), {}, {.max_channels = 2}).status();
  EXPECT_THAT(status.message(), HasSubstr("sim_07.mat: more than 2 channels"));
}

TEST_P(MatTest, InspectSummarizesEveryVariable) {
  absl::StatusOr<Mdf4FileSummary> summary = InspectMatFile(StructureFile());
  ASSERT_TRUE(summary.ok()) << summary.status();
  EXPECT_EQ(summary->format, "mat");
  EXPECT_EQ(summary->version, GetParam() == MAT_FT_MAT73 ? "7.3" : "5");
  ASSERT_EQ(summary->groups.size(), 1);
  const Mdf4GroupSummary& group = summary->groups[0];
  EXPECT_EQ(group.name, "yout");
  EXPECT_EQ(group.samples, 4);
  ASSERT_EQ(group.channels.size(), 4);
  EXPECT_EQ(group.channels[0].name, "yout.time");
  EXPECT_TRUE(group.channels[0].master);
  const Mdf4ChannelSummary& wheel = group.channels[3];
  EXPECT_EQ(wheel.name, "wheel(2)");
  EXPECT_EQ(wheel.data_type, "int32");
  EXPECT_EQ(wheel.samples, 4);
  EXPECT_EQ(wheel.time_first, 0);
  EXPECT_EQ(wheel.time_last, 0.3);
  EXPECT_EQ(wheel.min, -4);
  EXPECT_EQ(wheel.max, -1);
  EXPECT_EQ(wheel.mean, -2.5);
}

TEST_P(MatTest, MatFilesAreRunFiles) {
  VectorsFile();
  StructureFile();
  absl::StatusOr<std::vector<std::string>> files = ExpandRunPaths({dir_.Path()});
  ASSERT_TRUE(files.ok()) << files.status();
  EXPECT_THAT(*files, ElementsAre(dir_.Path("run_01.mat"), dir_.Path("sim_07.mat")));
  std::vector<std::string> notes;
  absl::StatusOr<std::vector<Series>> runs = ReadRuns(*files, {.channels = {"speed"}}, notes);
  EXPECT_THAT(runs.status().message(), HasSubstr("run_01.mat: no channel named \"speed\""));
}

TEST_P(MatTest, NotAMatFileIsNamed) {
  const std::string path = dir_.Write("junk.mat", "not a MATLAB file at all");
  EXPECT_THAT(ReadMatRun(path, {}).status().message(),
              AllOf(HasSubstr(path), HasSubstr("cannot be opened as a MATLAB file")));
  EXPECT_THAT(ReadMatRun(dir_.Path("absent.mat"), {}).status().message(), HasSubstr("absent.mat"));
}

INSTANTIATE_TEST_SUITE_P(Versions, MatTest, testing::Values(MAT_FT_MAT5, MAT_FT_MAT73),
                         [](const testing::TestParamInfo<mat_ft>& info) {
                           return info.param == MAT_FT_MAT73 ? "v73" : "v5";
                         });

}  // namespace
}  // namespace wasserwarp
