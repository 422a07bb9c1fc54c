// Sensitivity and identification against values computed by another route: separate
// validations of each design point, the verdict's baseline, the analytic vertex of a parabola,
// and the variance of paired against independent differences on data built for it.

#include "wasserwarp/parameter_study.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "random_runs.h"
#include "wasserwarp/identification.h"
#include "wasserwarp/run_parameters.h"
#include "wasserwarp/sensitivity.h"
#include "wasserwarp/study_costs.h"
#include "wasserwarp/validation.h"

namespace wasserwarp {
namespace {

using ::testing::HasSubstr;

// Design points of (a, b) with three trials each: the nominal (1, 10), a at 0.5 and 2 (central
// differences on an uneven grid), b at 12 and 14 (forward differences only).
struct SmallStudy {
  std::vector<Series> simulation;
  std::vector<Series> reference;
  StudyDesign design;
  std::vector<std::vector<double>> vectors;
};

SmallStudy MakeSmallStudy() {
  SmallStudy study;
  study.vectors = {{1, 10}, {0.5, 10}, {2, 10}, {1, 12}, {1, 14}};
  std::string csv = "run_id,a,b,trial\n";
  std::vector<std::string> ids;
  for (size_t p = 0; p < study.vectors.size(); ++p) {
    std::vector<Series> runs =
        test_data::RandomWalkRuns(absl::StrCat("p", p, "_"), 3, 20, 40, 2, 100 + p);
    for (size_t t = 0; t < runs.size(); ++t) {
      absl::StrAppend(&csv, runs[t].id, ",", study.vectors[p][0], ",", study.vectors[p][1], ",t", t,
                      "\n");
      ids.push_back(runs[t].id);
      study.simulation.push_back(std::move(runs[t]));
    }
  }
  study.reference = test_data::RandomWalkRuns("ref", 6, 20, 40, 2, 7);
  absl::StatusOr<ParameterTable> table = ParseParameterCsv(csv, "params.csv");
  EXPECT_TRUE(table.ok()) << table.status();
  absl::StatusOr<StudyDesign> design = DesignOf(*table, ids);
  EXPECT_TRUE(design.ok()) << design.status();
  study.design = *std::move(design);
  return study;
}

ValidationOptions Options() {
  ValidationOptions options;
  options.twed = test_data::MakeTwedParams(0.5, 0.2);
  return options;
}

// W of one design point by a validation of its runs alone.
double ValidatedDistance(const SmallStudy& study, const std::vector<double>& vector) {
  std::vector<Series> runs;
  for (const DesignPoint& point : study.design.points) {
    if (point.parameters != vector) continue;
    for (size_t row : point.runs) runs.push_back(study.simulation[row]);
  }
  absl::StatusOr<ValidationReport> report = Validate(runs, study.reference, Options());
  EXPECT_TRUE(report.ok()) << report.status();
  return report->distance;
}

TEST(SensitivityTest, DerivativesAreFiniteDifferencesOfSeparateValidations) {
  const SmallStudy study = MakeSmallStudy();
  absl::StatusOr<StudyCosts> costs =
      ComputeStudyCosts(study.simulation, study.reference, Options());
  ASSERT_TRUE(costs.ok()) << costs.status();
  SensitivityOptions options;
  options.nominal = {{"a", 1.0}, {"b", 10.0}};
  options.study.resamples = 99;
  absl::StatusOr<SensitivityReport> report = AnalyseSensitivity(study.design, *costs, options);
  ASSERT_TRUE(report.ok()) << report.status();

  const double w0 = ValidatedDistance(study, {1, 10});
  EXPECT_EQ(report->distance_nominal, w0);
  ASSERT_EQ(report->parameters.size(), 2);
  const ParameterSensitivity& a = report->parameters[0];
  const double wa_low = ValidatedDistance(study, {0.5, 10});
  const double wa_high = ValidatedDistance(study, {2, 10});
  EXPECT_EQ(a.distances, (std::vector<double>{wa_low, wa_high}));
  EXPECT_EQ(a.changes, (std::vector<double>{wa_low - w0, wa_high - w0}));
  EXPECT_EQ(a.estimate.scheme, "central");
  // The parabola through (0.5, wa_low), (1, w0), (2, wa_high), by Lagrange's form.
  const double slope = wa_low * (1 - 2) / ((0.5 - 1) * (0.5 - 2)) +
                       w0 * ((1 - 0.5) + (1 - 2)) / ((1 - 0.5) * (1 - 2)) +
                       wa_high * (1 - 0.5) / ((2 - 0.5) * (2 - 1));
  const double curvature = 2 * (wa_low / ((0.5 - 1) * (0.5 - 2)) + w0 / ((1 - 0.5) * (1 - 2)) +
                                wa_high / ((2 - 0.5) * (2 - 1)));
  EXPECT_NEAR(a.estimate.derivative, slope, 1e-12 * (1 + std::abs(slope)));
  EXPECT_NEAR(*a.estimate.second_derivative, curvature, 1e-12 * (1 + std::abs(curvature)));
  EXPECT_NEAR(*a.estimate.remainder, wa_high - w0 - slope * 1.0, 1e-12 * (1 + w0));
  EXPECT_NEAR(*a.estimate.normalised, 1.0 / w0 * slope, 1e-12 * (1 + std::abs(slope)));
  EXPECT_LE(a.interval_lo, a.interval_hi);
  EXPECT_TRUE(a.paired);

  const ParameterSensitivity& b = report->parameters[1];
  const double wb1 = ValidatedDistance(study, {1, 12});
  const double wb2 = ValidatedDistance(study, {1, 14});
  EXPECT_EQ(b.estimate.scheme, "forward");
  EXPECT_EQ(b.estimate.derivative, (wb1 - w0) / 2.0);
  EXPECT_NEAR(*b.estimate.second_derivative, 2 * ((wb2 - w0) / 4 - (wb1 - w0) / 2) / 2, 1e-12);
  EXPECT_NEAR(*b.estimate.remainder, wb2 - w0 - (wb1 - w0) / 2.0 * 4.0, 1e-12);
}

TEST(SensitivityTest, TheBaselineIsTheVerdictsRefRefMedian) {
  const SmallStudy study = MakeSmallStudy();
  absl::StatusOr<StudyCosts> costs =
      ComputeStudyCosts(study.simulation, study.reference, Options());
  ASSERT_TRUE(costs.ok());
  ValidationOptions with_verdict = Options();
  with_verdict.verdict = VerdictOptions{};
  with_verdict.verdict->permutations = 199;
  with_verdict.verdict->seed = 11;
  // A study compares raw W, so its baseline is of raw TWEDs.
  with_verdict.verdict->subtract_sampling_floor = false;
  absl::StatusOr<ValidationReport> validated =
      Validate(study.simulation, study.reference, with_verdict);
  ASSERT_TRUE(validated.ok()) << validated.status();
  StudyOptions options;
  options.splits = 199;
  options.seed = 11;
  absl::StatusOr<std::optional<double>> baseline = ReferenceBaseline(*costs, options);
  ASSERT_TRUE(baseline.ok());
  ASSERT_TRUE(baseline->has_value());
  const double expected = validated->verdict->baseline->ref_ref_median;
  EXPECT_NEAR(**baseline, expected, 1e-12 * expected);
}

TEST(SensitivityTest, NominalVectorsThatAreNoDesignPointAreRefused) {
  const SmallStudy study = MakeSmallStudy();
  absl::StatusOr<StudyCosts> costs =
      ComputeStudyCosts(study.simulation, study.reference, Options());
  ASSERT_TRUE(costs.ok());
  SensitivityOptions options;
  options.nominal = {{"a", 3.0}, {"b", 10.0}};
  EXPECT_THAT(AnalyseSensitivity(study.design, *costs, options).status().message(),
              HasSubstr("nominal: no simulated run has exactly these parameter values"));
  options.nominal = {{"a", 2.0}, {"b", 10.0}};  // a design point, but none differs in b alone
  absl::StatusOr<SensitivityReport> report = AnalyseSensitivity(study.design, *costs, options);
  ASSERT_TRUE(report.ok()) << report.status();
  ASSERT_EQ(report->parameters.size(), 1);
  EXPECT_EQ(report->parameters[0].estimate.scheme, "backward");
  EXPECT_THAT(report->summary.warnings.front(), HasSubstr("parameter \"b\": no design point"));
}

// Points at a = -1, 0, 1 with `trials` runs each against `refs` references. A run's cost to
// every reference is its point's level plus a trial effect: shared by the points when
// `common_random_numbers`, drawn for each run otherwise, and a little noise per pair.
struct SyntheticStudy {
  StudyDesign design;
  StudyCosts costs;
};

SyntheticStudy MakeSynthetic(bool common_random_numbers, uint64_t seed) {
  constexpr size_t kTrials = 30;
  constexpr size_t kRefs = 12;
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal;
  std::vector<double> shared(kTrials);
  for (double& u : shared) u = normal(rng);
  SyntheticStudy study;
  study.design.names = {"a"};
  study.design.has_trials = true;
  study.costs.sim_ref = CostMatrix(3 * kTrials, kRefs);
  study.costs.ref_ref = CostMatrix(kRefs, kRefs);
  for (size_t p = 0; p < 3; ++p) {
    DesignPoint point;
    point.parameters = {static_cast<double>(p) - 1.0};
    for (size_t t = 0; t < kTrials; ++t) {
      const size_t row = p * kTrials + t;
      point.runs.push_back(row);
      point.trials.push_back(absl::StrCat("t", t < 10 ? "0" : "", t));
      const double u = common_random_numbers ? shared[t] : normal(rng);
      for (size_t j = 0; j < kRefs; ++j) {
        study.costs.sim_ref.at(row, j) = 10.0 + 2.0 * point.parameters[0] + u + 0.05 * normal(rng);
      }
    }
    study.design.points.push_back(point);
  }
  for (size_t i = 0; i < kRefs; ++i) {
    for (size_t j = 0; j < kRefs; ++j) study.costs.ref_ref.at(i, j) = i == j ? 0.0 : 1.0;
  }
  study.design.simulation_runs = 3 * kTrials;
  return study;
}

double GainOf(const SyntheticStudy& study) {
  SensitivityOptions options;
  options.nominal = {{"a", 0.0}};
  options.study.resamples = 499;
  absl::StatusOr<SensitivityReport> report = AnalyseSensitivity(study.design, study.costs, options);
  EXPECT_TRUE(report.ok()) << report.status();
  EXPECT_NEAR(report->parameters[0].estimate.derivative, 2.0, 1.0);
  return report->parameters[0].variance_gain.value_or(0.0);
}

TEST(SensitivityTest, PairingPaysOffOnCommonRandomNumbersOnly) {
  const double paired = GainOf(MakeSynthetic(true, 1));
  EXPECT_GT(paired, 10.0);
  const double independent = GainOf(MakeSynthetic(false, 1));
  EXPECT_GT(independent, 0.6);
  EXPECT_LT(independent, 1.6);

  SensitivityOptions options;
  options.nominal = {{"a", 0.0}};
  options.study.resamples = 199;
  const SyntheticStudy crn = MakeSynthetic(true, 2);
  absl::StatusOr<SensitivityReport> report = AnalyseSensitivity(crn.design, crn.costs, options);
  ASSERT_TRUE(report.ok());
  const ParameterSensitivity& a = report->parameters[0];
  ASSERT_TRUE(a.variance_ratio.has_value());
  EXPECT_EQ(*a.pays_off, (1.0 + *a.variance_ratio) / *a.variance_gain < 1.0);
  EXPECT_TRUE(*a.pays_off);
  EXPECT_TRUE(*a.pays_off_in_time);
}

// One run and one reference per point, so that W is the cost itself.
SyntheticStudy OneRunPerPoint(const std::vector<double>& xs, const std::vector<double>& ws) {
  SyntheticStudy study;
  study.design.names = {"x"};
  study.design.simulation_runs = xs.size();
  study.costs.sim_ref = CostMatrix(xs.size(), 1);
  study.costs.ref_ref = CostMatrix(1, 1);
  for (size_t p = 0; p < xs.size(); ++p) {
    study.design.points.push_back({.parameters = {xs[p]}, .runs = {p}, .trials = {""}});
    study.costs.sim_ref.at(p, 0) = ws[p];
  }
  return study;
}

double ParabolaVertex(double x1, double f1, double x2, double f2, double x3, double f3) {
  const double num = (x2 - x1) * (x2 - x1) * (f2 - f3) - (x2 - x3) * (x2 - x3) * (f2 - f1);
  const double den = (x2 - x1) * (f2 - f3) - (x2 - x3) * (f2 - f1);
  return x2 - 0.5 * num / den;
}

TEST(IdentificationTest, NoiseFreeWGivesTheVertexOfTheParabolaThroughThePoints) {
  const std::vector<double> xs = {1.0, 2.0, 4.0};
  std::vector<double> parabola;
  std::vector<double> root;
  for (double x : xs) {
    parabola.push_back(2.0 * (x - 2.7) * (x - 2.7) + 1.0);
    root.push_back(std::sqrt(parabola.back()));
  }
  const double vertex = ParabolaVertex(xs[0], parabola[0], xs[1], parabola[1], xs[2], parabola[2]);
  IdentifyOptions options;
  options.study.resamples = 19;

  options.response = SurfaceResponse::kDistance;
  const SyntheticStudy direct = OneRunPerPoint(xs, parabola);
  absl::StatusOr<IdentificationReport> report = Identify(direct.design, direct.costs, options);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_NEAR(report->identified[0], vertex, 1e-9);
  EXPECT_NEAR(report->predicted_distance, 1.0, 1e-9);
  EXPECT_TRUE(report->surface.convex);
  EXPECT_FALSE(report->on_boundary);

  options.response = SurfaceResponse::kSquaredDistance;
  const SyntheticStudy squared = OneRunPerPoint(xs, root);
  report = Identify(squared.design, squared.costs, options);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_NEAR(report->identified[0], vertex, 1e-9);
  EXPECT_NEAR(report->predicted_distance, 1.0, 1e-9);
}

TEST(IdentificationTest, AMinimumOutsideTheDesignIsFlaggedOnTheBoundary) {
  const SyntheticStudy study = OneRunPerPoint({1, 2, 3, 4}, {10, 8, 6.5, 5.5});
  IdentifyOptions options;
  options.study.resamples = 19;
  absl::StatusOr<IdentificationReport> report = Identify(study.design, study.costs, options);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_TRUE(report->on_boundary);
  EXPECT_EQ(report->identified[0], 4.0);
  EXPECT_TRUE(report->flagged());
}

TEST(IdentificationTest, NominalDifferencesAndGroups) {
  const SmallStudy small = MakeSmallStudy();
  // A 1-D study: the points along a at b = 10.
  SyntheticStudy study;
  absl::StatusOr<StudyCosts> costs =
      ComputeStudyCosts(small.simulation, small.reference, Options());
  ASSERT_TRUE(costs.ok());
  study.costs = *costs;
  study.design.names = {"a"};
  study.design.has_trials = true;
  for (const DesignPoint& point : small.design.points) {
    if (point.parameters[1] != 10.0) continue;
    study.design.points.push_back(
        {.parameters = {point.parameters[0]}, .runs = point.runs, .trials = point.trials});
  }
  IdentifyOptions options;
  options.study.resamples = 99;
  options.nominal = std::map<std::string, double>{{"a", 1.0}};
  options.reference_groups = std::vector<std::string>{"g1", "g1", "g1", "g2", "g2", "g2"};
  absl::StatusOr<IdentificationReport> report = Identify(study.design, study.costs, options);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_TRUE(report->paired);
  ASSERT_TRUE(report->nominal_difference.has_value());
  EXPECT_EQ((*report->nominal_difference)[0].difference, report->identified[0] - 1.0);
  ASSERT_EQ(report->groups.size(), 2);
  EXPECT_EQ(report->groups[1].group, "g2");
  ASSERT_EQ(report->group_std.size(), 1);
  EXPECT_LE(report->interval_lo[0], report->interval_hi[0]);
  ASSERT_EQ(report->slices.size(), 1);
  EXPECT_EQ(report->slices[0].x.size(), report->slices[0].fitted.size());

  options.reference_groups = std::vector<std::string>{"g1"};
  EXPECT_EQ(Identify(study.design, study.costs, options).status().message(),
            "reference_groups: 1 groups for 6 reference runs");
  options.reference_groups.reset();
  options.nominal = std::map<std::string, double>{{"b", 1.0}};
  EXPECT_THAT(Identify(study.design, study.costs, options).status().message(),
              HasSubstr("nominal: no value for parameter \"a\""));
}

TEST(IdentificationTest, ResultsDoNotDependOnTheThreadCount) {
  const SyntheticStudy study = MakeSynthetic(true, 3);
  IdentifyOptions options;
  options.study.resamples = 199;
  options.study.max_threads = 1;
  absl::StatusOr<IdentificationReport> one = Identify(study.design, study.costs, options);
  options.study.max_threads = 4;
  absl::StatusOr<IdentificationReport> four = Identify(study.design, study.costs, options);
  ASSERT_TRUE(one.ok() && four.ok());
  EXPECT_EQ(one->identified, four->identified);
  EXPECT_EQ(one->std, four->std);
  EXPECT_EQ(one->interval_lo, four->interval_lo);
}

}  // namespace
}  // namespace wasserwarp
