// The MATLAB reader on MAT v5 files that no part of matio wrote: laid out byte by byte from the
// format's description (mat5_bytes.h), the values expected being the ones put in.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "mat5_bytes.h"
#include "scratch_dir.h"
#include "wasserwarp/mat.h"

namespace wasserwarp {
namespace {

namespace mat5 = test_support::mat5;
using ::testing::ElementsAre;

class Mat5FilesTest : public ::testing::Test {
 protected:
  std::string Write(const std::string& name, const std::vector<std::string>& elements) const {
    return dir_.Write(name, mat5::File(elements));
  }

  const test_support::ScratchDir dir_{"mat5_files_test_"};
};

TEST_F(Mat5FilesTest, ReadsATimeVectorAndChannelsOfTwoClasses) {
  const std::string path =
      Write("bench_03.mat", {mat5::Doubles("time", 4, 1, {0, 0.01, 0.02, 0.03}),
                             mat5::Doubles("speed", 1, 4, {12.5, 12.75, 13, -0.25}),
                             mat5::Int16s("gear", {1, 2, -3, 32767})});
  absl::StatusOr<Mdf4Run> run = ReadMatRun(path, {});
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_EQ(run->series.id, "bench_03");
  EXPECT_THAT(run->series.channels, ElementsAre("speed", "gear"));
  EXPECT_THAT(run->series.times, ElementsAre(0, 0.01, 0.02, 0.03));
  EXPECT_THAT(run->series.values, ElementsAre(12.5, 1, 12.75, 2, 13, -3, -0.25, 32767));

  absl::StatusOr<Mdf4FileSummary> summary = InspectMatFile(path);
  ASSERT_TRUE(summary.ok()) << summary.status();
  EXPECT_EQ(summary->version, "5");
  ASSERT_EQ(summary->groups.size(), 1u);
  ASSERT_EQ(summary->groups[0].channels.size(), 3u);
  EXPECT_EQ(summary->groups[0].channels[2].data_type, "int16");
  EXPECT_EQ(summary->groups[0].channels[2].max, 32767);
}

TEST_F(Mat5FilesTest, ReadsSimulinksStructureWithTime) {
  // logsout = struct('time', t, 'signals', struct('values', [v1 v2], 'label', 'wheel')).
  const std::string signal =
      mat5::Struct("", {"values", "label"}, 1,
                   {mat5::Doubles("", 3, 2, {1, 2, 3, -1, -2, -3}), mat5::Text("", "wheel")});
  const std::string path =
      Write("model_run.mat", {mat5::Struct("logsout", {"time", "signals"}, 1,
                                           {mat5::Doubles("", 3, 1, {0, 0.5, 1}), signal})});
  absl::StatusOr<Mdf4Run> run = ReadMatRun(path, {});
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_THAT(run->series.channels, ElementsAre("wheel(1)", "wheel(2)"));
  EXPECT_THAT(run->series.times, ElementsAre(0, 0.5, 1));
  EXPECT_THAT(run->series.values, ElementsAre(1, -1, 2, -2, 3, -3));
}

TEST_F(Mat5FilesTest, ATruncatedFileIsAnErrorNamingIt) {
  const std::string whole = mat5::File(
      {mat5::Doubles("time", 4, 1, {0, 1, 2, 3}), mat5::Doubles("x", 4, 1, {4, 5, 6, 7})});
  for (size_t cut : {size_t{130}, whole.size() / 2, whole.size() - 8}) {
    const std::string path = dir_.Write("cut.mat", whole.substr(0, cut));
    absl::StatusOr<Mdf4Run> run = ReadMatRun(path, {});
    ASSERT_FALSE(run.ok()) << "cut at " << cut << " of " << whole.size() << ": "
                           << ::testing::PrintToString(run->series.values);
    EXPECT_THAT(std::string(run.status().message()), ::testing::HasSubstr("cut.mat"));
  }
}

}  // namespace
}  // namespace wasserwarp
