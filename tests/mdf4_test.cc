// The MDF 4 reader on files made by tests/mdf4_writer.h, for what the files of other tools
// (mdf4_files_test.cc) do not hold. Every expected value is computed here from the raw values
// written and the formulas of the standard, not by the reader's code.

#include "wasserwarp/mdf4.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "mdf4_writer.h"
#include "scratch_dir.h"

namespace wasserwarp {
namespace {

using test_support::Le;
using test_support::LeDouble;
using test_support::Mdf4ChannelSpec;
using test_support::Mdf4GroupSpec;
using test_support::Mdf4Writer;
using test_support::PutBits;
using ::testing::ElementsAre;
using ::testing::ElementsAreArray;
using ::testing::HasSubstr;

Mdf4ChannelSpec TimeMaster(uint32_t byte_offset = 0) {
  return {.name = "time",
          .data_type = 4,
          .byte_offset = byte_offset,
          .bit_count = 64,
          .channel_type = 2,
          .sync_type = 1,
          .unit = "s"};
}

uint64_t FloatBits(float value) {
  uint32_t bits = 0;
  std::memcpy(&bits, &value, sizeof(bits));
  return bits;
}

// The values of channel `c` of `run`.
std::vector<double> Column(const Series& run, size_t c) {
  std::vector<double> out;
  for (size_t i = 0; i < run.samples(); ++i) out.push_back(run.value(i, c));
  return out;
}

TEST(Mdf4Test, ReadsIntegersOfAnyWidthAndBitOffsetInBothByteOrders) {
  const std::vector<Mdf4ChannelSpec> channels = {
      TimeMaster(),
      {.name = "u12", .data_type = 0, .byte_offset = 8, .bit_offset = 3, .bit_count = 12},
      {.name = "s5", .data_type = 2, .byte_offset = 10, .bit_offset = 7, .bit_count = 5},
      {.name = "u12be", .data_type = 1, .byte_offset = 12, .bit_offset = 4, .bit_count = 12},
      {.name = "s16be", .data_type = 3, .byte_offset = 14, .bit_count = 16},
      {.name = "f32be", .data_type = 5, .byte_offset = 16, .bit_count = 32},
      {.name = "s64", .data_type = 2, .byte_offset = 20, .bit_count = 64},
      {.name = "u64", .data_type = 0, .byte_offset = 28, .bit_offset = 5, .bit_count = 64},
      {.name = "f64be", .data_type = 5, .byte_offset = 37, .bit_count = 64},
  };
  const std::vector<uint64_t> u12 = {0, 1, 4095, 2730, 100};
  const std::vector<int64_t> s5 = {-16, 15, -1, 0, 7};
  const std::vector<int64_t> s16 = {-32768, 32767, -2, 1, 0};
  const std::vector<float> f32 = {1.5f, -2.25f, 1e30f, 0.0f, -7.0f};
  const std::vector<int64_t> s64 = {INT64_MIN, -1, 1 << 20, INT64_C(1) << 62, 0};
  const std::vector<uint64_t> u64 = {UINT64_C(1) << 63, 0, UINT64_C(3) << 62, 2048, 4096};
  const std::vector<double> f64 = {0.1, -1e300, 3.0, 2.5, -0.0};
  std::string records;
  for (size_t i = 0; i < 5; ++i) {
    std::string r(45, '\x5a');  // filler bits that no channel may pick up
    double t = 0.25 * static_cast<double>(i);
    uint64_t t_bits = 0, f64_bits = 0;
    std::memcpy(&t_bits, &t, 8);
    std::memcpy(&f64_bits, &f64[i], 8);
    PutBits(r, 0, 0, 64, false, t_bits);
    PutBits(r, 8, 3, 12, false, u12[i]);
    PutBits(r, 10, 7, 5, false, static_cast<uint64_t>(s5[i]));
    PutBits(r, 12, 4, 12, true, u12[4 - i]);
    PutBits(r, 14, 0, 16, true, static_cast<uint64_t>(s16[i]));
    PutBits(r, 16, 0, 32, true, FloatBits(f32[i]));
    PutBits(r, 20, 0, 64, false, static_cast<uint64_t>(s64[i]));
    PutBits(r, 28, 5, 64, false, u64[i]);
    PutBits(r, 37, 0, 64, true, f64_bits);
    records += r;
  }
  Mdf4Writer w;
  w.DataGroup(0, {{.name = "bits", .cycles = 5, .data_bytes = 45, .channels = channels}},
              w.Dt(records));
  const absl::StatusOr<Mdf4Run> run = ParseMdf4Run(w.bytes(), "bits.mf4", "bits", {});
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_THAT(run->series.channels,
              ElementsAre("u12", "s5", "u12be", "s16be", "f32be", "s64", "u64", "f64be"));
  EXPECT_THAT(run->series.times, ElementsAre(0, 0.25, 0.5, 0.75, 1.0));
  EXPECT_THAT(Column(run->series, 0), ElementsAre(0, 1, 4095, 2730, 100));
  EXPECT_THAT(Column(run->series, 1), ElementsAre(-16, 15, -1, 0, 7));
  EXPECT_THAT(Column(run->series, 2), ElementsAre(100, 2730, 4095, 1, 0));
  EXPECT_THAT(Column(run->series, 3), ElementsAre(-32768, 32767, -2, 1, 0));
  EXPECT_THAT(Column(run->series, 4), ElementsAre(1.5, -2.25, double{1e30f}, 0, -7));
  EXPECT_THAT(Column(run->series, 5),
              ElementsAre(-9223372036854775808.0, -1, 1048576, 4611686018427387904.0, 0));
  EXPECT_THAT(Column(run->series, 6),
              ElementsAre(9223372036854775808.0, 0, 13835058055282163712.0, 2048, 4096));
  EXPECT_THAT(Column(run->series, 7), ElementsAre(0.1, -1e300, 3.0, 2.5, 0.0));
}

TEST(Mdf4Test, AppliesConversionsToDataAndTime) {
  Mdf4Writer w;
  const uint64_t time_conversion = w.Conversion(1, {1.0, 0.01});  // 1 + 0.01 x
  const std::vector<Mdf4ChannelSpec> channels = {
      {.name = "time",
       .data_type = 0,
       .bit_count = 32,
       .channel_type = 2,
       .sync_type = 1,
       .conversion = time_conversion},
      {.name = "linear",
       .data_type = 0,
       .byte_offset = 4,
       .bit_count = 8,
       .conversion = w.Conversion(1, {2.0, 0.5})},
      {.name = "rational",
       .data_type = 0,
       .byte_offset = 4,
       .bit_count = 8,
       .conversion = w.Conversion(2, {1, 0, 1, 0, 1, 2})},  // (x^2 + 1) / (x + 2)
      {.name = "interpolated",
       .data_type = 0,
       .byte_offset = 4,
       .bit_count = 8,
       .conversion = w.Conversion(4, {1, 10, 4, 30, 8, 0})},
      {.name = "nearest",
       .data_type = 0,
       .byte_offset = 4,
       .bit_count = 8,
       .conversion = w.Conversion(5, {1, 1, 3, 5, 5, 9})},
  };
  const std::vector<uint64_t> raw = {0, 1, 2, 3, 4, 6, 9};
  std::string records;
  for (size_t i = 0; i < raw.size(); ++i) records += Le(100 * i, 4) + Le(raw[i], 1);
  w.DataGroup(0, {{.cycles = raw.size(), .data_bytes = 5, .channels = channels}}, w.Dt(records));
  const absl::StatusOr<Mdf4Run> run = ParseMdf4Run(w.bytes(), "conv.mf4", "conv", {});
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_THAT(run->series.times, ElementsAre(1, 2, 3, 4, 5, 6, 7));
  EXPECT_THAT(Column(run->series, 0), ElementsAre(2, 2.5, 3, 3.5, 4, 5, 6.5));
  EXPECT_THAT(Column(run->series, 1),
              ElementsAre(0.5, 2.0 / 3, 5.0 / 4, 2, 17.0 / 6, 37.0 / 8, 82.0 / 11));
  // Below the first key its value, above the last key its value, linear in between.
  EXPECT_THAT(Column(run->series, 2), ElementsAre(10, 10, 10 + 20.0 / 3, 10 + 40.0 / 3, 30, 15, 0));
  // The nearest key's value; on a tie (2 is as near 1 as 3) the lower key's.
  EXPECT_THAT(Column(run->series, 3), ElementsAre(1, 1, 1, 5, 5, 9, 9));
}

TEST(Mdf4Test, VirtualTimeMasterCountsRecords) {
  Mdf4Writer w;
  const std::vector<Mdf4ChannelSpec> channels = {
      {.name = "t",
       .data_type = 0,
       .bit_count = 0,
       .channel_type = 3,
       .sync_type = 1,
       .conversion = w.Conversion(1, {0, 0.5})},
      {.name = "v", .data_type = 4, .bit_count = 32},
  };
  std::string records;
  for (const float v : {3.0f, 4.0f, 5.0f}) records += Le(FloatBits(v), 4);
  w.DataGroup(0, {{.cycles = 3, .data_bytes = 4, .channels = channels}}, w.Dt(records));
  const absl::StatusOr<Mdf4Run> run = ParseMdf4Run(w.bytes(), "v.mf4", "v", {"v"});
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_THAT(run->series.times, ElementsAre(0, 0.5, 1.0));
  EXPECT_THAT(run->series.values, ElementsAre(3, 4, 5));
}

// Records of a time, two float channels and one invalidation byte: bit 0 for "a", bit 3 for "b".
std::string InvalidationFile() {
  const std::vector<Mdf4ChannelSpec> channels = {
      TimeMaster(),
      {.name = "a", .byte_offset = 8, .flags = 2, .invalidation_bit = 0},
      {.name = "b", .byte_offset = 16, .flags = 2, .invalidation_bit = 3},
  };
  const std::vector<uint8_t> invalid = {0x00, 0x01, 0x08, 0x09, 0xf6, 0x00};
  std::string records;
  for (size_t i = 0; i < invalid.size(); ++i) {
    records += LeDouble(static_cast<double>(i)) + LeDouble(10.0 * i) + LeDouble(-1.0 * i) +
               Le(invalid[i], 1);
  }
  Mdf4Writer w;
  w.DataGroup(
      0,
      {{.name = "g", .cycles = 6, .data_bytes = 24, .invalidation_bytes = 1, .channels = channels}},
      w.Dt(records));
  return w.bytes();
}

TEST(Mdf4Test, DropsInvalidSamplesAndSaysHowMany) {
  const std::string file = InvalidationFile();
  const absl::StatusOr<Mdf4Run> a = ParseMdf4Run(file, "inv.mf4", "inv", {"a"});
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_THAT(a->series.times, ElementsAre(0, 2, 4, 5));
  EXPECT_THAT(a->series.values, ElementsAre(0, 20, 40, 50));
  EXPECT_THAT(a->notes, ElementsAre(HasSubstr("2 of 6 samples of group \"g\" dropped")));

  const absl::StatusOr<Mdf4Run> both = ParseMdf4Run(file, "inv.mf4", "inv", {"b", "a"});
  ASSERT_TRUE(both.ok()) << both.status();
  EXPECT_THAT(both->series.times, ElementsAre(0, 4, 5));
  EXPECT_THAT(both->series.values, ElementsAre(-0.0, 0, -4, 40, -5, 50));

  const absl::StatusOr<Mdf4FileSummary> summary = InspectMdf4(file, "inv.mf4");
  ASSERT_TRUE(summary.ok()) << summary.status();
  const Mdf4ChannelSummary& b = summary->groups[0].channels[2];
  EXPECT_EQ(b.samples, 4);
  EXPECT_EQ(b.invalid_samples, 2);
  EXPECT_EQ(b.time_first, 0);
  EXPECT_EQ(b.time_last, 5);
  EXPECT_EQ(b.min, -5);
  EXPECT_EQ(b.max, 0);
  EXPECT_EQ(b.mean, (0 - 1 - 4 - 5) / 4.0);
}

// One unsorted data group: "fast" (id 1: time, speed as double) and "slow" (id 2: time, speed
// as uint16 with a linear conversion), records interleaved.
std::string UnsortedFile() {
  Mdf4Writer w;
  const std::vector<Mdf4ChannelSpec> fast = {
      TimeMaster(), {.name = "speed", .byte_offset = 8}, {.name = "x", .byte_offset = 8}};
  const std::vector<Mdf4ChannelSpec> slow = {TimeMaster(),
                                             {.name = "speed",
                                              .data_type = 0,
                                              .byte_offset = 8,
                                              .bit_count = 16,
                                              .conversion = w.Conversion(1, {0, 100})}};
  std::string data;
  const auto fast_record = [&](double t) { data += Le(1, 1) + LeDouble(t) + LeDouble(10 * t); };
  const auto slow_record = [&](double t, uint64_t v) { data += Le(2, 1) + LeDouble(t) + Le(v, 2); };
  fast_record(0);
  slow_record(0.5, 1);
  fast_record(1);
  fast_record(2);
  slow_record(2.5, 3);
  fast_record(3);
  slow_record(3.5, 4);
  fast_record(4);
  w.DataGroup(1,
              {{.name = "fast", .record_id = 1, .cycles = 5, .data_bytes = 16, .channels = fast},
               {.name = "slow", .record_id = 2, .cycles = 3, .data_bytes = 10, .channels = slow}},
              w.Dt(data));
  return w.bytes();
}

TEST(Mdf4Test, InterpolatesOtherGroupsOntoTheFirstChannelsTimes) {
  const absl::StatusOr<Mdf4Run> run =
      ParseMdf4Run(UnsortedFile(), "u.mf4", "u", {"x", "slow/speed"});
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_THAT(run->series.times, ElementsAre(0, 1, 2, 3, 4));
  // slow/speed is 100, 300, 400 at 0.5, 2.5, 3.5, held outside.
  EXPECT_THAT(run->series.values, ElementsAre(0, 100, 10, 150, 20, 250, 30, 350, 40, 400));
  EXPECT_THAT(run->notes, ElementsAre(HasSubstr("\"slow/speed\" of group \"slow\" interpolated "
                                                "linearly onto the times of group \"fast\"")));
}

TEST(Mdf4Test, NameInSeveralGroupsMustBeQualified) {
  const absl::StatusOr<Mdf4Run> run = ParseMdf4Run(UnsortedFile(), "u.mf4", "u", {"speed"});
  EXPECT_EQ(run.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(run.status().message()),
              HasSubstr("u.mf4: channel \"speed\" is in several groups; name one of fast/speed, "
                        "slow/speed"));
  const absl::StatusOr<Mdf4Run> all = ParseMdf4Run(UnsortedFile(), "u.mf4", "u", {});
  ASSERT_TRUE(all.ok()) << all.status();
  EXPECT_THAT(all->series.channels, ElementsAre("fast/speed", "x", "slow/speed"));
  const absl::StatusOr<Mdf4Run> missing = ParseMdf4Run(UnsortedFile(), "u.mf4", "u", {"time"});
  EXPECT_THAT(std::string(missing.status().message()), HasSubstr("no channel named \"time\""));
}

// 50 records of a time and a float, 12 bytes each.
std::string FiftyRecords() {
  std::string records;
  for (int i = 0; i < 50; ++i) {
    records += LeDouble(0.1 * i) + Le(FloatBits(static_cast<float>(i * i)), 4);
  }
  return records;
}

void ExpectFiftyRecords(const std::string& file) {
  const absl::StatusOr<Mdf4Run> run = ParseMdf4Run(file, "list.mf4", "list", {"square"});
  ASSERT_TRUE(run.ok()) << run.status();
  std::vector<double> times, values;
  for (int i = 0; i < 50; ++i) {
    times.push_back(0.1 * i);
    values.push_back(i * i);
  }
  EXPECT_THAT(run->series.times, ElementsAreArray(times));
  EXPECT_THAT(run->series.values, ElementsAreArray(values));
}

const std::vector<Mdf4ChannelSpec> kSquare = {
    TimeMaster(), {.name = "square", .byte_offset = 8, .bit_count = 32}};

TEST(Mdf4Test, ReadsRecordsSplitAnywhereOverDataListsOfDtBlocks) {
  const std::string records = FiftyRecords();
  Mdf4Writer w;
  const uint64_t second = w.Dl({w.Dt(records.substr(257))});
  const uint64_t first = w.Dl({w.Dt(records.substr(0, 7)), w.Dt(records.substr(7, 250))}, second);
  w.DataGroup(0, {{.cycles = 50, .data_bytes = 12, .channels = kSquare}}, first);
  ExpectFiftyRecords(w.bytes());
}

TEST(Mdf4Test, ReadsHeaderListsOfDeflatedAndTransposedBlocks) {
  const std::string records = FiftyRecords();
  Mdf4Writer w;
  // The transposed block's 245 bytes are 20 rows of 12 and 5 bytes left as they are.
  const uint64_t list = w.Dl({w.Dz(records.substr(0, 245), 12), w.Dz(records.substr(245))});
  w.DataGroup(0, {{.cycles = 50, .data_bytes = 12, .channels = kSquare}}, w.Hl(list));
  ExpectFiftyRecords(w.bytes());
}

TEST(Mdf4Test, GroupWithoutTimeIsListedButGivesNoRun) {
  Mdf4Writer w;
  w.DataGroup(0, {{.name = "raw", .cycles = 2, .data_bytes = 8, .channels = {{.name = "v"}}}},
              w.Dt(LeDouble(1) + LeDouble(3)));
  const absl::StatusOr<Mdf4FileSummary> summary = InspectMdf4(w.bytes(), "raw.mf4");
  ASSERT_TRUE(summary.ok()) << summary.status();
  const Mdf4ChannelSummary& v = summary->groups[0].channels[0];
  EXPECT_EQ(v.samples, 2);
  EXPECT_EQ(v.mean, 2);
  EXPECT_TRUE(std::isnan(v.time_first));
  const absl::StatusOr<Mdf4Run> run = ParseMdf4Run(w.bytes(), "raw.mf4", "raw", {"v"});
  EXPECT_EQ(run.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(run.status().message()),
              HasSubstr("raw.mf4: channel \"v\": its group \"raw\" (##CG block at offset "));
  EXPECT_THAT(std::string(run.status().message()), HasSubstr("has no readable time master"));
}

TEST(Mdf4Test, EmptyBlocksHoldNoRecords) {
  Mdf4Writer w;
  const uint64_t list = w.Dl({w.Dz(""), w.Dt(""), 0, w.Dz("", 12)});
  w.DataGroup(0, {{.cycles = 0, .data_bytes = 12, .channels = kSquare}}, list);
  const absl::StatusOr<Mdf4FileSummary> summary = InspectMdf4(w.bytes(), "empty.mf4");
  ASSERT_TRUE(summary.ok()) << summary.status();
  EXPECT_EQ(summary->groups[0].samples, 0);
  EXPECT_EQ(summary->groups[0].channels[1].samples, 0);
}

TEST(Mdf4Test, UnsupportedFeaturesMakeOnlyTheirChannelsUnreadable) {
  Mdf4Writer w;
  const std::vector<Mdf4ChannelSpec> channels = {
      TimeMaster(),
      {.name = "good", .byte_offset = 8},
      {.name = "text", .byte_offset = 8, .conversion = w.Conversion(7, {1, 2}, {0, 0, 0})},
      {.name = "formula", .byte_offset = 8, .conversion = w.Conversion(3, {})},
      {.name = "vlsd", .data_type = 7, .byte_offset = 8, .channel_type = 1},
      {.name = "array", .byte_offset = 8, .composition = w.Block("##CA", {}, std::string(8, 0))},
      {.name = "string", .data_type = 6, .byte_offset = 8, .bit_count = 64},
  };
  w.DataGroup(0, {{.cycles = 1, .data_bytes = 16, .channels = channels}},
              w.Dt(LeDouble(0) + LeDouble(42)));
  const absl::StatusOr<Mdf4FileSummary> summary = InspectMdf4(w.bytes(), "odd.mf4");
  ASSERT_TRUE(summary.ok()) << summary.status();
  const std::vector<Mdf4ChannelSummary>& c = summary->groups[0].channels;
  ASSERT_EQ(c.size(), 7);
  EXPECT_TRUE(c[1].readable);
  EXPECT_EQ(c[1].mean, 42);
  const std::vector<std::string> features = {"value-to-text conversion", "algebraic conversion",
                                             "variable-length signal data (VLSD)",
                                             "an array (CA block)", "Latin-1 string"};
  for (size_t k = 0; k < features.size(); ++k) {
    EXPECT_FALSE(c[k + 2].readable) << c[k + 2].name;
    EXPECT_THAT(c[k + 2].reason, HasSubstr("odd.mf4: channel \"" + c[k + 2].name + "\""));
    EXPECT_THAT(c[k + 2].reason, HasSubstr(features[k]));
    EXPECT_THAT(c[k + 2].reason, HasSubstr("is not supported"));
  }
  const absl::StatusOr<Mdf4Run> text = ParseMdf4Run(w.bytes(), "odd.mf4", "odd", {"text"});
  EXPECT_EQ(text.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(text.status().message()),
              HasSubstr("odd.mf4: channel \"text\" (##CN block at offset "));
  const absl::StatusOr<Mdf4Run> all = ParseMdf4Run(w.bytes(), "odd.mf4", "odd", {});
  ASSERT_TRUE(all.ok()) << all.status();
  EXPECT_THAT(all->series.channels, ElementsAre("good"));
}

TEST(Mdf4Test, InspectDescribesTypesAndConversions) {
  Mdf4Writer w;
  const std::vector<Mdf4ChannelSpec> channels = {
      TimeMaster(),
      {.name = "u",
       .data_type = 1,
       .byte_offset = 8,
       .bit_offset = 2,
       .bit_count = 12,
       .conversion = w.Conversion(1, {0.5, 2}),
       .unit = "bar"},
  };
  w.DataGroup(0, {{.name = "engine", .cycles = 0, .data_bytes = 10, .channels = channels}}, 0);
  const absl::StatusOr<Mdf4FileSummary> summary = InspectMdf4(w.bytes(), "e.mf4");
  ASSERT_TRUE(summary.ok()) << summary.status();
  EXPECT_EQ(summary->version, "4.10");
  ASSERT_EQ(summary->groups.size(), 1);
  EXPECT_EQ(summary->groups[0].name, "engine");
  EXPECT_EQ(summary->groups[0].samples, 0);
  const Mdf4ChannelSummary& time = summary->groups[0].channels[0];
  EXPECT_TRUE(time.master);
  EXPECT_EQ(time.data_type, "float64 LE");
  EXPECT_EQ(time.conversion, "identity");
  const Mdf4ChannelSummary& u = summary->groups[0].channels[1];
  EXPECT_EQ(u.unit, "bar");
  EXPECT_EQ(u.data_type, "uint12 BE");
  EXPECT_EQ(u.conversion, "linear 0.5 + 2 x");
  EXPECT_EQ(u.samples, 0);
  EXPECT_TRUE(std::isnan(u.mean));
}

TEST(Mdf4Test, RunIdIsTheFileNameWithoutExtension) {
  test_support::ScratchDir dir("mdf4_test");
  Mdf4Writer w;
  w.DataGroup(0, {{.cycles = 50, .data_bytes = 12, .channels = kSquare}}, w.Dt(FiftyRecords()));
  test_support::WriteFile(dir.root() / "bench_03.mf4", w.bytes());
  const absl::StatusOr<Mdf4Run> run = ReadMdf4Run((dir.root() / "bench_03.mf4").string(), {});
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_EQ(run->series.id, "bench_03");
  EXPECT_EQ(run->series.samples(), 50);
}

}  // namespace
}  // namespace wasserwarp
