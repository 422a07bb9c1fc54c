#include "wasserwarp/csv.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "scratch_dir.h"
#include "wasserwarp/run_files.h"

namespace wasserwarp {
namespace {

namespace fs = std::filesystem;
using test_support::ScratchDir;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::StartsWith;

constexpr char kSource[] = "runs/sim_03.csv";

struct BadCase {
  std::string name;
  std::string content;
  std::string message;  // the exact start of the error message
};

void PrintTo(const BadCase& c, std::ostream* os) { *os << c.name; }

class BadSeriesCsvTest : public testing::TestWithParam<BadCase> {};

TEST_P(BadSeriesCsvTest, IsInvalidArgumentWithLocation) {
  const absl::StatusOr<Series> series = ParseSeriesCsv(GetParam().content, kSource, "sim_03");
  ASSERT_FALSE(series.ok());
  EXPECT_EQ(series.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(series.status().message()), StartsWith(GetParam().message));
}

INSTANTIATE_TEST_SUITE_P(
    Errors, BadSeriesCsvTest,
    testing::Values(
        BadCase{"Empty", "", "runs/sim_03.csv:1:1: expected the header \"time,<channel>,...\""},
        BadCase{"OnlyBlankLines", "\n \r\n", "runs/sim_03.csv:1:1: expected the header"},
        BadCase{"BlankHeader", "\ntime,a\n0,1\n", "runs/sim_03.csv:1:1: expected the header"},
        BadCase{"FirstColumnNotTime", "t,a\n0,1\n",
                "runs/sim_03.csv:1:1: the first column must be named \"time\", got \"t\""},
        BadCase{"TimeNotFirst", "a,time\n0,1\n",
                "runs/sim_03.csv:1:1: the first column must be named \"time\", got \"a\""},
        BadCase{"NoChannel", "time\n0\n",
                "runs/sim_03.csv:1:2: expected at least one channel after \"time\""},
        BadCase{"EmptyChannelName", "time,a, ,b\n0,1,2,3\n",
                "runs/sim_03.csv:1:3: empty channel name"},
        BadCase{"DuplicateChannel", "time,a,b,a\n0,1,2,3\n",
                "runs/sim_03.csv:1:4: duplicate channel \"a\" (also column 2)"},
        BadCase{"NoDataRows", "time,a\n", "runs/sim_03.csv: no data rows after the header"},
        BadCase{"NoDataRowsBlankAfter", "time,a\r\n\r\n\n",
                "runs/sim_03.csv: no data rows after the header"},
        BadCase{"BlankLineBetweenSamples", "time,a\n0,1\n\n1,2\n",
                "runs/sim_03.csv:3:1: blank line between samples"},
        BadCase{"TooFewFields", "time,a,b\n0,1,2\n1,1\n",
                "runs/sim_03.csv:3:3: expected 3 fields (time and 2 channels), got 2"},
        BadCase{"TooManyFields", "time,a\n0,1,2\n",
                "runs/sim_03.csv:2:3: expected 2 fields (time and 1 channels), got 3"},
        BadCase{"DecimalComma", "time,a\n0,1\n1,1,5\n", "runs/sim_03.csv:3:3: expected 2 fields"},
        BadCase{"Semicolons", "time,a\n0;1\n", "runs/sim_03.csv:2:2: expected 2 fields"},
        BadCase{"BadExponent", "time,a,b\n0,1,2\n1,3,2e\n",
                "runs/sim_03.csv:3:3: expected a number, got \"2e\""},
        BadCase{"BadTime", "time,a\nx,1\n", "runs/sim_03.csv:2:1: expected a number, got \"x\""},
        BadCase{"EmptyValue", "time,a\n0,\n", "runs/sim_03.csv:2:2: expected a number, got \"\""},
        BadCase{"TwoNumbersInAField", "time,a\n0,1 2\n",
                "runs/sim_03.csv:2:2: expected a number, got \"1 2\""},
        BadCase{"Hex", "time,a\n0,0x10\n", "runs/sim_03.csv:2:2: expected a number, got \"0x10\""},
        BadCase{"PlusMinus", "time,a\n0,+-1\n",
                "runs/sim_03.csv:2:2: expected a number, got \"+-1\""},
        BadCase{"Quoted", "time,a\n0,\"1\"\n",
                "runs/sim_03.csv:2:2: expected a number, got \"\\\"1\\\"\""},
        BadCase{"NanValue", "time,a\n0,1\n1,nan\n",
                "runs/sim_03.csv:3:2: expected a finite number, got \"nan\""},
        BadCase{"NegativeInfValue", "time,a,b\n0,1,-inf\n",
                "runs/sim_03.csv:2:3: expected a finite number, got \"-inf\""},
        BadCase{"InfTime", "time,a\n0,1\ninf,1\n",
                "runs/sim_03.csv:3:1: expected a finite number, got \"inf\""},
        BadCase{"NanTime", "time,a\nNaN,1\n",
                "runs/sim_03.csv:2:1: expected a finite number, got \"NaN\""},
        BadCase{"Overflow", "time,a\n0,1e999\n",
                "runs/sim_03.csv:2:2: number out of range: \"1e999\""},
        BadCase{"RepeatedTime", "time,a\n0,1\n1,2\n1.0,3\n",
                "runs/sim_03.csv:4:1: time 1.0 is not after time 1 on line 3"},
        BadCase{"DecreasingTime", "time,a\n0,1\n2,2\n1.5,3\n",
                "runs/sim_03.csv:4:1: time 1.5 is not after time 2 on line 3"}),
    [](const testing::TestParamInfo<BadCase>& info) { return info.param.name; });

TEST(ParseSeriesCsvTest, ReadsCrlfBomSpacesAndTrailingBlankLines) {
  const absl::StatusOr<Series> series = ParseSeriesCsv(
      "\xEF\xBB\xBF time , speed ,\tyaw \r\n 0 , 1.5 , -2 \r\n0.5,+3,1e-3\r\n\r\n \n", kSource,
      "sim_03");
  ASSERT_TRUE(series.ok()) << series.status();
  EXPECT_EQ(series->id, "sim_03");
  EXPECT_THAT(series->channels, ElementsAre("speed", "yaw"));
  EXPECT_THAT(series->times, ElementsAre(0.0, 0.5));
  EXPECT_THAT(series->values, ElementsAre(1.5, -2.0, 3.0, 0.001));
}

TEST(ParseSeriesCsvTest, ReadsScientificNotationWithoutFinalNewline) {
  const absl::StatusOr<Series> series =
      ParseSeriesCsv("time,a\n-1E3,-2.5e-07\n.5,5.\n1e2,0", kSource, "r");
  ASSERT_TRUE(series.ok()) << series.status();
  EXPECT_THAT(series->times, ElementsAre(-1000.0, 0.5, 100.0));
  EXPECT_THAT(series->values, ElementsAre(-2.5e-7, 5.0, 0.0));
}

TEST(ParseSeriesCsvTest, ReadsManyChannelsRowMajor) {
  constexpr int kChannels = 64;
  std::string content = "time";
  for (int c = 0; c < kChannels; ++c) absl::StrAppend(&content, ",ch", c);
  for (int i = 0; i < 3; ++i) {
    absl::StrAppend(&content, "\n", i);
    for (int c = 0; c < kChannels; ++c) absl::StrAppend(&content, ",", i * 1000 + c);
  }
  const absl::StatusOr<Series> series = ParseSeriesCsv(content, kSource, "r");
  ASSERT_TRUE(series.ok()) << series.status();
  ASSERT_EQ(series->num_channels(), kChannels);
  EXPECT_EQ(series->channels[63], "ch63");
  ASSERT_EQ(series->samples(), 3);
  EXPECT_EQ(series->value(2, 17), 2017.0);
}

TEST(FormatSeriesCsvTest, ReadsBackBitForBit) {
  const Series run = {.id = "r",
                      .channels = {"a", "b.c"},
                      .times = {0, 0.1, 7},
                      .values = {1.0 / 3, -0.0, 1e300, 5e-324, 2, -7.25}};
  const absl::StatusOr<std::string> text = FormatSeriesCsv(run);
  ASSERT_TRUE(text.ok()) << text.status();
  EXPECT_EQ(text->substr(0, 11), "time,a,b.c\n");
  const absl::StatusOr<Series> back = ParseSeriesCsv(*text, "r.csv", "r");
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->channels, run.channels);
  EXPECT_EQ(back->times, run.times);
  EXPECT_EQ(back->values, run.values);
  EXPECT_TRUE(std::signbit(back->values[1]));
}

TEST(FormatSeriesCsvTest, RefusesNamesACsvHeaderCannotHold) {
  for (const std::string name : {"", "a,b", " a", "a\n"}) {
    const Series run = {.id = "r", .channels = {name}, .times = {0}, .values = {1}};
    EXPECT_EQ(FormatSeriesCsv(run).status().code(), absl::StatusCode::kInvalidArgument) << name;
  }
}

TEST(ReadSeriesCsvTest, TakesTheIdFromTheFileNameAndNamesTheFileInErrors) {
  const ScratchDir dir("csv_test_");
  const absl::StatusOr<Series> good = ReadSeriesCsv(dir.Write("sim_03.csv", "time,a\n0,1\n"));
  ASSERT_TRUE(good.ok()) << good.status();
  EXPECT_EQ(good->id, "sim_03");

  const absl::StatusOr<Series> other = ReadSeriesCsv(dir.Write("run.v2.txt", "time,a\n0,1\n"));
  ASSERT_TRUE(other.ok()) << other.status();
  EXPECT_EQ(other->id, "run.v2.txt");

  const std::string bad = dir.Write("bad.csv", "time,a\n0,1\n1,x\n");
  const absl::StatusOr<Series> error = ReadSeriesCsv(bad);
  EXPECT_EQ(error.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(error.status().message()), StartsWith(bad + ":3:2: "));
}

TEST(ReadSeriesCsvTest, MissingFileIsNotFound) {
  const ScratchDir dir("csv_test_");
  const absl::StatusOr<Series> series = ReadSeriesCsv(dir.Path("missing.csv"));
  EXPECT_EQ(series.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(series.status().message()), HasSubstr(dir.Path("missing.csv")));
}

TEST(ReadSeriesCsvTest, DirectoryIsAnError) {
  const ScratchDir dir("csv_test_");
  const absl::StatusOr<Series> series = ReadSeriesCsv(dir.Path());
  ASSERT_FALSE(series.ok());
  EXPECT_THAT(std::string(series.status().message()), HasSubstr(dir.Path()));
}

TEST(ExpandRunPathsTest, ExpandsDirectoriesSortedAndKeepsFilesInOrder) {
  const ScratchDir dir("csv_test_");
  dir.Write("runs/b.csv", "");
  dir.Write("runs/a.csv", "");
  dir.Write("runs/a10.csv", "");
  dir.Write("runs/a2.mf4", "");
  dir.Write("runs/notes.txt", "");
  dir.Write("runs/nested/c.csv", "");
  fs::create_directories(dir.Path("runs/folder.csv"));
  const std::string single = dir.Write("z.csv", "");

  const absl::StatusOr<std::vector<std::string>> files = ExpandRunPaths({single, dir.Path("runs")});
  ASSERT_TRUE(files.ok()) << files.status();
  EXPECT_THAT(*files, ElementsAre(single, dir.Path("runs/a.csv"), dir.Path("runs/a10.csv"),
                                  dir.Path("runs/a2.mf4"), dir.Path("runs/b.csv")));
}

TEST(ExpandRunPathsTest, MissingPathIsNotFoundNamingIt) {
  const ScratchDir dir("csv_test_");
  const absl::StatusOr<std::vector<std::string>> files = ExpandRunPaths({dir.Path("nope")});
  EXPECT_EQ(files.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(files.status().message()), HasSubstr(dir.Path("nope")));
}

TEST(ExpandRunPathsTest, DirectoryWithoutCsvIsNotFoundNamingIt) {
  const ScratchDir dir("csv_test_");
  dir.Write("empty/readme.txt", "");
  const absl::StatusOr<std::vector<std::string>> files = ExpandRunPaths({dir.Path("empty")});
  EXPECT_EQ(files.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(files.status().message()), HasSubstr(dir.Path("empty")));
}

TEST(ReadRunsTest, ReadsEveryRunInOrder) {
  const ScratchDir dir("csv_test_");
  dir.Write("sim/s2.csv", "time,a\n0,2\n");
  dir.Write("sim/s1.csv", "time,a\n0,1\n");
  const absl::StatusOr<std::vector<Series>> runs = ReadRuns({dir.Path("sim")});
  ASSERT_TRUE(runs.ok()) << runs.status();
  ASSERT_EQ(runs->size(), 2);
  EXPECT_EQ((*runs)[0].id, "s1");
  EXPECT_EQ((*runs)[1].id, "s2");
  EXPECT_EQ((*runs)[1].values[0], 2.0);
}

TEST(ReadRunsTest, DuplicateIdsNameBothFiles) {
  const ScratchDir dir("csv_test_");
  const std::string first = dir.Write("a/run.csv", "time,a\n0,1\n");
  const std::string second = dir.Write("b/run.csv", "time,a\n0,1\n");
  const absl::StatusOr<std::vector<Series>> runs = ReadRuns({dir.Path("a"), dir.Path("b")});
  EXPECT_EQ(runs.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(runs.status().message()),
              HasSubstr("duplicate run id \"run\": " + first + " and " + second));
}

TEST(ReadRunsTest, PassesOnTheFirstBadFile) {
  const ScratchDir dir("csv_test_");
  dir.Write("sim/s1.csv", "time,a\n0,1\n");
  const std::string bad = dir.Write("sim/s2.csv", "time,a\n0,1\n0,2\n");
  const absl::StatusOr<std::vector<Series>> runs = ReadRuns({dir.Path("sim")});
  EXPECT_THAT(std::string(runs.status().message()), StartsWith(bad + ":3:1: time 0 is not after"));
}

TEST(ReadRunsTest, AFolderOfManyRunsIsReadInOrderAndItsFirstBadFileReported) {
  const ScratchDir dir("csv_test_");
  std::vector<std::string> bad;
  for (int k = 0; k < 300; ++k) {
    const std::string name = absl::StrCat("sim/s", 1000 + k, ".csv");
    const bool broken = k == 120 || k == 250;
    const std::string file =
        dir.Write(name, broken ? "time,a\n0,1\n0,2\n" : absl::StrCat("time,a\n0,", k, "\n"));
    if (broken) bad.push_back(file);
  }
  absl::StatusOr<std::vector<Series>> runs = ReadRuns({dir.Path("sim")});
  EXPECT_THAT(std::string(runs.status().message()), StartsWith(bad[0] + ":3:1:"));
  for (const std::string& file : bad) std::filesystem::remove(file);
  runs = ReadRuns({dir.Path("sim")});
  ASSERT_TRUE(runs.ok()) << runs.status();
  ASSERT_EQ(runs->size(), 298u);
  for (size_t k = 1; k < runs->size(); ++k) EXPECT_LT((*runs)[k - 1].id, (*runs)[k].id);
  EXPECT_EQ((*runs)[0].values[0], 0.0);
  EXPECT_EQ(runs->back().values[0], 299.0);
}

// Each run's source is its file and the SHA-256 of its bytes, as sha256sum gives them; a CSV
// file's are of the bytes parsed, and the runs are ReadRuns'.
TEST(ReadRunsTest, WithSourcesEveryRunNamesItsFileAndItsBytesDigest) {
  const ScratchDir dir("csv_test_");
  const std::string first = dir.Write("sim/s1.csv", "time,a\n0,1\n");
  const std::string second = dir.Write("sim/s2.csv", "time,a\n0,2\n");
  std::vector<std::string> notes;
  const absl::StatusOr<RunFileSet> read = ReadRunsWithSources({dir.Path("sim")}, {}, notes);
  ASSERT_TRUE(read.ok()) << read.status();
  const absl::StatusOr<std::vector<Series>> runs = ReadRuns({dir.Path("sim")});
  ASSERT_TRUE(runs.ok()) << runs.status();
  ASSERT_EQ(read->runs.size(), 2u);
  for (size_t k = 0; k < runs->size(); ++k) {
    EXPECT_EQ(read->runs[k].id, (*runs)[k].id);
    EXPECT_EQ(read->runs[k].values, (*runs)[k].values);
  }
  EXPECT_THAT(
      read->sources,
      ElementsAre(
          RunSource{.file = first,
                    .sha256 = "2b3c887b029aa22f454f28a1d188de813a0c66553b2637d5e7aa49f7227f7bfe"},
          RunSource{.file = second,
                    .sha256 = "23bd3cb18a582ee350c1a97856e75e281fa12ee1b5245c0e87400a6c73e9fe5f"}));
}

// An MDF 4 file, read by its own reader, is hashed from the file: one of asammdf's test files.
TEST(ReadRunsTest, WithSourcesAnMdf4FileNamesItsBytesDigest) {
  const fs::path shared = fs::path(WASSERWARP_MDF4_DATA) / "test_batch.mf4";
  if (!fs::exists(shared)) GTEST_SKIP() << shared << " is not there";
  const ScratchDir dir("csv_test_");
  const std::string mdf4 = dir.Path("t.mf4");
  fs::copy_file(shared, mdf4);
  std::vector<std::string> notes;
  const absl::StatusOr<RunFileSet> read = ReadRunsWithSources({mdf4}, {}, notes);
  ASSERT_TRUE(read.ok()) << read.status();
  ASSERT_EQ(read->runs.size(), 1u);
  EXPECT_EQ(read->runs[0].id, "t");
  EXPECT_THAT(read->sources,
              ElementsAre(RunSource{
                  .file = mdf4,
                  .sha256 = "a8385e35f64ad46c617c3dbaf109efe8b7b941884210fcb16e9ceafa1167f266"}));
}

TEST(ReadWeightsCsvTest, SkipsHeaderCommentsAndBlankLines) {
  const ScratchDir dir("csv_test_");
  const absl::StatusOr<std::map<std::string, double>> weights = ReadWeightsCsv(
      dir.Write("w.csv",
                "\xEF\xBB\xBFid,weight\r\n# measured twice\r\n\r\n ref_1 , 2 \r\nref_2,0.5e1\n"
                "  # indented comment\nref_3,0\n"));
  ASSERT_TRUE(weights.ok()) << weights.status();
  EXPECT_EQ(*weights, (std::map<std::string, double>{{"ref_1", 2}, {"ref_2", 5}, {"ref_3", 0}}));
}

class BadWeightsCsvTest : public testing::TestWithParam<BadCase> {};

TEST_P(BadWeightsCsvTest, IsInvalidArgumentWithLocation) {
  const ScratchDir dir("csv_test_");
  const std::string path = dir.Write("w.csv", GetParam().content);
  const absl::StatusOr<std::map<std::string, double>> weights = ReadWeightsCsv(path);
  ASSERT_FALSE(weights.ok());
  EXPECT_EQ(weights.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(weights.status().message()), StartsWith(path + GetParam().message));
}

INSTANTIATE_TEST_SUITE_P(
    Errors, BadWeightsCsvTest,
    testing::Values(
        BadCase{"Empty", "", ": no weights"},
        BadCase{"OnlyHeaderAndComments", "id,weight\n# none yet\n", ": no weights"},
        BadCase{"OneField", "a,1\nb\n", ":2:2: expected \"run_id,weight\", got 1 fields"},
        BadCase{"ThreeFields", "a,1,2\n", ":1:3: expected \"run_id,weight\", got 3 fields"},
        BadCase{"EmptyId", " ,1\n", ":1:1: empty run id"},
        BadCase{"NotANumber", "a,heavy\n", ":1:2: expected a number, got \"heavy\""},
        BadCase{"HeaderNotFirst", "a,1\nid,weight\n", ":2:2: expected a number, got \"weight\""},
        BadCase{"Negative", "a,1\nb,-0.5\n", ":2:2: a weight must not be negative, got \"-0.5\""},
        BadCase{"Nan", "a,nan\n", ":1:2: expected a finite number, got \"nan\""},
        BadCase{"Inf", "a,inf\n", ":1:2: expected a finite number, got \"inf\""},
        BadCase{"Duplicate", "a,1\n# again\na,2\n",
                ":3:1: duplicate run id \"a\" (first on line 1)"}),
    [](const testing::TestParamInfo<BadCase>& info) { return info.param.name; });

TEST(ReadWeightsCsvTest, MissingFileIsNotFound) {
  const ScratchDir dir("csv_test_");
  const absl::StatusOr<std::map<std::string, double>> weights = ReadWeightsCsv(dir.Path("w.csv"));
  EXPECT_EQ(weights.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(weights.status().message()), HasSubstr(dir.Path("w.csv")));
}

std::vector<Series> RunsWithIds(const std::vector<std::string>& ids) {
  std::vector<Series> runs;
  for (const std::string& id : ids) {
    Series run;
    run.id = id;
    runs.push_back(run);
  }
  return runs;
}

TEST(WeightsForRunsTest, OrdersWeightsLikeTheRuns) {
  const absl::StatusOr<std::vector<double>> weights =
      WeightsForRuns({{"a", 1}, {"b", 2}, {"c", 3}}, RunsWithIds({"c", "a", "b"}), "w.csv");
  ASSERT_TRUE(weights.ok()) << weights.status();
  EXPECT_THAT(*weights, ElementsAre(3.0, 1.0, 2.0));
}

TEST(WeightsForRunsTest, MissingWeightNamesTheRuns) {
  const absl::StatusOr<std::vector<double>> weights =
      WeightsForRuns({{"b", 2}}, RunsWithIds({"a", "b", "c"}), "w.csv");
  EXPECT_EQ(weights.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(weights.status().message(), "w.csv: no weight for run \"a\", \"c\"");
}

TEST(WeightsForRunsTest, UnknownRunIsNamed) {
  const absl::StatusOr<std::vector<double>> weights =
      WeightsForRuns({{"a", 1}, {"ghost", 2}}, RunsWithIds({"a"}), "w.csv");
  EXPECT_EQ(weights.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(weights.status().message(), "w.csv: weight for unknown run \"ghost\"");
}

}  // namespace
}  // namespace wasserwarp
