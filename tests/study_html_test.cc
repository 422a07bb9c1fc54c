#include "wasserwarp/study_html.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstddef>
#include <random>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "html_page_data.h"
#include "nlohmann/json.hpp"
#include "report/html_assets.h"
#include "study_reports.h"
#include "wasserwarp/cost_matrix.h"
#include "wasserwarp/html_report.h"
#include "wasserwarp/identification.h"
#include "wasserwarp/parameter_study.h"
#include "wasserwarp/sensitivity.h"

namespace wasserwarp {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

HtmlReportOptions Options() {
  return {.tool_version = "9.8.7", .generated_at = "2024-06-11T12:00:00Z", .title = ""};
}

// The page without Chart.js, whose licence header names its web site.
std::string OwnText(const std::string& page) {
  return absl::StrReplaceAll(page, {{std::string(html_assets::ChartJs()), ""}});
}

void ExpectSelfContained(const std::string& page) {
  EXPECT_THAT(page, HasSubstr(std::string(html_assets::ChartJs().substr(0, 200))));
  EXPECT_THAT(page, HasSubstr("<meta http-equiv=\"Content-Security-Policy\" "
                              "content=\"default-src 'none'"));
  const std::string own = OwnText(page);
  EXPECT_THAT(own, Not(HasSubstr("http://")));
  EXPECT_THAT(own, Not(HasSubstr("https://")));
  EXPECT_THAT(own, Not(HasSubstr(" src=")));
  EXPECT_THAT(own, Not(HasSubstr("<link")));
  // Data, Chart.js, the chart helpers and the study's script.
  EXPECT_EQ(Count(page, "<script"), 4u);
  EXPECT_EQ(Count(page, "</script"), 4u);
}

void ExpectInOrder(const std::string& page, const std::vector<std::string>& ids) {
  size_t last = 0;
  for (const std::string& id : ids) {
    const size_t at = page.find(absl::StrCat("id=\"", id, "\""));
    ASSERT_NE(at, std::string::npos) << id;
    EXPECT_GT(at, last) << id;
    last = at;
  }
}

TEST(SensitivityHtmlTest, FlagsWhatMovesWBeyondTheBaselineAndDrawsTheTornado) {
  const absl::StatusOr<std::string> page =
      RenderSensitivityHtml(test_data::HandMadeSensitivity(2), Options());
  ASSERT_TRUE(page.ok()) << page.status();
  ExpectSelfContained(*page);
  ExpectInOrder(*page, {"banner", "summary", "tornado", "derivatives", "deviations",
                        "quantity-sensitivities", "points", "study"});
  EXPECT_THAT(*page, HasSubstr("<title>wasserwarp sensitivity report</title>"));
  EXPECT_THAT(*page, HasSubstr("class=\"banner verdict-flag\""));
  EXPECT_THAT(*page, HasSubstr(">FLAGGED</div>"));
  EXPECT_THAT(*page, HasSubstr("1 of 2 parameters moves W by more than the references' own "
                               "spread at the smallest deviation tested: <code>&lt;b&gt;</code>."));
  EXPECT_THAT(*page, HasSubstr("<code>&lt;b&gt;</code> = 1, <code>mass</code> = 1200"));
  EXPECT_THAT(*page, HasSubstr("wasserwarp 9.8.7"));
  // The reason: the smallest deviations either side and what they do to W.
  EXPECT_THAT(*page, HasSubstr("<tr class=\"fail\"><td><code>&lt;b&gt;</code></td>"
                               "<td class=\"num\">-0.1</td><td class=\"num\">0.4</td>"
                               "<td class=\"num\">0.1</td><td class=\"num\">0.45</td>"));
  EXPECT_THAT(*page, HasSubstr("<span class=\"badge pass\">within</span>"));
  // Central derivative (0.95 - 0.9) / 0.2, its interval, and the pairing's pay-off.
  EXPECT_THAT(*page, HasSubstr("<td>central</td><td class=\"num\">0.25</td>"
                               "<td class=\"num\">0.2 \u2013 0.3</td>"));
  EXPECT_THAT(*page, HasSubstr("variance gain 3.5 \u00d7; pays off in trials: yes, in machine "
                               "time: no"));
  EXPECT_THAT(*page, HasSubstr("<code>yaw_rate:max</code>"));
  EXPECT_THAT(*page, HasSubstr("123\u2009456\u2009789"));
  EXPECT_EQ(Count(*page, "data-chart=\"tornado\""), 1u);

  const nlohmann::json tornado = PageData(*page)["tornado"];
  ASSERT_EQ(tornado["names"].size(), 2u);
  EXPECT_EQ(tornado["names"][0], test_data::kTagName);  // the longer bars first
  EXPECT_EQ(tornado["flagged"][0], true);
  EXPECT_NEAR(tornado["minus"][0].get<double>(), 0.4, 1e-12);
  EXPECT_NEAR(tornado["plus"][0].get<double>(), 0.45, 1e-12);
  EXPECT_EQ(tornado["minus_delta"][0], -0.1);
  EXPECT_EQ(tornado["plus_delta"][1], 100.0);
  EXPECT_EQ(tornado["baseline"], 0.3);
}

TEST(SensitivityHtmlTest, OneSidedParameterWithoutBaseline) {
  SensitivityReport report = test_data::HandMadeSensitivity(1);
  absl::StatusOr<std::string> page = RenderSensitivityHtml(report, Options());
  ASSERT_TRUE(page.ok()) << page.status();
  EXPECT_THAT(*page, HasSubstr(">NOT FLAGGED</div>"));
  EXPECT_THAT(*page, HasSubstr("Tested on one side only: <code>h</code> above."));
  EXPECT_THAT(*page, HasSubstr("<td>forward</td>"));
  EXPECT_THAT(*page, HasSubstr("No quantity of interest was given."));
  EXPECT_THAT(*page, HasSubstr("No parameter's points share trials"));
  EXPECT_EQ(PageData(*page)["tornado"]["minus"][0], nullptr);

  report.baseline_ref_ref_median.reset();
  page = RenderSensitivityHtml(report, Options());
  ASSERT_TRUE(page.ok()) << page.status();
  EXPECT_THAT(*page, HasSubstr("class=\"banner verdict-none\""));
  EXPECT_THAT(*page, HasSubstr(">NO BASELINE</div>"));
  EXPECT_THAT(*page, HasSubstr("No baseline, so no band is drawn."));
  EXPECT_EQ(PageData(*page)["tornado"]["baseline"], nullptr);
}

TEST(SensitivityHtmlTest, EscapesNamesAndWarnings) {
  SensitivityReport report = test_data::HandMadeSensitivity(2);
  report.parameters[1].name = "</script><!--";
  HtmlReportOptions options = Options();
  options.title = "<img src=x onerror=alert(1)>";
  const absl::StatusOr<std::string> page = RenderSensitivityHtml(report, options);
  ASSERT_TRUE(page.ok()) << page.status();
  const std::string own = OwnText(*page);
  EXPECT_THAT(own, Not(HasSubstr("<b>")));
  EXPECT_THAT(own, Not(HasSubstr("<script>alert")));
  EXPECT_THAT(own, Not(HasSubstr("<img")));
  EXPECT_THAT(own, Not(HasSubstr("<!--")));
  EXPECT_THAT(*page, HasSubstr("<li>&lt;script&gt;alert(1)&lt;/script&gt;</li>"));
  EXPECT_EQ(Count(*page, "</script"), 4u);
  const nlohmann::json data = PageData(*page);
  EXPECT_EQ(data["tornado"]["names"][1], "</script><!--");
}

TEST(SensitivityHtmlTest, RejectsVectorsThatDoNotFitTheNames) {
  SensitivityReport report = test_data::HandMadeSensitivity(2);
  report.nominal.pop_back();
  EXPECT_THAT(RenderSensitivityHtml(report, Options()).status().message(),
              HasSubstr("1 values in the nominal vector for 2 parameters"));
  report = test_data::HandMadeSensitivity(2);
  report.parameters[0].changes.pop_back();
  EXPECT_EQ(RenderSensitivityHtml(report, Options()).status().code(),
            absl::StatusCode::kInvalidArgument);
  report = test_data::HandMadeSensitivity(2);
  report.points[3].parameters.push_back(1.0);
  EXPECT_THAT(RenderSensitivityHtml(report, Options()).status().message(),
              HasSubstr("design point 3"));
}

TEST(IdentificationHtmlTest, TwoParametersHaveSlicesAndTheSurfaceHeatMap) {
  const IdentificationReport report = test_data::HandMadeIdentification(2);
  ASSERT_FALSE(report.flagged());
  const absl::StatusOr<std::string> page = RenderIdentificationHtml(report, Options());
  ASSERT_TRUE(page.ok()) << page.status();
  ExpectSelfContained(*page);
  ExpectInOrder(*page,
                {"banner", "summary", "slices", "surface", "surface-fit", "points", "study"});
  EXPECT_THAT(*page, HasSubstr("class=\"banner verdict-pass\""));
  EXPECT_THAT(*page, HasSubstr(">IDENTIFIED</div>"));
  // Predicted W 0.2 at the minimum, over the baseline 0.15.
  EXPECT_THAT(*page, HasSubstr("where W is predicted at 1.33 \u00d7 the references' own spread"));
  EXPECT_THAT(*page, HasSubstr("<code>&lt;b&gt;</code> = 1, <code>b</code> = 2"));
  // Identified, std, 90 % interval, box, nominal, difference, z, spread across groups.
  EXPECT_THAT(*page, HasSubstr("90 % interval"));
  EXPECT_THAT(*page, HasSubstr("<td><code>&lt;b&gt;</code></td><td class=\"num\">1</td>"
                               "<td class=\"num\">0.05</td><td class=\"num\">0.9 \u2013 1.1</td>"
                               "<td class=\"num\">0 \u2013 2</td><td class=\"num\">0.8</td>"
                               "<td class=\"num\">0.2</td><td class=\"num\">4</td>"
                               "<td class=\"num\">0.0707</td>"));
  EXPECT_THAT(*page, HasSubstr("<td>rig A</td><td class=\"num\">6</td>"));
  EXPECT_THAT(*page, HasSubstr("<code>&lt;b&gt;^2</code>"));
  EXPECT_THAT(*page, HasSubstr("Fitted</th><th class=\"num\">Residual</th>"));
  // Fitted to W^2, drawn as W: the point (0, 1) has W^2 = 1.54.
  EXPECT_THAT(*page, HasSubstr("least-squares quadratic through W<sup>2</sup>"));
  EXPECT_THAT(*page, HasSubstr("<td class=\"num\">0</td><td class=\"num\">1</td>"
                               "<td class=\"num\">6</td><td class=\"num\">1.241</td>"
                               "<td class=\"num\">1.241</td>"));
  EXPECT_THAT(*page, HasSubstr("solid where the other parameters are at the design's values"));
  EXPECT_EQ(Count(*page, "data-chart=\"slice\""), 2u);
  EXPECT_EQ(Count(*page, "data-chart=\"surface\""), 1u);
  EXPECT_THAT(*page, HasSubstr("class=\"colorbar\""));

  const nlohmann::json data = PageData(*page);
  ASSERT_EQ(data["slices"].size(), 2u);
  const nlohmann::json& slice = data["slices"][0];
  EXPECT_EQ(slice["parameter"], test_data::kTagName);
  EXPECT_EQ(slice["x"].size(), 41u);
  EXPECT_NEAR(slice["identified"].get<double>(), 1.0, 1e-9);
  EXPECT_EQ(slice["nominal"], 0.8);
  // The three points at b = 2, the identified value, are those on the slice.
  size_t on = 0;
  for (const nlohmann::json& flag : slice["points"]["on"]) on += flag.get<bool>();
  EXPECT_EQ(on, 3u);
  EXPECT_EQ(slice["points"]["x"].size(), 9u);
  EXPECT_EQ(data["baseline"], 0.15);
  const nlohmann::json& surface = data["surface"];
  EXPECT_EQ(surface["cells"], 25);
  ASSERT_EQ(surface["values"].size(), 625u);
  // The centre cell is at the minimum (1, 2).
  EXPECT_NEAR(surface["values"][12 * 25 + 12].get<double>(), 0.2, 1e-9);
  EXPECT_NEAR(surface["min"].get<double>(), 0.2, 1e-9);
  EXPECT_EQ(surface["box"], nlohmann::json({0.0, 2.0, 1.0, 3.0}));
  EXPECT_EQ(surface["points"]["w"].size(), 9u);
  EXPECT_EQ(surface["nominal"], nlohmann::json({0.8, 2.5}));
}

TEST(IdentificationHtmlTest, OneParameterHasNoHeatMap) {
  const absl::StatusOr<std::string> page =
      RenderIdentificationHtml(test_data::HandMadeIdentification(1), Options());
  ASSERT_TRUE(page.ok()) << page.status();
  ExpectSelfContained(*page);
  EXPECT_EQ(Count(*page, "data-chart=\"slice\""), 1u);
  EXPECT_EQ(Count(*page, "data-chart=\"surface\""), 0u);
  EXPECT_THAT(*page, Not(HasSubstr("id=\"surface\"")));
  EXPECT_THAT(*page, Not(HasSubstr("solid where the other parameters")));
  const nlohmann::json data = PageData(*page);
  EXPECT_EQ(data["surface"], nullptr);
  EXPECT_EQ(data["slices"][0]["points"]["on"], nlohmann::json(std::vector<bool>(5, true)));
  EXPECT_THAT(*page, HasSubstr("least-squares quadratic through W at the design points"));
}

TEST(IdentificationHtmlTest, SaysWhyTheIdentifiedVectorIsNotToBeTrusted) {
  IdentificationReport report = test_data::HandMadeIdentification(2);
  report.on_boundary = true;
  report.max_ratio = 1.2;
  report.summary.warnings = {"the minimum of the surface lies on the boundary"};
  ASSERT_TRUE(report.flagged());
  const absl::StatusOr<std::string> page = RenderIdentificationHtml(report, Options());
  ASSERT_TRUE(page.ok()) << page.status();
  EXPECT_THAT(*page, HasSubstr("class=\"banner verdict-flag\""));
  EXPECT_THAT(*page, HasSubstr(">FLAGGED</div>"));
  EXPECT_THAT(*page, HasSubstr("The identified vector is not to be trusted: the minimum lies on "
                               "the boundary of the design's box, so better values may lie "
                               "outside it; the predicted W there is 1.33 \u00d7 the references' "
                               "own spread, above the limit of 1.2."));
  EXPECT_THAT(*page, HasSubstr("<li>the minimum of the surface lies on the boundary</li>"));
  EXPECT_THAT(*page, HasSubstr("limit 1.2"));

  report.nominal_difference.reset();
  report.groups.clear();
  report.group_std.clear();
  report.baseline_ref_ref_median.reset();
  report.predicted_ratio.reset();
  const absl::StatusOr<std::string> bare = RenderIdentificationHtml(report, Options());
  ASSERT_TRUE(bare.ok()) << bare.status();
  EXPECT_THAT(*bare, HasSubstr("none <span class=\"unit\">(it needs at least 2 reference runs)"));
  EXPECT_THAT(*bare, Not(HasSubstr("Per reference group")));
  const nlohmann::json data = PageData(*bare);
  EXPECT_EQ(data["slices"][0]["nominal"], nullptr);
  EXPECT_EQ(data["surface"]["nominal"], nullptr);
  EXPECT_EQ(data["baseline"], nullptr);
}

TEST(IdentificationHtmlTest, RejectsVectorsThatDoNotFitTheNames) {
  IdentificationReport report = test_data::HandMadeIdentification(2);
  report.std.pop_back();
  EXPECT_THAT(RenderIdentificationHtml(report, Options()).status().message(),
              HasSubstr("1 values in the standard deviations for 2 parameters"));
  report = test_data::HandMadeIdentification(2);
  report.slices[1].parameter = "other";
  EXPECT_THAT(RenderIdentificationHtml(report, Options()).status().message(),
              HasSubstr("along no parameter"));
  report = test_data::HandMadeIdentification(2);
  report.slices[0].hi.pop_back();
  EXPECT_EQ(RenderIdentificationHtml(report, Options()).status().code(),
            absl::StatusCode::kInvalidArgument);
  report = test_data::HandMadeIdentification(2);
  report.surface.scaled.pop_back();
  EXPECT_THAT(RenderIdentificationHtml(report, Options()).status().message(),
              HasSubstr("scaled terms"));
  report = test_data::HandMadeIdentification(2);
  report.groups[1].identified.pop_back();
  EXPECT_THAT(RenderIdentificationHtml(report, Options()).status().message(),
              HasSubstr("group \"rig B\""));
}

// A 3 x 3 design in (a, b) around the minimum at (1, 2), four shared trials per point, whose
// costs to every reference grow with the distance from it: what the analyses really return.
struct GridStudy {
  StudyDesign design;
  StudyCosts costs;
};

GridStudy MakeGridStudy() {
  constexpr size_t kTrials = 4;
  constexpr size_t kRefs = 6;
  std::mt19937_64 rng(5);
  std::normal_distribution<double> noise(0.0, 0.02);
  GridStudy study;
  study.design.names = {test_data::kTagName, "b"};
  study.design.has_trials = true;
  study.costs.sim_ref = CostMatrix(9 * kTrials, kRefs);
  study.costs.ref_ref = CostMatrix(kRefs, kRefs);
  size_t row = 0;
  for (double a : {0.5, 1.0, 1.5}) {
    for (double b : {1.0, 2.0, 3.0}) {
      DesignPoint point{.parameters = {a, b}, .runs = {}, .trials = {}};
      for (size_t t = 0; t < kTrials; ++t, ++row) {
        point.runs.push_back(row);
        point.trials.push_back(absl::StrCat("t", t));
        for (size_t j = 0; j < kRefs; ++j) {
          study.costs.sim_ref.at(row, j) =
              0.3 + (a - 1.0) * (a - 1.0) + 0.1 * (b - 2.0) * (b - 2.0) + 0.01 * t + noise(rng);
        }
      }
      study.design.points.push_back(point);
    }
  }
  study.design.simulation_runs = row;
  for (size_t i = 0; i < kRefs; ++i) {
    for (size_t j = 0; j < kRefs; ++j) study.costs.ref_ref.at(i, j) = i == j ? 0.0 : 0.2;
  }
  return study;
}

TEST(StudyHtmlTest, RendersWhatTheAnalysesReturn) {
  const GridStudy study = MakeGridStudy();
  SensitivityOptions sensitivity;
  sensitivity.nominal = {{test_data::kTagName, 1.0}, {"b", 2.0}};
  sensitivity.study.resamples = 99;
  sensitivity.study.splits = 99;
  const absl::StatusOr<SensitivityReport> derivatives =
      AnalyseSensitivity(study.design, study.costs, sensitivity);
  ASSERT_TRUE(derivatives.ok()) << derivatives.status();
  const absl::StatusOr<std::string> sensitivity_page =
      RenderSensitivityHtml(*derivatives, Options());
  ASSERT_TRUE(sensitivity_page.ok()) << sensitivity_page.status();
  EXPECT_EQ(PageData(*sensitivity_page)["tornado"]["names"].size(), 2u);

  IdentifyOptions identify;
  identify.study = sensitivity.study;
  identify.nominal = sensitivity.nominal;
  const absl::StatusOr<IdentificationReport> identified =
      Identify(study.design, study.costs, identify);
  ASSERT_TRUE(identified.ok()) << identified.status();
  const absl::StatusOr<std::string> page = RenderIdentificationHtml(*identified, Options());
  ASSERT_TRUE(page.ok()) << page.status();
  const nlohmann::json data = PageData(*page);
  EXPECT_EQ(data["slices"].size(), 2u);
  EXPECT_EQ(data["surface"]["values"].size(), 625u);
  EXPECT_EQ(Count(*page, "<canvas data-chart="), 3u);
  // The heat map is of W, however the surface was fitted: its least value is the predicted W.
  EXPECT_NEAR(data["surface"]["min"].get<double>(), identified->predicted_distance, 0.05);
}

}  // namespace
}  // namespace wasserwarp
