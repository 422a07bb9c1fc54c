// Parameter-study reports filled by hand, as AnalyseSensitivity and Identify would fill them, for
// the tests of the study pages: known numbers in every field, and a parameter named "<b>".

#ifndef WASSERWARP_TESTS_STUDY_REPORTS_H_
#define WASSERWARP_TESTS_STUDY_REPORTS_H_

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "wasserwarp/identification.h"
#include "wasserwarp/parameter_study.h"
#include "wasserwarp/response_surface.h"
#include "wasserwarp/sensitivity.h"

namespace wasserwarp::test_data {

inline constexpr char kTagName[] = "<b>";

inline ParameterSensitivity AxisSensitivity(std::string name, double nominal, double w0,
                                            std::vector<double> deltas,
                                            std::vector<double> distances) {
  ParameterSensitivity p;
  p.name = std::move(name);
  p.nominal = nominal;
  p.deltas = std::move(deltas);
  p.distances = std::move(distances);
  for (double w : p.distances) {
    p.changes.push_back(w - w0);
    p.runs.push_back(8);
  }
  p.estimate = EstimateDerivative(nominal, w0, p.deltas, p.distances);
  p.interval_lo = p.estimate.derivative * 0.8;
  p.interval_hi = p.estimate.derivative * 1.2;
  return p;
}

// Two parameters: "<b>" (nominal 1, flagged: W moves by 0.4 and 0.45 at -0.1 and +0.1, beyond
// the baseline 0.3) and "mass" (nominal 1200, within: 0.05 and 0.02 at -100 and +100), paired,
// with one quantity. One parameter: "h" (nominal 2), tested above only, within the baseline.
inline SensitivityReport HandMadeSensitivity(size_t parameters) {
  SensitivityReport report;
  report.distance_nominal = 0.5;
  report.nominal_runs = 10;
  report.baseline_ref_ref_median = 0.3;
  if (parameters == 1) {
    report.names = {"h"};
    report.nominal = {2.0};
    report.parameters = {AxisSensitivity("h", 2.0, 0.5, {0.05, 0.1}, {0.52, 0.56})};
    report.points = {{{2.0}, 10, 0.5}, {{2.05}, 8, 0.52}, {{2.1}, 8, 0.56}};
  } else {
    report.names = {kTagName, "mass"};
    report.nominal = {1.0, 1200.0};
    ParameterSensitivity tag =
        AxisSensitivity(kTagName, 1.0, 0.5, {-0.1, 0.1, 0.2}, {0.9, 0.95, 1.3});
    tag.flagged = true;
    tag.paired = true;
    tag.variance_gain = 3.5;
    tag.variance_ratio = 1.1;
    tag.pays_off = true;
    tag.pays_off_in_time = false;
    ParameterSensitivity mass = AxisSensitivity("mass", 1200.0, 0.5, {-100.0, 100.0}, {0.55, 0.52});
    report.parameters = {tag, mass};
    QuantitySensitivity quantity;
    quantity.quantity = "yaw_rate:max";
    quantity.statistic = "avm";
    quantity.parameter = "mass";
    quantity.nominal_value = 0.125;
    quantity.values = {0.1, 0.15};
    quantity.estimate = EstimateDerivative(1200.0, 0.125, {-100.0, 100.0}, quantity.values);
    report.quantities = {quantity};
    report.points = {{{0.9, 1200.0}, 8, 0.9},  {{1.0, 1100.0}, 8, 0.55}, {{1.0, 1200.0}, 10, 0.5},
                     {{1.0, 1300.0}, 8, 0.52}, {{1.1, 1200.0}, 8, 0.95}, {{1.2, 1200.0}, 8, 1.3}};
    report.summary.warnings = {"<script>alert(1)</script>"};
  }
  report.summary.simulation_runs = 0;
  for (const StudyPoint& point : report.points) report.summary.simulation_runs += point.runs;
  report.summary.reference_runs = 12;
  report.summary.resamples = 999;
  report.summary.confidence = 0.95;
  report.summary.seed = 7;
  report.pair_cost = 2.0;
  report.summary.dp_cells = 123456789;
  report.summary.seconds = 1.5;
  return report;
}

// A minimum of W = 0.2 at a = 1 (b = 2) over a grid around it: for one parameter W = 0.2 +
// (a - 1)^2 fitted as W, for two W^2 = 0.04 + (a - 1)^2 + 0.5 (b - 2)^2 fitted as W^2, both
// exactly. The first parameter is named "<b>", the second "b". With a nominal vector (0.8, 2.5),
// a band of +-0.05 around the fitted slices and, for two parameters, two reference groups.
inline IdentificationReport HandMadeIdentification(size_t parameters) {
  IdentificationReport report;
  report.names = {kTagName};
  std::vector<std::vector<double>> xs;
  if (parameters == 1) {
    report.response = SurfaceResponse::kDistance;
    for (double a : {0.0, 0.5, 1.0, 1.5, 2.0}) xs.push_back({a});
  } else {
    report.response = SurfaceResponse::kSquaredDistance;
    report.names.push_back("b");
    for (double a : {0.0, 1.0, 2.0}) {
      for (double b : {1.0, 2.0, 3.0}) xs.push_back({a, b});
    }
  }
  std::vector<double> values;
  for (const std::vector<double>& x : xs) {
    const double response =
        parameters == 1 ? 0.2 + (x[0] - 1.0) * (x[0] - 1.0)
                        : 0.04 + (x[0] - 1.0) * (x[0] - 1.0) + 0.5 * (x[1] - 2.0) * (x[1] - 2.0);
    values.push_back(response);
    report.points.push_back({x, 6, DistanceOf(report.response, response)});
  }
  absl::StatusOr<QuadraticSurface> surface = FitQuadraticSurface(report.names, xs, values);
  if (surface.ok()) report.surface = *surface;
  const SurfaceMinimum minimum = MinimizeInBox(report.surface);
  report.identified = minimum.x;
  report.on_boundary = minimum.on_boundary;
  report.predicted_distance = DistanceOf(report.response, minimum.value);
  report.std.assign(parameters, 0.05);
  for (double x : report.identified) {
    report.interval_lo.push_back(x - 0.1);
    report.interval_hi.push_back(x + 0.1);
  }
  report.paired = true;
  report.nominal = parameters == 1 ? std::vector<double>{0.8} : std::vector<double>{0.8, 2.5};
  std::vector<NominalDifference> differences;
  for (size_t i = 0; i < parameters; ++i) {
    const double d = report.identified[i] - report.nominal[i];
    differences.push_back({.difference = d, .z = d / 0.05});
  }
  report.nominal_difference = differences;
  if (parameters == 2) {
    report.groups = {{"rig A", 6, {0.95, 2.1}, false, 0.21},
                     {"rig B", 6, {1.05, 1.9}, false, 0.22}};
    report.group_std = {0.0707, 0.1414};
  }
  report.baseline_ref_ref_median = 0.15;
  report.predicted_ratio = report.predicted_distance / 0.15;
  for (size_t i = 0; i < parameters; ++i) {
    SurfaceSlice slice;
    slice.parameter = report.names[i];
    std::vector<double> x = report.identified;
    for (int s = 0; s <= 40; ++s) {
      x[i] = report.surface.lower[i] + (report.surface.upper[i] - report.surface.lower[i]) * s / 40;
      const double fitted = DistanceOf(report.response, EvaluateSurface(report.surface, x));
      slice.x.push_back(x[i]);
      slice.fitted.push_back(fitted);
      slice.lo.push_back(fitted - 0.05);
      slice.hi.push_back(fitted + 0.05);
    }
    report.slices.push_back(std::move(slice));
  }
  report.summary.simulation_runs = static_cast<int>(6 * report.points.size());
  report.summary.reference_runs = 12;
  report.summary.resamples = 999;
  report.summary.confidence = 0.9;
  report.summary.seed = 3;
  report.summary.dp_cells = 4242;
  report.summary.seconds = 0.25;
  return report;
}

}  // namespace wasserwarp::test_data

#endif  // WASSERWARP_TESTS_STUDY_REPORTS_H_
