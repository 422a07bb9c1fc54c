#include "judged_results.h"

#include <algorithm>
#include <optional>
#include <string>
#include <utility>

#include "absl/strings/str_format.h"

namespace wasserwarp::cli {
namespace {

JudgedRule Passing(std::string name, double value, std::string basis) {
  return {.name = std::move(name),
          .pass = true,
          .value = value,
          .threshold = std::nullopt,
          .basis = std::move(basis)};
}

// A suite must not be empty: where no rule judged anything, one passing testcase "distance".
void AddDistanceIfNoRule(double distance, std::string why, JudgedResult& result) {
  if (result.rules.empty()) result.rules.push_back(Passing("distance", distance, std::move(why)));
}

}  // namespace

JudgedResult JudgedValidation(const ValidationReport& report, absl::string_view record) {
  JudgedResult result;
  result.labels = report.labels;
  const auto name = report.labels.find(std::string(kSuiteNameLabel));
  result.suite = name != report.labels.end() ? name->second : std::string(record);
  result.measures.push_back({"distance", report.distance});
  if (report.engine.has_value()) result.texts["engine_version"] = report.engine->version;
  result.texts["link"] = report.link;
  if (report.verdict.has_value()) {
    const Verdict& verdict = *report.verdict;
    result.measures.push_back({"p_value", verdict.p_value});
    if (verdict.baseline.has_value()) {
      result.measures.push_back({"ratio", verdict.baseline->ratio});
      result.measures.push_back({"ratio_interval_low", verdict.baseline->ratio_interval_lo});
      result.measures.push_back({"ratio_interval_high", verdict.baseline->ratio_interval_hi});
    }
    for (const VerdictRule& rule : verdict.rules) {
      result.rules.push_back({.name = rule.name,
                              .pass = rule.pass,
                              .value = rule.value,
                              .threshold = rule.threshold,
                              .basis = rule.basis});
    }
  }
  AddDistanceIfNoRule(report.distance, "no decision rule given: W is reported, not judged", result);
  return result;
}

JudgedResult JudgedComparison(const ComparisonReport& report) {
  JudgedResult result;
  result.measures = {{"distance_a", report.distance_a},
                     {"distance_b", report.distance_b},
                     {"difference", report.difference},
                     {"difference_interval_low", report.interval_lo},
                     {"difference_interval_high", report.interval_hi}};
  const char* closer = report.interval_hi < 0.0   ? "variant A is closer to the references"
                       : report.interval_lo > 0.0 ? "variant B is closer to the references"
                                                  : "no clear difference (the interval holds 0)";
  result.rules.push_back(Passing(
      "difference", report.difference,
      absl::StrFormat("W_a - W_b, %g%% interval [%.6g, %.6g]: %s", 100.0 * report.confidence,
                      report.interval_lo, report.interval_hi, closer)));
  return result;
}

JudgedResult JudgedSensitivity(const SensitivityReport& report) {
  JudgedResult result;
  result.measures.push_back({"distance", report.distance_nominal});
  if (report.baseline_ref_ref_median.has_value()) {
    result.measures.push_back({"baseline_ref_ref_median", *report.baseline_ref_ref_median});
  }
  for (const ParameterSensitivity& parameter : report.parameters) {
    result.rules.push_back(
        {.name = parameter.name,
         .pass = !parameter.flagged,
         .value = parameter.change_at_smallest_deviation(),
         .threshold = report.baseline_ref_ref_median,
         .basis = "the largest change of W at the smallest tested deviation, against the "
                  "references' baseline spread (ref-ref median)"});
  }
  AddDistanceIfNoRule(report.distance_nominal, "no parameter has points along its axis", result);
  return result;
}

JudgedResult JudgedIdentification(const IdentificationReport& report) {
  JudgedResult result;
  result.measures.push_back({"predicted_distance", report.predicted_distance});
  result.measures.push_back({"r_squared", report.surface.r_squared});
  if (report.predicted_ratio.has_value()) {
    result.measures.push_back({"predicted_ratio", *report.predicted_ratio});
  }
  result.rules.push_back({.name = "inside_design",
                          .pass = !report.on_boundary,
                          .value = std::nullopt,
                          .threshold = std::nullopt,
                          .basis = "the identified vector is on the boundary of the design"});
  result.rules.push_back({.name = "convex_surface",
                          .pass = report.surface.convex,
                          .value = std::nullopt,
                          .threshold = std::nullopt,
                          .basis = "the fitted surface is not convex: W has no clear minimum"});
  if (report.max_ratio.has_value()) {
    result.rules.push_back(
        {.name = "max_ratio",
         .pass = report.within_max_ratio(),
         .value = report.predicted_ratio,
         .threshold = report.max_ratio,
         .basis = "the predicted W at the identified vector over the references' baseline "
                  "spread (ref-ref median)"});
  }
  return result;
}

}  // namespace wasserwarp::cli
