#include "wire/study.h"

#include <cmath>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "wasserwarp/field_error.h"
#include "wasserwarp/user_text.h"
#include "wire/repeated_fields.h"

namespace wasserwarp::wire {
namespace {

absl::StatusOr<std::map<std::string, double>> Vector(
    const google::protobuf::Map<std::string, double>& map, absl::string_view field) {
  std::map<std::string, double> vector;
  for (const auto& [name, value] : map) {
    if (!std::isfinite(value)) {
      return InvalidFieldError(absl::StrCat(field, "[", QuotedText(name), "]"),
                               absl::StrCat("must be finite, got ", value));
    }
    vector.emplace(name, value);
  }
  return vector;
}

void PutVector(const std::map<std::string, double>& vector,
               google::protobuf::Map<std::string, double>* map) {
  for (const auto& [name, value] : vector) (*map)[name] = value;
}

StudyOptions StudyOptionsFromProto(const v1::StudyParameters& proto) {
  StudyOptions options;
  if (proto.has_resamples()) options.resamples = proto.resamples();
  if (proto.has_confidence()) options.confidence = proto.confidence();
  if (proto.has_splits()) options.splits = proto.splits();
  if (proto.has_seed()) options.seed = proto.seed();
  return options;
}

void PutStudyOptions(const StudyOptions& options, v1::StudyParameters& proto) {
  proto.set_resamples(options.resamples);
  proto.set_confidence(options.confidence);
  proto.set_splits(options.splits);
  proto.set_seed(options.seed);
}

void PointsToProto(const std::vector<StudyPoint>& points,
                   google::protobuf::RepeatedPtrField<v1::StudyPoint>* proto) {
  for (const StudyPoint& point : points) {
    v1::StudyPoint* out = proto->Add();
    Assign(point.parameters, out->mutable_parameters());
    out->set_runs(point.runs);
    out->set_distance(point.distance);
  }
}

std::vector<StudyPoint> PointsFromProto(
    const google::protobuf::RepeatedPtrField<v1::StudyPoint>& proto) {
  std::vector<StudyPoint> points;
  for (const v1::StudyPoint& point : proto) {
    points.push_back({.parameters = ToVector(point.parameters()),
                      .runs = point.runs(),
                      .distance = point.distance()});
  }
  return points;
}

void EstimateToProto(const DerivativeEstimate& estimate, v1::DerivativeEstimate& proto) {
  proto.set_scheme(estimate.scheme);
  proto.set_derivative(estimate.derivative);
  if (estimate.second_derivative) proto.set_second_derivative(*estimate.second_derivative);
  if (estimate.remainder) proto.set_remainder(*estimate.remainder);
  if (estimate.normalised) proto.set_normalised(*estimate.normalised);
}

DerivativeEstimate EstimateFromProto(const v1::DerivativeEstimate& proto) {
  DerivativeEstimate estimate;
  estimate.scheme = proto.scheme();
  estimate.derivative = proto.derivative();
  if (proto.has_second_derivative()) estimate.second_derivative = proto.second_derivative();
  if (proto.has_remainder()) estimate.remainder = proto.remainder();
  if (proto.has_normalised()) estimate.normalised = proto.normalised();
  return estimate;
}

void SummaryToProto(const StudySummary& summary, v1::StudySummary& proto) {
  proto.set_simulation_runs(summary.simulation_runs);
  proto.set_reference_runs(summary.reference_runs);
  proto.set_resamples(summary.resamples);
  proto.set_confidence(summary.confidence);
  proto.set_seed(summary.seed);
  proto.set_dp_cells(static_cast<int64_t>(summary.dp_cells));
  proto.set_seconds(summary.seconds);
  Assign(summary.warnings, proto.mutable_warnings());
}

void SummaryFromProto(const v1::StudySummary& proto, StudySummary& summary) {
  summary.simulation_runs = proto.simulation_runs();
  summary.reference_runs = proto.reference_runs();
  summary.resamples = proto.resamples();
  summary.confidence = proto.confidence();
  summary.seed = proto.seed();
  summary.dp_cells = static_cast<uint64_t>(proto.dp_cells());
  summary.seconds = proto.seconds();
  summary.warnings = ToVector(proto.warnings());
}

v1::SurfaceResponse ToProto(SurfaceResponse response) {
  return response == SurfaceResponse::kDistance ? v1::SURFACE_RESPONSE_DISTANCE
                                                : v1::SURFACE_RESPONSE_SQUARED_DISTANCE;
}

SurfaceResponse FromProto(v1::SurfaceResponse response) {
  return response == v1::SURFACE_RESPONSE_DISTANCE ? SurfaceResponse::kDistance
                                                   : SurfaceResponse::kSquaredDistance;
}

void FixedToProto(const std::vector<FixedParameter>& fixed,
                  google::protobuf::RepeatedPtrField<v1::FixedParameter>* out) {
  for (const FixedParameter& parameter : fixed) {
    v1::FixedParameter* added = out->Add();
    added->set_name(parameter.name);
    added->set_value(parameter.value);
  }
}

std::vector<FixedParameter> FixedFromProto(
    const google::protobuf::RepeatedPtrField<v1::FixedParameter>& fixed) {
  std::vector<FixedParameter> out;
  for (const v1::FixedParameter& parameter : fixed) {
    out.push_back({parameter.name(), parameter.value()});
  }
  return out;
}

}  // namespace

absl::StatusOr<StudyRequest> StudyRequestFromProto(const v1::StudyParameters& proto) {
  StudyRequest request;
  const StudyOptions study = StudyOptionsFromProto(proto);
  if (absl::Status status = ValidateStudyOptions(study); !status.ok()) return status;
  switch (proto.analysis_case()) {
    case v1::StudyParameters::kSensitivity: {
      const v1::SensitivityParameters& sensitivity = proto.sensitivity();
      absl::StatusOr<std::map<std::string, double>> nominal =
          Vector(sensitivity.nominal(), "sensitivity.nominal");
      if (!nominal.ok()) return nominal.status();
      if (nominal->empty()) {
        return InvalidFieldError("sensitivity.nominal",
                                 "required: the nominal value of every parameter");
      }
      SensitivityOptions options;
      options.study = study;
      options.nominal = *std::move(nominal);
      if (sensitivity.has_pair_cost()) {
        if (!(sensitivity.pair_cost() > 0.0) || !std::isfinite(sensitivity.pair_cost())) {
          return InvalidFieldError(
              "sensitivity.pair_cost",
              absl::StrCat("must be a positive number, got ", sensitivity.pair_cost()));
        }
        options.pair_cost = sensitivity.pair_cost();
      }
      request.sensitivity = std::move(options);
      return request;
    }
    case v1::StudyParameters::kIdentify: {
      const v1::IdentifyParameters& identify = proto.identify();
      IdentifyOptions options;
      options.study = study;
      options.response = FromProto(identify.response());
      if (!identify.nominal().empty()) {
        absl::StatusOr<std::map<std::string, double>> nominal =
            Vector(identify.nominal(), "identify.nominal");
        if (!nominal.ok()) return nominal.status();
        options.nominal = *std::move(nominal);
      }
      if (identify.has_max_ratio()) {
        if (!(identify.max_ratio() > 0.0) || !std::isfinite(identify.max_ratio())) {
          return InvalidFieldError(
              "identify.max_ratio",
              absl::StrCat("must be a positive number, got ", identify.max_ratio()));
        }
        options.max_ratio = identify.max_ratio();
      }
      request.reference_groups.insert(identify.reference_groups().begin(),
                                      identify.reference_groups().end());
      request.identify = std::move(options);
      return request;
    }
    case v1::StudyParameters::ANALYSIS_NOT_SET:
      break;
  }
  return InvalidFieldError("analysis", "set sensitivity or identify");
}

v1::StudyParameters StudyParametersOf(const SensitivityOptions& options) {
  v1::StudyParameters proto;
  PutStudyOptions(options.study, proto);
  PutVector(options.nominal, proto.mutable_sensitivity()->mutable_nominal());
  proto.mutable_sensitivity()->set_pair_cost(options.pair_cost);
  return proto;
}

v1::StudyParameters StudyParametersOf(const IdentifyOptions& options,
                                      const std::map<std::string, std::string>& groups) {
  v1::StudyParameters proto;
  PutStudyOptions(options.study, proto);
  v1::IdentifyParameters* identify = proto.mutable_identify();
  if (options.nominal) PutVector(*options.nominal, identify->mutable_nominal());
  for (const auto& [run, group] : groups) (*identify->mutable_reference_groups())[run] = group;
  identify->set_response(ToProto(options.response));
  if (options.max_ratio) identify->set_max_ratio(*options.max_ratio);
  return proto;
}

void SensitivityToProto(const SensitivityReport& report, v1::SensitivityReport& proto) {
  Assign(report.names, proto.mutable_names());
  Assign(report.nominal, proto.mutable_nominal());
  proto.set_distance_nominal(report.distance_nominal);
  proto.set_nominal_runs(report.nominal_runs);
  for (const ParameterSensitivity& p : report.parameters) {
    v1::ParameterSensitivity* out = proto.add_parameters();
    out->set_name(p.name);
    out->set_nominal(p.nominal);
    Assign(p.deltas, out->mutable_deltas());
    Assign(p.distances, out->mutable_distances());
    Assign(p.changes, out->mutable_changes());
    Assign(p.runs, out->mutable_runs());
    EstimateToProto(p.estimate, *out->mutable_estimate());
    out->set_interval_lo(p.interval_lo);
    out->set_interval_hi(p.interval_hi);
    out->set_paired(p.paired);
    if (p.variance_gain) out->set_variance_gain(*p.variance_gain);
    if (p.variance_ratio) out->set_variance_ratio(*p.variance_ratio);
    if (p.pays_off) out->set_pays_off(*p.pays_off);
    if (p.pays_off_in_time) out->set_pays_off_in_time(*p.pays_off_in_time);
    out->set_flagged(p.flagged);
  }
  for (const QuantitySensitivity& q : report.quantities) {
    v1::QuantitySensitivity* out = proto.add_quantities();
    out->set_quantity(q.quantity);
    out->set_statistic(q.statistic);
    out->set_parameter(q.parameter);
    out->set_nominal_value(q.nominal_value);
    Assign(q.values, out->mutable_values());
    EstimateToProto(q.estimate, *out->mutable_estimate());
  }
  if (report.baseline_ref_ref_median) {
    proto.set_baseline_ref_ref_median(*report.baseline_ref_ref_median);
  }
  PointsToProto(report.points, proto.mutable_points());
  SummaryToProto(report.summary, *proto.mutable_summary());
  proto.set_pair_cost(report.pair_cost);
  FixedToProto(report.fixed, proto.mutable_fixed_parameters());
}

SensitivityReport SensitivityFromProto(const v1::SensitivityReport& proto) {
  SensitivityReport report;
  report.names = ToVector(proto.names());
  report.nominal = ToVector(proto.nominal());
  report.distance_nominal = proto.distance_nominal();
  report.nominal_runs = proto.nominal_runs();
  for (const v1::ParameterSensitivity& p : proto.parameters()) {
    ParameterSensitivity& out = report.parameters.emplace_back();
    out.name = p.name();
    out.nominal = p.nominal();
    out.deltas = ToVector(p.deltas());
    out.distances = ToVector(p.distances());
    out.changes = ToVector(p.changes());
    out.runs = ToVector(p.runs());
    out.estimate = EstimateFromProto(p.estimate());
    out.interval_lo = p.interval_lo();
    out.interval_hi = p.interval_hi();
    out.paired = p.paired();
    if (p.has_variance_gain()) out.variance_gain = p.variance_gain();
    if (p.has_variance_ratio()) out.variance_ratio = p.variance_ratio();
    if (p.has_pays_off()) out.pays_off = p.pays_off();
    if (p.has_pays_off_in_time()) out.pays_off_in_time = p.pays_off_in_time();
    out.flagged = p.flagged();
  }
  for (const v1::QuantitySensitivity& q : proto.quantities()) {
    report.quantities.push_back({.quantity = q.quantity(),
                                 .statistic = q.statistic(),
                                 .parameter = q.parameter(),
                                 .nominal_value = q.nominal_value(),
                                 .values = ToVector(q.values()),
                                 .estimate = EstimateFromProto(q.estimate())});
  }
  if (proto.has_baseline_ref_ref_median()) {
    report.baseline_ref_ref_median = proto.baseline_ref_ref_median();
  }
  report.points = PointsFromProto(proto.points());
  SummaryFromProto(proto.summary(), report.summary);
  report.pair_cost = proto.pair_cost();
  report.fixed = FixedFromProto(proto.fixed_parameters());
  return report;
}

void IdentificationToProto(const IdentificationReport& report, v1::IdentificationReport& proto) {
  Assign(report.names, proto.mutable_names());
  PointsToProto(report.points, proto.mutable_points());
  proto.set_response(ToProto(report.response));
  v1::QuadraticSurface* surface = proto.mutable_surface();
  Assign(report.surface.names, surface->mutable_names());
  surface->set_constant(report.surface.constant);
  Assign(report.surface.linear, surface->mutable_linear());
  Assign(report.surface.quadratic, surface->mutable_quadratic());
  Assign(report.surface.lower, surface->mutable_lower());
  Assign(report.surface.upper, surface->mutable_upper());
  surface->set_r_squared(report.surface.r_squared);
  Assign(report.surface.residuals, surface->mutable_residuals());
  surface->set_convex(report.surface.convex);
  Assign(report.surface.scaled, surface->mutable_scaled());
  Assign(report.identified, proto.mutable_identified());
  Assign(report.std, proto.mutable_std());
  Assign(report.interval_lo, proto.mutable_interval_lo());
  Assign(report.interval_hi, proto.mutable_interval_hi());
  proto.set_on_boundary(report.on_boundary);
  proto.set_paired(report.paired);
  if (report.nominal_difference) {
    for (const NominalDifference& d : *report.nominal_difference) {
      v1::NominalDifference* out = proto.add_nominal_difference();
      out->set_difference(d.difference);
      if (d.z) out->set_z(*d.z);
    }
  }
  Assign(report.nominal, proto.mutable_nominal());
  for (const GroupIdentification& group : report.groups) {
    v1::GroupIdentification* out = proto.add_groups();
    out->set_group(group.group);
    out->set_reference_runs(group.reference_runs);
    Assign(group.identified, out->mutable_identified());
    out->set_on_boundary(group.on_boundary);
    out->set_predicted_distance(group.predicted_distance);
  }
  Assign(report.group_std, proto.mutable_group_std());
  proto.set_predicted_distance(report.predicted_distance);
  if (report.baseline_ref_ref_median) {
    proto.set_baseline_ref_ref_median(*report.baseline_ref_ref_median);
  }
  if (report.predicted_ratio) proto.set_predicted_ratio(*report.predicted_ratio);
  if (report.max_ratio) proto.set_max_ratio(*report.max_ratio);
  for (const SurfaceSlice& slice : report.slices) {
    v1::SurfaceSlice* out = proto.add_slices();
    out->set_parameter(slice.parameter);
    Assign(slice.x, out->mutable_x());
    Assign(slice.fitted, out->mutable_fitted());
    Assign(slice.lo, out->mutable_lo());
    Assign(slice.hi, out->mutable_hi());
  }
  SummaryToProto(report.summary, *proto.mutable_summary());
  FixedToProto(report.fixed, proto.mutable_fixed_parameters());
}

IdentificationReport IdentificationFromProto(const v1::IdentificationReport& proto) {
  IdentificationReport report;
  report.names = ToVector(proto.names());
  report.points = PointsFromProto(proto.points());
  report.response = FromProto(proto.response());
  const v1::QuadraticSurface& surface = proto.surface();
  report.surface.names = ToVector(surface.names());
  report.surface.constant = surface.constant();
  report.surface.linear = ToVector(surface.linear());
  report.surface.quadratic = ToVector(surface.quadratic());
  report.surface.lower = ToVector(surface.lower());
  report.surface.upper = ToVector(surface.upper());
  report.surface.r_squared = surface.r_squared();
  report.surface.residuals = ToVector(surface.residuals());
  report.surface.convex = surface.convex();
  report.surface.scaled = ToVector(surface.scaled());
  report.identified = ToVector(proto.identified());
  report.std = ToVector(proto.std());
  report.interval_lo = ToVector(proto.interval_lo());
  report.interval_hi = ToVector(proto.interval_hi());
  report.on_boundary = proto.on_boundary();
  report.paired = proto.paired();
  if (proto.nominal_difference_size() > 0) {
    std::vector<NominalDifference> differences;
    for (const v1::NominalDifference& d : proto.nominal_difference()) {
      NominalDifference& out = differences.emplace_back();
      out.difference = d.difference();
      if (d.has_z()) out.z = d.z();
    }
    report.nominal_difference = std::move(differences);
  }
  report.nominal = ToVector(proto.nominal());
  for (const v1::GroupIdentification& group : proto.groups()) {
    report.groups.push_back({.group = group.group(),
                             .reference_runs = group.reference_runs(),
                             .identified = ToVector(group.identified()),
                             .on_boundary = group.on_boundary(),
                             .predicted_distance = group.predicted_distance()});
  }
  report.group_std = ToVector(proto.group_std());
  report.predicted_distance = proto.predicted_distance();
  if (proto.has_baseline_ref_ref_median()) {
    report.baseline_ref_ref_median = proto.baseline_ref_ref_median();
  }
  if (proto.has_predicted_ratio()) report.predicted_ratio = proto.predicted_ratio();
  if (proto.has_max_ratio()) report.max_ratio = proto.max_ratio();
  for (const v1::SurfaceSlice& slice : proto.slices()) {
    report.slices.push_back({.parameter = slice.parameter(),
                             .x = ToVector(slice.x()),
                             .fitted = ToVector(slice.fitted()),
                             .lo = ToVector(slice.lo()),
                             .hi = ToVector(slice.hi())});
  }
  SummaryFromProto(proto.summary(), report.summary);
  report.fixed = FixedFromProto(proto.fixed_parameters());
  return report;
}

}  // namespace wasserwarp::wire
