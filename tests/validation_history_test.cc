// The order of `validations history` and its JSON, on records made here: the version
// comparator, which records are left out, ties, and the array's shape.

#include "validation_history.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "nlohmann/json.hpp"
#include "wasserwarp/v1/validation.pb.h"
#include "wire/validation_history.h"
#include "wire/version_order.h"

namespace wasserwarp::cli {
namespace {

using wire::CompareVersions;
using wire::HistoryLabelKey;
using wire::HistoryOf;

using ::testing::ElementsAre;

TEST(CompareVersionsTest, NumbersCompareAsNumbers) {
  EXPECT_LT(CompareVersions("4.9.2", "4.10.0"), 0);
  EXPECT_GT(CompareVersions("4.10.0", "4.9.2"), 0);
  EXPECT_LT(CompareVersions("1.2", "1.10"), 0);
  EXPECT_LT(CompareVersions("9", "10"), 0);
  EXPECT_LT(CompareVersions("v2", "v10"), 0);
  EXPECT_LT(CompareVersions("99999999999999999999999", "100000000000000000000000"), 0);
}

TEST(CompareVersionsTest, EqualValuesAreEqual) {
  EXPECT_EQ(CompareVersions("4.2.0", "4.2.0"), 0);
  EXPECT_EQ(CompareVersions("", ""), 0);
  EXPECT_EQ(CompareVersions("4.02", "4.2"), 0);
  EXPECT_EQ(CompareVersions("release-b", "release-b"), 0);
}

TEST(CompareVersionsTest, PreReleaseComesBeforeItsRelease) {
  EXPECT_LT(CompareVersions("4.2.0-rc1", "4.2.0"), 0);
  EXPECT_GT(CompareVersions("4.2.0", "4.2.0-rc1"), 0);
  EXPECT_LT(CompareVersions("4.2.0-rc1", "4.2.0-rc2"), 0);
  EXPECT_LT(CompareVersions("4.2.0-beta", "4.2.0-rc1"), 0);
  EXPECT_LT(CompareVersions("4.2.0~beta", "4.2.0"), 0);
  EXPECT_LT(CompareVersions("4.2.0-rc1", "4.2.0.1"), 0);
  EXPECT_GT(CompareVersions("4.2.0-rc1", "4.1.9"), 0);
  // A '-' before a number is not a pre-release: Debian's revision comes after the release.
  EXPECT_GT(CompareVersions("4.2.0-1", "4.2.0"), 0);
}

TEST(CompareVersionsTest, ShorterPrefixComesFirst) {
  EXPECT_LT(CompareVersions("4.2", "4.2.1"), 0);
  EXPECT_GT(CompareVersions("4.2.1", "4.2"), 0);
}

TEST(CompareVersionsTest, MixedPartsCompareByKind) {
  // Digits before other characters at the same place; words byte by byte.
  EXPECT_LT(CompareVersions("1.0", "1.a"), 0);
  EXPECT_LT(CompareVersions("alpha", "beta"), 0);
  EXPECT_LT(CompareVersions("model-a2", "model-a10"), 0);
  EXPECT_LT(CompareVersions("4.9.2", "4.9.2a"), 0);
}

TEST(CompareVersionsTest, DatesAreInTimeOrder) {
  EXPECT_LT(CompareVersions("2026-02-28", "2026-03-01"), 0);
  EXPECT_LT(CompareVersions("2026-03-01T09:00:00Z", "2026-03-01T10:00:00Z"), 0);
  EXPECT_LT(CompareVersions("2025-12-31T23:59:59Z", "2026-01-01T00:00:00Z"), 0);
}

v1::Validation Record(const std::string& id, const std::string& version, double distance,
                      int64_t created, std::optional<bool> passed) {
  v1::Validation record;
  record.set_name("sessions/s/validations/" + id);
  record.set_state(v1::VALIDATION_STATE_SUCCEEDED);
  (*record.mutable_labels())["model"] = "vdyn";
  if (!version.empty()) (*record.mutable_labels())["version"] = version;
  record.mutable_create_time()->set_seconds(created);
  record.mutable_outcome()->set_distance(distance);
  if (passed.has_value()) record.mutable_outcome()->set_passed(*passed);
  return record;
}

std::vector<std::string> Names(const ValidationHistory& history) {
  std::vector<std::string> names;
  for (const HistoryPoint& point : history.points) names.push_back(point.name);
  return names;
}

TEST(HistoryOfTest, OrdersByVersionThenCreationAndLeavesOutWhatItCannotDraw) {
  std::vector<v1::Validation> records = {
      Record("a", "4.10.0", 0.3, 400, true),     Record("b", "4.9.2", 0.2, 300, true),
      Record("c", "", 0.1, 100, true),           Record("d", "4.2.0", 0.5, 200, false),
      Record("e", "4.2.0-rc1", 0.6, 150, false), Record("f", "4.9.2", 0.25, 250, true)};
  v1::Validation failed = Record("g", "5.0.0", 0, 500, std::nullopt);
  failed.set_state(v1::VALIDATION_STATE_FAILED);
  failed.clear_outcome();
  records.push_back(failed);

  const ValidationHistory history = HistoryOf(records, "version", "labels.model = vdyn");
  EXPECT_THAT(Names(history), ElementsAre("sessions/s/validations/e", "sessions/s/validations/d",
                                          "sessions/s/validations/f", "sessions/s/validations/b",
                                          "sessions/s/validations/a"));
  EXPECT_EQ(history.without_label, 1);
  EXPECT_EQ(history.without_outcome, 1);
  EXPECT_EQ(history.by, "version");
  EXPECT_EQ(history.filter, "labels.model = vdyn");
  EXPECT_EQ(HistoryNote(history),
            "note: left out 1 without the label version and 1 that have not succeeded of the "
            "matching records\n");
}

TEST(HistoryOfTest, EqualCreationTimesFallBackToTheName) {
  const ValidationHistory history = HistoryOf(
      {Record("z", "1.0", 1, 100, true), Record("y", "1.0", 1, 100, true)}, "version", "");
  EXPECT_THAT(Names(history), ElementsAre("sessions/s/validations/y", "sessions/s/validations/z"));
  EXPECT_EQ(HistoryNote(history), "");
}

TEST(HistoryOfTest, ThresholdsComeFromTheRequest) {
  v1::Validation record = Record("a", "1.0", 0.4, 100, false);
  record.mutable_request()->mutable_verdict()->set_max_ratio(1.5);
  const ValidationHistory history = HistoryOf({record}, "version", "");
  ASSERT_EQ(history.points.size(), 1u);
  EXPECT_EQ(history.points[0].max_ratio, 1.5);
  EXPECT_FALSE(history.points[0].max_distance.has_value());
}

TEST(HistoryToJsonTest, GivesTheDocumentedShapeInOrder) {
  v1::Validation judged = Record("a", "4.10.0", 0.3, 1772323200, true);
  v1::ValidationOutcome& outcome = *judged.mutable_outcome();
  outcome.set_ratio(1.2);
  outcome.set_ratio_interval_lo(0.9);
  outcome.set_ratio_interval_hi(1.4);
  outcome.set_p_value(0.31);
  const v1::Validation bare = Record("b", "4.9.2", 0.2, 1772236800, std::nullopt);

  const nlohmann::json json =
      nlohmann::json::parse(HistoryToJson(HistoryOf({judged, bare}, "version", "")));
  ASSERT_TRUE(json.is_array());
  ASSERT_EQ(json.size(), 2u);
  EXPECT_EQ(json[0], nlohmann::json::parse(R"({
    "name": "sessions/s/validations/b", "by": "4.9.2",
    "labels": {"model": "vdyn", "version": "4.9.2"}, "distance": 0.2, "ratio": null,
    "ratio_interval": null, "p_value": null, "passed": null,
    "create_time": "2026-02-28T00:00:00Z"})"));
  EXPECT_EQ(json[1]["by"], "4.10.0");
  EXPECT_EQ(json[1]["ratio"], 1.2);
  EXPECT_EQ(json[1]["ratio_interval"], nlohmann::json::array({0.9, 1.4}));
  EXPECT_EQ(json[1]["p_value"], 0.31);
  EXPECT_EQ(json[1]["passed"], true);
  // The keys in the documented order.
  const nlohmann::ordered_json ordered =
      nlohmann::ordered_json::parse(HistoryToJson(HistoryOf({judged}, "version", "")));
  std::vector<std::string> keys;
  for (const auto& [key, value] : ordered[0].items()) keys.push_back(key);
  EXPECT_THAT(keys, ElementsAre("name", "by", "labels", "distance", "ratio", "ratio_interval",
                                "p_value", "passed", "create_time"));
}

TEST(FormatHistoryTableTest, OneLinePerRecordUnderAHeader) {
  const std::string table = FormatHistoryTable(HistoryOf(
      {Record("a", "4.10.0", 0.3, 2, false), Record("b", "4.9.2", 0.2, 1, true)}, "version", ""));
  EXPECT_THAT(table, ::testing::StartsWith("version"));
  EXPECT_LT(table.find("4.9.2"), table.find("4.10.0"));
  EXPECT_NE(table.find("PASS"), std::string::npos);
  EXPECT_NE(table.find("FAIL"), std::string::npos);
  EXPECT_EQ(std::count(table.begin(), table.end(), '\n'), 3);
}

TEST(HistoryLabelKeyTest, TakesTheFilterFormOrTheBareKey) {
  EXPECT_EQ(*HistoryLabelKey("labels.version"), "version");
  EXPECT_EQ(*HistoryLabelKey("version"), "version");
  EXPECT_EQ(*HistoryLabelKey("labels.example.com/release"), "example.com/release");
  EXPECT_FALSE(HistoryLabelKey("labels.").ok());
}

}  // namespace
}  // namespace wasserwarp::cli
