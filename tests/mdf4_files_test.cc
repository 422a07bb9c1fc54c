// The MDF 4 reader on the files of other tools in ../shared/data/mdf4 (see its README): every
// channel's sample count, first and last time, minimum, maximum and mean.
//
// The expected numbers were printed by tests/mdf4_reference.py, a reader of its own written with
// Python's struct and zlib only (`python3 tests/mdf4_reference.py ../shared/data/mdf4/*.mf4`),
// and pasted here. Channels it marks unreadable use text conversions, which the reader refuses.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "wasserwarp/mdf4.h"

namespace wasserwarp {
namespace {

using ::testing::HasSubstr;

struct Expected {
  std::string name;
  uint64_t samples;
  double time_first, time_last, min, max, mean;
  bool readable;
};

const std::vector<Expected> kTestBatch = {
    // group -, 1051 records
    {"MCSAKJB", 1051, 0, 10.5, 0, 10.5, 5.2499999999999991, true},
    {"BNXJPMAPAVZXPSX", 1051, 0, 10.5, 0.012859434820711613, 0.013000048696994781,
     0.012882196286836768, true},
    {"XMFJPKJRIVXIQNR", 1051, 0, 10.5, -7.6406780863180757e-05, 2.6647809292512648e-08,
     -6.4034377607049447e-05, true},
    {"JIYWKIEOINKVADJ", 1051, 0, 10.5, -8.2698132786163114e-09, 2.7414380383561365e-05,
     2.2975377300413168e-05, true},
};

const std::vector<Expected> kTestBatchCut0 = {
    // group 100ms_sync, 12 records
    {"time", 12, 1, 2, 1, 2, 1.4689646666669092, true},
    {"ASAM.M.SCALAR.SBYTE.IDENTICAL.DISCRETE", 12, 1, 2, -126, 120, -15.166666666666666, true},
};

const std::vector<Expected> kTestBatchCut1 = {
    // group 100ms_sync, 32 records
    {"time", 32, 6, 9, 6, 9, 7.4650852500015494, true},
    {"ASAM.M.SCALAR.SBYTE.IDENTICAL.DISCRETE", 32, 6, 9, -128, 118, 14.6875, true},
};

const std::vector<Expected> kTestMetadata = {
    // group 100ms_sync, 2 records
    {"time", 2, 0, 1, 0, 1, 0.5, true},
    {"ASAM.M.SCALAR.SBYTE.IDENTICAL.DISCRETE", 2, 0, 1, 0, 90, 45, true},
    // group Engine_1, 2 records
    {"time", 2, 0, 1, 0, 1, 0.5, true},
    {"ASAM.M.SCALAR.UBYTE.VTAB_RANGE_NO_DEFAULT_VALUE", 0, 0, 0, 0, 0, 0, false},
    {"ASAM.M.SCALAR.UBYTE.TAB_VERB_NO_DEFAULT_VALUE", 0, 0, 0, 0, 0, 0, false},
    {"ASAM.M.SCALAR.UBYTE.TAB_INTP_DEFAULT_VALUE", 2, 0, 1, 111, 111, 111, true},
    {"ASAM.M.SCALAR.SLONG.IDENTICAL", 2, 0, 1, 800, 899, 849.5, true},
    {"ASAM.M.SCALAR.UBYTE.VTAB_RANGE_DEFAULT_VALUE", 0, 0, 0, 0, 0, 0, false},
    {"ASAM.M.SCALAR.UBYTE.IDENTICAL.STATUS_STRING", 2, 0, 1, 0, 99, 49.5, true},
    {"ASAM.M.SCALAR.UBYTE.TAB_VERB_DEFAULT_VALUE", 0, 0, 0, 0, 0, 0, false},
    {"ASAM_[1][0].M.MATRIX_DIM_8_2.UBYTE.IDENTICAL", 2, 0, 1, 43, 200, 121.5, true},
    {"ASAM.M.SCALAR.UBYTE.IDENTICAL", 2, 0, 1, 87, 244, 165.5, true},
    {"ASAM.M.SCALAR.FLOAT32.IDENTICAL", 2, 0, 1, 300, 400, 350, true},
    {"ASAM.M.SCALAR.UBYTE.TAB_NOINTP_NO_DEFAULT_VALUE", 2, 0, 1, 111, 111, 111, true},
    {"ASAM.M.SCALAR.UBYTE.TAB_INTP_NO_DEFAULT_VALUE", 2, 0, 1, 111, 111, 111, true},
    {"ASAM.M.SCALAR.ULONG.IDENTICAL", 2, 0, 1, 700, 799, 749.5, true},
    {"ASAM.M.SCALAR.UWORD.IDENTICAL.BITMASK_0FF0", 2, 0, 1, 50, 56, 53, true},
    {"ASAM.M.SCALAR.SBYTE.IDENTICAL", 2, 0, 1, -124, -25, -74.5, true},
    {"ASAM.M.SCALAR.UWORD.IDENTICAL", 2, 0, 1, 0, 99, 49.5, true},
    {"ASAM.M.SCALAR.FLOAT32.IDENTICAL.DISCRETE", 2, 0, 1, 100, 200, 150, true},
    {"ASAM.M.SCALAR.SWORD.IDENTICAL", 2, 0, 1, 200, 299, 249.5, true},
    {"ASAM.M.SCALAR.UBYTE.HYPERBOLIC", 2, 0, 1, 0.006993006993006993, 0.022727272727272728,
     0.01486013986013986, true},
    {"ASAM.M.SCALAR.UBYTE.RAT_FUNC.DIV_10", 2, 0, 1, 14.4, 24.300000000000001, 19.350000000000001,
     true},
    {"ASAM.M.SCALAR.UBYTE.TAB_NOINTP_DEFAULT_VALUE", 2, 0, 1, 111, 111, 111, true},
    {"ASAM.M.SCALAR.UBYTE.RAT_FUNC.IDENT.STATUS_STRING", 2, 0, 1, 88, 187, 137.5, true},
    {"ASAM.M.SCALAR.UWORD.IDENTICAL.BITMASK_0008", 2, 0, 1, 1, 1, 1, true},
};

// Group by group, the channels of each in file order; `groups` their names and record counts.
void ExpectFile(const std::string& name,
                const std::vector<std::pair<std::string, uint64_t>>& groups,
                const std::vector<Expected>& expected) {
  const std::filesystem::path path = std::filesystem::path(WASSERWARP_MDF4_DATA) / name;
  if (!std::filesystem::exists(path)) GTEST_SKIP() << path << " is not there";
  const absl::StatusOr<Mdf4FileSummary> summary = InspectMdf4File(path.string());
  ASSERT_TRUE(summary.ok()) << summary.status();
  EXPECT_EQ(summary->version, "4.10");
  ASSERT_EQ(summary->groups.size(), groups.size());
  size_t k = 0;
  for (size_t g = 0; g < groups.size(); ++g) {
    const Mdf4GroupSummary& group = summary->groups[g];
    EXPECT_EQ(group.name, groups[g].first);
    EXPECT_EQ(group.samples, groups[g].second);
    for (const Mdf4ChannelSummary& channel : group.channels) {
      ASSERT_LT(k, expected.size());
      const Expected& e = expected[k++];
      SCOPED_TRACE(channel.name);
      EXPECT_EQ(channel.name, e.name);
      EXPECT_EQ(channel.readable, e.readable) << channel.reason;
      if (!e.readable) {
        EXPECT_THAT(channel.reason, HasSubstr("conversion"));
        EXPECT_THAT(channel.reason, HasSubstr("is not supported"));
        continue;
      }
      EXPECT_EQ(channel.samples, e.samples);
      EXPECT_EQ(channel.time_first, e.time_first);
      EXPECT_EQ(channel.time_last, e.time_last);
      EXPECT_EQ(channel.min, e.min);
      EXPECT_EQ(channel.max, e.max);
      // The same sum in the same order; a last-bit difference of the division is allowed.
      EXPECT_NEAR(channel.mean, e.mean, 1e-15 * std::abs(e.mean));
    }
  }
  EXPECT_EQ(k, expected.size());
}

TEST(Mdf4FilesTest, TestBatch) { ExpectFile("test_batch.mf4", {{"group 1", 1051}}, kTestBatch); }

TEST(Mdf4FilesTest, TestBatchCut0) {
  ExpectFile("test_batch_cut_0.mf4", {{"100ms_sync", 12}}, kTestBatchCut0);
}

TEST(Mdf4FilesTest, TestBatchCut1) {
  ExpectFile("test_batch_cut_1.mf4", {{"100ms_sync", 32}}, kTestBatchCut1);
}

TEST(Mdf4FilesTest, TestMetadata) {
  ExpectFile("test_metadata.mf4", {{"100ms_sync", 2}, {"Engine_1", 2}}, kTestMetadata);
}

TEST(Mdf4FilesTest, ReadsARunOfChannelsFromTwoGroups) {
  const std::filesystem::path path =
      std::filesystem::path(WASSERWARP_MDF4_DATA) / "test_metadata.mf4";
  if (!std::filesystem::exists(path)) GTEST_SKIP() << path << " is not there";
  const absl::StatusOr<Mdf4Run> run = ReadMdf4Run(
      path.string(), {"ASAM.M.SCALAR.SLONG.IDENTICAL", "ASAM.M.SCALAR.SBYTE.IDENTICAL.DISCRETE"});
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_EQ(run->series.id, "test_metadata");
  EXPECT_EQ(run->series.samples(), 2);
  EXPECT_EQ(run->notes.size(), 1);
}

}  // namespace
}  // namespace wasserwarp
