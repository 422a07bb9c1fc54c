// The parameter and run-group files of parameter studies: what they accept, and each error
// with the file, line and column it names.

#include "wasserwarp/run_parameters.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "wasserwarp/parameter_study.h"

namespace wasserwarp {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr char kFile[] = "params.csv";

absl::StatusOr<ParameterTable> Parse(const std::string& text) {
  return ParseParameterCsv(text, kFile);
}

std::string ErrorOf(const std::string& text) {
  absl::StatusOr<ParameterTable> table = Parse(text);
  EXPECT_FALSE(table.ok()) << text;
  return std::string(table.status().message());
}

TEST(RunParametersTest, ReadsParametersAndTrialsInAnyColumnOrder) {
  absl::StatusOr<ParameterTable> table = Parse(
      "# written by the study script\n"
      "run_id,trial,cf,m\n"
      "a,t1,+1.5,2\n"
      "\n"
      "b,t2,1.5e0,3\n");
  ASSERT_TRUE(table.ok()) << table.status();
  EXPECT_THAT(table->names, ElementsAre("cf", "m"));
  EXPECT_TRUE(table->has_trials);
  EXPECT_THAT(table->runs.at("a").values, ElementsAre(1.5, 2.0));
  EXPECT_EQ(table->runs.at("b").trial, "t2");
  EXPECT_EQ(table->runs.at("b").line, 5);
}

TEST(RunParametersTest, EachBadFileIsNamedWithItsLineAndColumn) {
  EXPECT_EQ(ErrorOf(""), "params.csv:1:1: expected the header \"run_id,<parameter>,...[,trial]\"");
  EXPECT_THAT(ErrorOf("id,cf\na,1\n"), HasSubstr("params.csv:1:1: expected the header"));
  EXPECT_EQ(ErrorOf("run_id,trial\na,t\n"),
            "params.csv:1:3: expected at least one parameter column after \"run_id\"");
  EXPECT_EQ(ErrorOf("run_id,cf,cf\n"), "params.csv:1:3: duplicate column \"cf\"");
  EXPECT_EQ(ErrorOf("run_id,cf\n"), "params.csv: no runs after the header");
  EXPECT_EQ(ErrorOf("run_id,cf,m\na,1\n"),
            "params.csv:2:3: expected 3 fields as in the header, got 2");
  EXPECT_EQ(ErrorOf("run_id,cf,m\na,1,\n"),
            "params.csv:2:3: parameter \"m\" missing for run \"a\"");
  EXPECT_EQ(ErrorOf("run_id,cf\na,nan\n"), "params.csv:2:2: expected a finite number, got \"nan\"");
  EXPECT_EQ(ErrorOf("run_id,cf\na,1e999\n"), "params.csv:2:2: number out of range: \"1e999\"");
  EXPECT_EQ(ErrorOf("run_id,cf,trial\na,1,\n"),
            "params.csv:2:3: empty trial (every run names its random inputs)");
  EXPECT_EQ(ErrorOf("run_id,cf\na,1\n\na,2\n"),
            "params.csv:4:1: duplicate run \"a\" (first on line 2)");
  EXPECT_EQ(ErrorOf("run_id,cf\n,1\n"), "params.csv:2:1: empty run id");
}

TEST(RunParametersTest, RunsAndLinesMustMatchEachOther) {
  absl::StatusOr<ParameterTable> table = Parse("run_id,cf\na,1\nghost,2\nb,3\n");
  ASSERT_TRUE(table.ok());
  EXPECT_EQ(ParametersForRuns(*table, {"a", "b", "c"}).status().message(),
            "params.csv: no parameters for simulated run \"c\"");
  EXPECT_EQ(ParametersForRuns(*table, {"a", "b"}).status().message(),
            "params.csv:3:1: unknown run \"ghost\" (no simulated run has this id)");
  absl::StatusOr<std::vector<RunParameters>> ordered =
      ParametersForRuns(*table, {"b", "a", "ghost"});
  ASSERT_TRUE(ordered.ok());
  EXPECT_EQ((*ordered)[0].values, std::vector<double>{3.0});
}

TEST(RunParametersTest, DesignPointsGroupRunsByTheirParameterVector) {
  absl::StatusOr<ParameterTable> table =
      Parse("run_id,cf,trial\nr0,2,t0\nr1,1,t0\nr2,2,t1\nr3,1,t1\n");
  ASSERT_TRUE(table.ok());
  absl::StatusOr<StudyDesign> design = DesignOf(*table, {"r0", "r1", "r2", "r3"});
  ASSERT_TRUE(design.ok()) << design.status();
  ASSERT_EQ(design->points.size(), 2);
  EXPECT_THAT(design->points[0].parameters, ElementsAre(1.0));
  EXPECT_THAT(design->points[0].runs, ElementsAre(1, 3));
  EXPECT_THAT(design->points[1].runs, ElementsAre(0, 2));
  const std::optional<std::vector<std::string>> shared = SharedTrials(*design, {0, 1});
  ASSERT_TRUE(shared.has_value());
  EXPECT_THAT(*shared, ElementsAre("t0", "t1"));
  EXPECT_EQ(FindPoint(*design, {{"cf", 2.0}}), 1);
  EXPECT_EQ(FindPoint(*design, {{"cf", 3.0}}), std::nullopt);
}

TEST(RunParametersTest, OneTrialTwiceAtOnePointIsRefused) {
  absl::StatusOr<ParameterTable> table = Parse("run_id,cf,trial\nr0,1,t0\nr1,1,t0\n");
  ASSERT_TRUE(table.ok());
  EXPECT_EQ(DesignOf(*table, {"r0", "r1"}).status().message(),
            "params.csv:3: run \"r1\" names trial \"t0\" at the same design point as line 2; "
            "runs of one point need different random inputs");
}

TEST(RunParametersTest, PointsWithDifferentTrialsAreNotPaired) {
  absl::StatusOr<ParameterTable> table = Parse("run_id,cf,trial\nr0,1,t0\nr1,2,t1\n");
  ASSERT_TRUE(table.ok());
  absl::StatusOr<StudyDesign> design = DesignOf(*table, {"r0", "r1"});
  ASSERT_TRUE(design.ok());
  EXPECT_EQ(SharedTrials(*design, {0, 1}), std::nullopt);
}

TEST(RunParametersTest, ParameterVectors) {
  absl::StatusOr<std::map<std::string, double>> nominal = ParseParameterVector(" cf = 2.5, m=3");
  ASSERT_TRUE(nominal.ok());
  EXPECT_EQ(nominal->at("cf"), 2.5);
  EXPECT_EQ(ParseParameterVector("cf").status().message(), "expected name=value, got \"cf\"");
  EXPECT_EQ(ParseParameterVector("=1").status().message(), "empty parameter name in \"=1\"");
  EXPECT_EQ(ParseParameterVector("cf=1,cf=2").status().message(), "parameter \"cf\" given twice");
  EXPECT_EQ(ParseParameterVector("cf=inf").status().message(),
            "parameter \"cf\": expected a finite number, got \"inf\"");
  EXPECT_EQ(ParseParameterVector("").status().message(),
            "expected name=value[,name=value...], got nothing");
}

TEST(RunParametersTest, NominalVectorsNameExactlyTheDesignsParameters) {
  absl::StatusOr<ParameterTable> table = Parse("run_id,cf,m\nr0,1,2\n");
  ASSERT_TRUE(table.ok());
  absl::StatusOr<StudyDesign> design = DesignOf(*table, {"r0"});
  ASSERT_TRUE(design.ok());
  EXPECT_EQ(NominalVector(*design, {{"cf", 1.0}}).status().message(),
            "nominal: no value for parameter \"m\"");
  EXPECT_EQ(NominalVector(*design, {{"cf", 1.0}, {"m", 2.0}, {"x", 0.0}}).status().message(),
            "nominal: parameter \"x\" is not in the design (cf, m)");
}

}  // namespace
}  // namespace wasserwarp
