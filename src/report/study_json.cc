#include "wasserwarp/study_json.h"

#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "nlohmann/json.hpp"

namespace wasserwarp {
namespace {

using Json = nlohmann::ordered_json;

// JSON has no infinity or NaN: they are written as null, said here so that the document does
// not depend on the library's choice.
Json Number(double value) { return std::isfinite(value) ? Json(value) : Json(nullptr); }

template <typename T>
Json Optional(const std::optional<T>& value) {
  if (!value.has_value()) return nullptr;
  if constexpr (std::is_floating_point_v<T>) return Number(*value);
  return Json(*value);
}

Json Named(const std::vector<std::string>& names, const std::vector<double>& values) {
  Json json = Json::object();
  for (size_t i = 0; i < names.size() && i < values.size(); ++i) json[names[i]] = Number(values[i]);
  return json;
}

Json Numbers(const std::vector<double>& values) {
  Json json = Json::array();
  for (double value : values) json.push_back(Number(value));
  return json;
}

Json PointsJson(const std::vector<std::string>& names, const std::vector<StudyPoint>& points) {
  Json json = Json::array();
  for (const StudyPoint& point : points) {
    json.push_back({{"parameters", Named(names, point.parameters)},
                    {"runs", point.runs},
                    {"distance", Number(point.distance)}});
  }
  return json;
}

void AddEstimate(const DerivativeEstimate& estimate, Json& json) {
  json["scheme"] = estimate.scheme;
  json["derivative"] = Number(estimate.derivative);
  json["second_derivative"] = Optional(estimate.second_derivative);
  json["remainder"] = Optional(estimate.remainder);
  json["normalised"] = Optional(estimate.normalised);
}

Json SurfaceJson(const QuadraticSurface& surface) {
  Json coefficients = Json::object();
  coefficients["1"] = Number(surface.constant);
  for (size_t i = 0; i < surface.names.size(); ++i) {
    coefficients[surface.names[i]] = Number(surface.linear[i]);
  }
  const std::vector<std::string> terms = QuadraticTermNames(surface.names);
  for (size_t k = 0; k < surface.quadratic.size(); ++k) {
    coefficients[terms[1 + surface.names.size() + k]] = Number(surface.quadratic[k]);
  }
  return {{"coefficients", coefficients},
          {"r_squared", Number(surface.r_squared)},
          {"convex", surface.convex},
          {"residuals", Numbers(surface.residuals)},
          {"lower", Named(surface.names, surface.lower)},
          {"upper", Named(surface.names, surface.upper)}};
}

void AddSummary(const StudySummary& summary, Json& json) {
  json["runs"] = {{"simulation", summary.simulation_runs}, {"reference", summary.reference_runs}};
  json["resamples"] = summary.resamples;
  json["confidence"] = summary.confidence;
  json["seed"] = summary.seed;
  json["dp_cells"] = summary.dp_cells;
  json["seconds"] = summary.seconds;
  json["warnings"] = summary.warnings;
}

// Only where the design has some, so that the reports of designs without are as they were.
void AddFixed(const std::vector<FixedParameter>& fixed, Json& json) {
  if (fixed.empty()) return;
  Json values = Json::object();
  for (const FixedParameter& parameter : fixed) values[parameter.name] = Number(parameter.value);
  json["fixed_parameters"] = std::move(values);
}

}  // namespace

std::string SensitivityToJson(const SensitivityReport& report, int indent) {
  Json parameters = Json::array();
  for (const ParameterSensitivity& p : report.parameters) {
    Json json;
    json["name"] = p.name;
    json["nominal"] = Number(p.nominal);
    json["deltas"] = Numbers(p.deltas);
    json["distances"] = Numbers(p.distances);
    json["changes"] = Numbers(p.changes);
    json["runs"] = p.runs;
    AddEstimate(p.estimate, json);
    json["derivative_interval"] = {Number(p.interval_lo), Number(p.interval_hi)};
    json["paired"] = p.paired;
    json["variance_gain"] = Optional(p.variance_gain);
    json["variance_ratio"] = Optional(p.variance_ratio);
    json["pays_off"] = Optional(p.pays_off);
    json["pays_off_in_time"] = Optional(p.pays_off_in_time);
    json["flagged"] = p.flagged;
    parameters.push_back(std::move(json));
  }
  Json quantities = Json::array();
  for (const QuantitySensitivity& q : report.quantities) {
    Json json;
    json["quantity"] = q.quantity;
    json["statistic"] = q.statistic;
    json["parameter"] = q.parameter;
    json["nominal_value"] = Number(q.nominal_value);
    json["values"] = Numbers(q.values);
    AddEstimate(q.estimate, json);
    quantities.push_back(std::move(json));
  }
  Json json;
  json["nominal"] = Named(report.names, report.nominal);
  json["distance_nominal"] = Number(report.distance_nominal);
  json["nominal_runs"] = report.nominal_runs;
  json["parameters"] = std::move(parameters);
  json["quantities"] = std::move(quantities);
  json["baseline_ref_ref_median"] = Optional(report.baseline_ref_ref_median);
  json["flagged"] = report.flagged();
  json["points"] = PointsJson(report.names, report.points);
  json["pair_cost"] = report.pair_cost;
  AddFixed(report.fixed, json);
  AddSummary(report.summary, json);
  return Json{{"sensitivity", json}}.dump(indent) + "\n";
}

std::string IdentificationToJson(const IdentificationReport& report, int indent) {
  Json json;
  json["points"] = PointsJson(report.names, report.points);
  json["surface"] = SurfaceJson(report.surface);
  json["surface"]["response"] = SurfaceResponseName(report.response);
  json["identified"] = Named(report.names, report.identified);
  json["std"] = Named(report.names, report.std);
  Json interval = Json::object();
  for (size_t i = 0; i < report.names.size(); ++i) {
    interval[report.names[i]] = {Number(report.interval_lo[i]), Number(report.interval_hi[i])};
  }
  json["interval"] = std::move(interval);
  json["on_boundary"] = report.on_boundary;
  json["flagged"] = report.flagged();
  json["paired"] = report.paired;
  if (report.nominal_difference.has_value()) {
    json["nominal"] = Named(report.names, report.nominal);
    Json differences = Json::object();
    for (size_t i = 0; i < report.names.size(); ++i) {
      const NominalDifference& d = (*report.nominal_difference)[i];
      differences[report.names[i]] = {{"difference", Number(d.difference)}, {"z", Optional(d.z)}};
    }
    json["nominal_difference"] = std::move(differences);
  }
  if (!report.groups.empty()) {
    Json groups = Json::array();
    for (const GroupIdentification& group : report.groups) {
      groups.push_back({{"group", group.group},
                        {"reference_runs", group.reference_runs},
                        {"identified", Named(report.names, group.identified)},
                        {"on_boundary", group.on_boundary},
                        {"predicted_distance", Number(group.predicted_distance)}});
    }
    json["groups"] = std::move(groups);
    if (!report.group_std.empty()) json["group_std"] = Named(report.names, report.group_std);
  }
  json["predicted_distance"] = Number(report.predicted_distance);
  json["baseline_ref_ref_median"] = Optional(report.baseline_ref_ref_median);
  json["predicted_ratio"] = Optional(report.predicted_ratio);
  json["max_ratio"] = Optional(report.max_ratio);
  Json slices = Json::array();
  for (const SurfaceSlice& slice : report.slices) {
    slices.push_back({{"parameter", slice.parameter},
                      {"x", Numbers(slice.x)},
                      {"fitted", Numbers(slice.fitted)},
                      {"lo", Numbers(slice.lo)},
                      {"hi", Numbers(slice.hi)}});
  }
  json["slices"] = std::move(slices);
  AddFixed(report.fixed, json);
  AddSummary(report.summary, json);
  return Json{{"identify", json}}.dump(indent) + "\n";
}

}  // namespace wasserwarp
