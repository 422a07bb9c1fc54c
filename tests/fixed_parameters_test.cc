// A --sim-params column with the same value at every design point (issue 43, part 4): the study
// works on the parameters that vary, gives what the file without that column gives, and reports
// the column as fixed, with its value, in its JSON and on its page.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "nlohmann/json.hpp"
#include "random_runs.h"
#include "wasserwarp/html_report.h"
#include "wasserwarp/identification.h"
#include "wasserwarp/parameter_study.h"
#include "wasserwarp/run_parameters.h"
#include "wasserwarp/sensitivity.h"
#include "wasserwarp/study_costs.h"
#include "wasserwarp/study_html.h"
#include "wasserwarp/study_json.h"

namespace wasserwarp {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr double kZeta = 0.7;

// A sweep of `a` over three values, three trials each; with `zeta_column` the file also writes
// down zeta at its nominal value for every run, as a user's first file does.
struct Sweep {
  std::vector<Series> simulation;
  std::vector<Series> reference;
  StudyDesign design;
  StudyCosts costs;
};

Sweep MakeSweep(bool zeta_column) {
  Sweep sweep;
  std::string csv = zeta_column ? "run_id,a,zeta,trial\n" : "run_id,a,trial\n";
  std::vector<std::string> ids;
  const double values[] = {0.5, 1.0, 2.0};
  for (size_t p = 0; p < 3; ++p) {
    std::vector<Series> runs =
        test_data::RandomWalkRuns(absl::StrCat("p", p, "_"), 3, 20, 40, 1, 300 + p);
    for (size_t t = 0; t < runs.size(); ++t) {
      // Scaled by the parameter, so that W depends on it.
      for (double& v : runs[t].values) v *= values[p];
      absl::StrAppend(&csv, runs[t].id, ",", values[p], zeta_column ? absl::StrCat(",", kZeta) : "",
                      ",t", t, "\n");
      ids.push_back(runs[t].id);
      sweep.simulation.push_back(std::move(runs[t]));
    }
  }
  sweep.reference = test_data::RandomWalkRuns("ref", 6, 20, 40, 1, 9);
  absl::StatusOr<ParameterTable> table = ParseParameterCsv(csv, "params.csv");
  EXPECT_TRUE(table.ok()) << table.status();
  absl::StatusOr<StudyDesign> design = DesignOf(*table, ids);
  EXPECT_TRUE(design.ok()) << design.status();
  sweep.design = *std::move(design);
  ValidationOptions options;
  options.twed = test_data::MakeTwedParams(0.5, 0.2);
  absl::StatusOr<StudyCosts> costs = ComputeStudyCosts(sweep.simulation, sweep.reference, options);
  EXPECT_TRUE(costs.ok()) << costs.status();
  sweep.costs = *std::move(costs);
  return sweep;
}

TEST(FixedParameterTest, AConstantColumnIsFixedAndLeftOutOfTheDesign) {
  const Sweep sweep = MakeSweep(true);
  EXPECT_THAT(sweep.design.names, ElementsAre("a"));
  EXPECT_THAT(sweep.design.fixed, ElementsAre(FixedParameter{"zeta", kZeta}));
  ASSERT_EQ(sweep.design.points.size(), 3u);
  for (const DesignPoint& point : sweep.design.points) EXPECT_EQ(point.parameters.size(), 1u);
  EXPECT_TRUE(FindPoint(sweep.design, {{"a", 1.0}, {"zeta", kZeta}}).has_value());
  EXPECT_TRUE(FindPoint(sweep.design, {{"a", 1.0}}).has_value());
  EXPECT_FALSE(FindPoint(sweep.design, {{"a", 1.0}, {"zeta", 0.5}}).has_value());
}

TEST(FixedParameterTest, ADesignWhereNothingVariesKeepsItsColumns) {
  absl::StatusOr<ParameterTable> table =
      ParseParameterCsv("run_id,a,b\nr0,1,2\nr1,1,2\n", "params.csv");
  ASSERT_TRUE(table.ok()) << table.status();
  absl::StatusOr<StudyDesign> design = DesignOf(*table, {"r0", "r1"});
  ASSERT_TRUE(design.ok()) << design.status();
  EXPECT_THAT(design->names, ElementsAre("a", "b"));
  EXPECT_TRUE(design->fixed.empty());
}

TEST(FixedParameterTest, IdentifyWorksAndGivesWhatTheFileWithoutTheColumnGives) {
  const Sweep with = MakeSweep(true);
  const Sweep without = MakeSweep(false);
  IdentifyOptions options;
  options.study.resamples = 19;
  options.study.splits = 19;
  absl::StatusOr<IdentificationReport> fixed = Identify(with.design, with.costs, options);
  ASSERT_TRUE(fixed.ok()) << fixed.status();
  absl::StatusOr<IdentificationReport> plain = Identify(without.design, without.costs, options);
  ASSERT_TRUE(plain.ok()) << plain.status();
  EXPECT_EQ(fixed->names, plain->names);
  EXPECT_EQ(fixed->identified, plain->identified);
  EXPECT_EQ(fixed->interval_lo, plain->interval_lo);
  EXPECT_EQ(fixed->predicted_distance, plain->predicted_distance);
  EXPECT_THAT(fixed->fixed, ElementsAre(FixedParameter{"zeta", kZeta}));
  EXPECT_TRUE(plain->fixed.empty());

  const nlohmann::json json = nlohmann::json::parse(IdentificationToJson(*fixed));
  EXPECT_EQ(json["identify"]["fixed_parameters"], nlohmann::json({{"zeta", kZeta}}));
  EXPECT_FALSE(
      nlohmann::json::parse(IdentificationToJson(*plain))["identify"].contains("fixed_parameters"));
  absl::StatusOr<std::string> page = RenderIdentificationHtml(*fixed, HtmlReportOptions{});
  ASSERT_TRUE(page.ok()) << page.status();
  EXPECT_THAT(*page, HasSubstr("id=\"fixed-parameters\""));
  EXPECT_THAT(*page, HasSubstr("0.7"));

  // A nominal vector may name the fixed parameter at its value, and no other.
  options.nominal = std::map<std::string, double>{{"a", 1.0}, {"zeta", kZeta}};
  EXPECT_TRUE(Identify(with.design, with.costs, options).ok());
  options.nominal = std::map<std::string, double>{{"a", 1.0}, {"zeta", 0.5}};
  absl::StatusOr<IdentificationReport> refused = Identify(with.design, with.costs, options);
  ASSERT_FALSE(refused.ok());
  EXPECT_THAT(refused.status().message(), HasSubstr("nominal: parameter \"zeta\" is fixed at 0.7"));
}

TEST(FixedParameterTest, SensitivityWorksAndGivesWhatTheFileWithoutTheColumnGives) {
  const Sweep with = MakeSweep(true);
  const Sweep without = MakeSweep(false);
  SensitivityOptions options;
  options.study.resamples = 19;
  options.study.splits = 19;
  options.nominal = {{"a", 1.0}, {"zeta", kZeta}};
  absl::StatusOr<SensitivityReport> fixed = AnalyseSensitivity(with.design, with.costs, options);
  ASSERT_TRUE(fixed.ok()) << fixed.status();
  options.nominal = {{"a", 1.0}};
  absl::StatusOr<SensitivityReport> plain =
      AnalyseSensitivity(without.design, without.costs, options);
  ASSERT_TRUE(plain.ok()) << plain.status();
  ASSERT_EQ(fixed->parameters.size(), 1u);
  EXPECT_EQ(fixed->parameters[0].name, "a");
  EXPECT_EQ(fixed->parameters[0].estimate.derivative, plain->parameters[0].estimate.derivative);
  EXPECT_EQ(fixed->distance_nominal, plain->distance_nominal);
  EXPECT_THAT(fixed->fixed, ElementsAre(FixedParameter{"zeta", kZeta}));

  const nlohmann::json json = nlohmann::json::parse(SensitivityToJson(*fixed));
  EXPECT_EQ(json["sensitivity"]["fixed_parameters"], nlohmann::json({{"zeta", kZeta}}));
  absl::StatusOr<std::string> page = RenderSensitivityHtml(*fixed, HtmlReportOptions{});
  ASSERT_TRUE(page.ok()) << page.status();
  EXPECT_THAT(*page, HasSubstr("id=\"fixed-parameters\""));
}

}  // namespace
}  // namespace wasserwarp
