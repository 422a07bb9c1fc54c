// The MDF 4 reader on broken and hostile files: each is a clear InvalidArgument (or, for a
// limit, ResourceExhausted) that names the file and where in it the problem is; none crashes,
// hangs or allocates what the file merely claims.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "mdf4_writer.h"
#include "wasserwarp/mdf4.h"

namespace wasserwarp {
namespace {

using test_support::Le;
using test_support::LeDouble;
using test_support::Mdf4ChannelSpec;
using test_support::Mdf4Writer;
using ::testing::HasSubstr;
using ::testing::StartsWith;

constexpr char kSource[] = "bad.mf4";

const std::vector<Mdf4ChannelSpec> kChannels = {
    {.name = "time", .bit_count = 64, .channel_type = 2, .sync_type = 1},
    {.name = "v", .byte_offset = 8, .bit_count = 64}};

std::string Records(int count) {
  std::string records;
  for (int i = 0; i < count; ++i) records += LeDouble(i) + LeDouble(2.0 * i);
  return records;
}

// A valid file of 10 records of (time, v), its data given by `data` of the writer.
template <typename Data>
std::string File(Mdf4Writer& w, Data data, uint64_t cycles = 10) {
  w.DataGroup(0, {{.name = "g", .cycles = cycles, .data_bytes = 16, .channels = kChannels}},
              data(w));
  return w.bytes();
}

std::string PlainFile() {
  Mdf4Writer w;
  return File(w, [](Mdf4Writer& w) { return w.Dt(Records(10)); });
}

// The offsets of the blocks with `id` in `file`, in order.
std::vector<uint64_t> Offsets(const std::string& file, const std::string& id) {
  std::vector<uint64_t> offsets;
  for (size_t pos = file.find(id, 64); pos != std::string::npos; pos = file.find(id, pos + 1)) {
    if (pos % 8 == 0) offsets.push_back(pos);
  }
  return offsets;
}

void Patch(std::string& file, uint64_t offset, uint64_t value, size_t bytes = 8) {
  file.replace(offset, bytes, Le(value, bytes));
}

absl::Status Inspect(const std::string& file, const Mdf4Limits& limits = {}) {
  return InspectMdf4(file, kSource, limits).status();
}

void ExpectInvalid(const absl::Status& status, const std::string& detail) {
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
  EXPECT_THAT(std::string(status.message()), StartsWith(absl::StrCat(kSource, ": ")));
  EXPECT_THAT(std::string(status.message()), HasSubstr(detail));
}

TEST(Mdf4HostileTest, PlainFileReads) { EXPECT_TRUE(Inspect(PlainFile()).ok()); }

TEST(Mdf4HostileTest, NotMdf4) {
  ExpectInvalid(Inspect("MDF"), "not an MDF file");
  ExpectInvalid(Inspect(std::string(100, 'x')), "not an MDF file");
  Mdf4Writer v3(330);
  ExpectInvalid(Inspect(v3.bytes()), "MDF version 3.30 is not supported");
}

TEST(Mdf4HostileTest, LinkOutsideTheFile) {
  std::string file = PlainFile();
  const uint64_t dg = Offsets(file, "##DG")[0];
  Patch(file, dg + 24 + 8, uint64_t{1} << 40);
  ExpectInvalid(Inspect(file),
                absl::StrCat("##DG block at offset ", dg, ": the channel group at offset ",
                             uint64_t{1} << 40, " is outside the file"));
  Patch(file, dg + 24 + 8, 8);  // inside the identification block
  ExpectInvalid(Inspect(file), "the channel group at offset 8 is outside the file");
  Patch(file, dg + 24 + 8, file.size() - 8);  // too near the end for a block header
  ExpectInvalid(Inspect(file), "is outside the file");
}

TEST(Mdf4HostileTest, LinkToTheWrongKindOfBlock) {
  std::string file = PlainFile();
  const uint64_t dg = Offsets(file, "##DG")[0];
  Patch(file, dg + 24 + 8, Offsets(file, "##TX")[0]);
  ExpectInvalid(Inspect(file), "is a ##TX block, expected ##CG");
}

TEST(Mdf4HostileTest, CyclesAreErrors) {
  std::string channels = PlainFile();
  // The writer writes the chain back to front: the last channel first.
  const uint64_t cn = Offsets(channels, "##CN")[0];
  Patch(channels, cn + 24, Offsets(channels, "##CN")[1]);
  ExpectInvalid(Inspect(channels),
                absl::StrCat("##CN block at offset ", cn, ": the chain of channels loops back"));

  std::string groups = PlainFile();
  const uint64_t dg = Offsets(groups, "##DG")[0];
  Patch(groups, dg + 24, dg);
  ExpectInvalid(Inspect(groups), "the chain of data groups loops back");

  Mdf4Writer w;
  std::string lists = File(w, [](Mdf4Writer& w) {
    const std::string records = Records(10);
    return w.Dl({w.Dt(records.substr(0, 80))}, w.Dl({w.Dt(records.substr(80))}));
  });
  const std::vector<uint64_t> dl = Offsets(lists, "##DL");
  ASSERT_EQ(dl.size(), 2);
  EXPECT_TRUE(Inspect(lists).ok());
  Patch(lists, dl[0] + 24, dl[1]);
  Patch(lists, dl[1] + 24, dl[0]);
  ExpectInvalid(Inspect(lists), "the chain of data lists loops back");
}

TEST(Mdf4HostileTest, CountsThatOverflow) {
  std::string cycles = PlainFile();
  const uint64_t cg = Offsets(cycles, "##CG")[0];
  Patch(cycles, cg + 24 + 6 * 8 + 8, UINT64_MAX);
  ExpectInvalid(Inspect(cycles), "its data holds 10 records of channel group \"g\"");

  std::string links = PlainFile();
  Patch(links, cg + 16, uint64_t{1} << 61);
  ExpectInvalid(Inspect(links), absl::StrCat("##CG block at offset ", cg, ": its ",
                                             uint64_t{1} << 61, " links do not fit"));

  std::string length = PlainFile();
  Patch(length, cg + 8, UINT64_MAX - 16);
  ExpectInvalid(Inspect(length), "reaches past the end of the file");

  std::string record = PlainFile();
  Patch(record, cg + 24 + 6 * 8 + 24, UINT32_MAX, 4);  // data bytes per record
  ExpectInvalid(Inspect(record), "its data holds 0 records");

  std::string offset = PlainFile();
  const uint64_t cn = Offsets(offset, "##CN")[1];
  Patch(offset, cn + 24 + 8 * 8 + 4, UINT32_MAX - 1, 4);  // byte offset
  ExpectInvalid(Inspect(offset), "does not fit in the records' 16 data bytes");
}

TEST(Mdf4HostileTest, EveryTruncationIsAnError) {
  Mdf4Writer w;
  const std::string file = File(w, [](Mdf4Writer& w) {
    const std::string records = Records(10);
    return w.Hl(w.Dl({w.Dz(records.substr(0, 70), 16), w.Dt(records.substr(70))}));
  });
  ASSERT_TRUE(Inspect(file).ok()) << Inspect(file);
  for (size_t size = 0; size < file.size(); ++size) {
    SCOPED_TRACE(size);
    EXPECT_EQ(Inspect(file.substr(0, size)).code(), absl::StatusCode::kInvalidArgument);
  }
}

TEST(Mdf4HostileTest, ZipBombHitsTheLimit) {
  Mdf4Writer w;
  const std::string file = File(
      w, [](Mdf4Writer& w) { return w.Dz(std::string(64 << 20, '\0')); }, 4 << 20);
  ASSERT_LT(file.size(), 200000);
  const absl::Status status = Inspect(file, {.max_data_bytes = 1 << 20});
  EXPECT_EQ(status.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(std::string(status.message()), StartsWith("bad.mf4: ##DZ block at offset "));
  EXPECT_THAT(std::string(status.message()),
              HasSubstr("more than the 1048576 bytes left of the file's limit"));
}

TEST(Mdf4HostileTest, DataLimitCountsEveryGroup) {
  Mdf4Writer w;
  for (int k = 0; k < 3; ++k) {
    w.DataGroup(0, {{.cycles = 1000, .data_bytes = 16, .channels = kChannels}},
                w.Dz(Records(1000)));
  }
  EXPECT_TRUE(Inspect(w.bytes(), {.max_data_bytes = 48000}).ok());
  const absl::Status status = Inspect(w.bytes(), {.max_data_bytes = 47999});
  EXPECT_EQ(status.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(std::string(status.message()), HasSubstr("more than the 15999 bytes left"));
}

TEST(Mdf4HostileTest, ValuesBeyondTheLimit) {
  const absl::Status status = Inspect(PlainFile(), {.max_values = 19});
  EXPECT_EQ(status.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(std::string(status.message()),
              HasSubstr("2 channels of 10 records take the file past the limit of 19 values"));
  EXPECT_TRUE(Inspect(PlainFile(), {.max_values = 20}).ok());
}

TEST(Mdf4HostileTest, DeflatedBlocksThatLie) {
  Mdf4Writer w;
  const std::string file = File(w, [](Mdf4Writer& w) { return w.Dz(Records(10)); });
  const uint64_t dz = Offsets(file, "##DZ")[0];
  const uint64_t original = dz + 24 + 8;
  const uint64_t compressed = dz + 24 + 16;

  std::string impossible = file;
  Patch(impossible, original, uint64_t{1} << 50);
  ExpectInvalid(Inspect(impossible), "more than deflate can make");

  std::string more = file;
  Patch(more, original, 161);
  ExpectInvalid(Inspect(more), "inflates to 160 bytes, not the 161 it declares");

  std::string less = file;
  Patch(less, original, 159);
  ExpectInvalid(Inspect(less), "inflates to more than the 159 bytes it declares");

  std::string beyond = file;
  Patch(beyond, compressed, 1 << 20);
  ExpectInvalid(Inspect(beyond), "truncated: it declares 1048576 compressed bytes");

  std::string corrupt = file;
  corrupt[dz + 24 + 24 + 4] ^= 0x55;
  ExpectInvalid(Inspect(corrupt), "");
}

TEST(Mdf4HostileTest, MalformedGroups) {
  std::string record_ids = PlainFile();
  Patch(record_ids, Offsets(record_ids, "##DG")[0] + 24 + 32, 3, 1);
  ExpectInvalid(Inspect(record_ids), "record id size 3 is not 0, 1, 2, 4 or 8");

  Mdf4Writer w;
  w.DataGroup(1, {{.record_id = 7, .cycles = 1, .data_bytes = 16, .channels = kChannels}},
              w.Dt(Le(7, 1) + Records(1) + Le(8, 1) + Records(1)));
  ExpectInvalid(Inspect(w.bytes()), "unknown record id 8 at data byte 17");

  Mdf4Writer bit;
  std::vector<Mdf4ChannelSpec> channels = kChannels;
  channels[1].flags = 2;
  channels[1].invalidation_bit = 8;
  bit.DataGroup(0, {{.cycles = 1, .data_bytes = 16, .invalidation_bytes = 1, .channels = channels}},
                bit.Dt(Records(1) + Le(0, 1)));
  ExpectInvalid(Inspect(bit.bytes()), "invalidation bit 8 is outside the records' 1");
}

// Random bytes overwritten in valid files of every kind of data block: whatever comes of it,
// the reader returns.
TEST(Mdf4HostileTest, MutatedFilesNeverCrash) {
  std::vector<std::string> files = {PlainFile()};
  Mdf4Writer a;
  files.push_back(File(a, [](Mdf4Writer& w) { return w.Dz(Records(10), 16); }));
  Mdf4Writer b;
  files.push_back(File(b, [](Mdf4Writer& w) { return w.Hl(w.Dl({w.Dt(Records(10))})); }));
  std::mt19937 random(18);
  size_t refused = 0;
  for (int round = 0; round < 3000; ++round) {
    std::string file = files[round % files.size()];
    const int changes = 1 + static_cast<int>(random() % 4);
    for (int c = 0; c < changes; ++c) {
      file[random() % file.size()] = static_cast<char>(random());
    }
    const absl::Status status = Inspect(file, {.max_data_bytes = 1 << 20});
    const absl::Status run =
        ParseMdf4Run(file, kSource, "bad", {}, {.max_data_bytes = 1 << 20}).status();
    for (const absl::Status& s : {status, run}) {
      if (s.ok()) continue;
      ++refused;
      EXPECT_THAT(s.code(), ::testing::AnyOf(absl::StatusCode::kInvalidArgument,
                                             absl::StatusCode::kResourceExhausted))
          << s;
      EXPECT_THAT(std::string(s.message()), StartsWith(kSource)) << s;
    }
  }
  EXPECT_GT(refused, 0);
}

}  // namespace
}  // namespace wasserwarp
