#include "wire/convert.h"

#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "wasserwarp/field_error.h"
#include "wasserwarp/user_text.h"
#include "wire/channel_units.h"
#include "wire/event_window.h"
#include "wire/evidence.h"
#include "wire/iso18571.h"
#include "wire/repeated_fields.h"
#include "wire/tolerance_bands.h"
#include "wire/verdict.h"

namespace wasserwarp::wire {
namespace {

void ToProto(const std::vector<RunSummary>& runs,
             google::protobuf::RepeatedPtrField<v1::RunSummary>* out) {
  for (const RunSummary& run : runs) {
    v1::RunSummary* summary = out->Add();
    summary->set_id(run.id);
    summary->set_samples(static_cast<int64_t>(run.samples));
    summary->set_weight(run.weight);
    if (run.source.has_value()) RunSourceToProto(*run.source, *summary->mutable_source());
    if (run.trigger_time.has_value()) summary->set_trigger_time(*run.trigger_time);
  }
}

std::vector<RunSummary> FromProto(const google::protobuf::RepeatedPtrField<v1::RunSummary>& runs) {
  std::vector<RunSummary> out;
  out.reserve(runs.size());
  for (const v1::RunSummary& run : runs) {
    out.push_back({run.id(), static_cast<uint64_t>(run.samples()), run.weight(),
                   RunSourceFromProto(run.has_source(), run.source()),
                   run.has_trigger_time() ? std::optional(run.trigger_time()) : std::nullopt});
  }
  return out;
}

}  // namespace

google::protobuf::Timestamp ToProtoTime(absl::Time time) {
  // Timestamp ends with year 9999; a time past it (a TTL restored from before the server
  // capped them) goes out as that end rather than as a Timestamp no client can decode.
  constexpr int64_t kLastTimestampSecond = 253'402'300'799;  // 9999-12-31T23:59:59Z
  if (time > absl::FromUnixSeconds(kLastTimestampSecond)) {
    time = absl::FromUnixSeconds(kLastTimestampSecond);
  }
  const int64_t seconds = absl::ToUnixSeconds(time);
  google::protobuf::Timestamp out;
  out.set_seconds(seconds);
  out.set_nanos(
      static_cast<int32_t>((time - absl::FromUnixSeconds(seconds)) / absl::Nanoseconds(1)));
  return out;
}

absl::Time FromProtoTime(const google::protobuf::Timestamp& time) {
  return absl::FromUnixSeconds(time.seconds()) + absl::Nanoseconds(time.nanos());
}

google::protobuf::Duration ToProtoDuration(absl::Duration duration) {
  // Truncation towards zero keeps seconds and nanos of the same sign, as the proto requires.
  const int64_t seconds = absl::IDivDuration(duration, absl::Seconds(1), &duration);
  google::protobuf::Duration out;
  out.set_seconds(seconds);
  out.set_nanos(static_cast<int32_t>(duration / absl::Nanoseconds(1)));
  return out;
}

absl::Duration FromProtoDuration(const google::protobuf::Duration& duration) {
  return absl::Seconds(duration.seconds()) + absl::Nanoseconds(duration.nanos());
}

absl::StatusOr<absl::Duration> FromProtoDuration(const google::protobuf::Duration& duration,
                                                 absl::string_view field) {
  constexpr int64_t kMaxSeconds = 315'576'000'000;
  constexpr int32_t kMaxNanos = 999'999'999;
  const int64_t seconds = duration.seconds();
  const int32_t nanos = duration.nanos();
  const bool in_range = seconds >= -kMaxSeconds && seconds <= kMaxSeconds && nanos >= -kMaxNanos &&
                        nanos <= kMaxNanos;
  if (!in_range || (seconds > 0 && nanos < 0) || (seconds < 0 && nanos > 0)) {
    return InvalidFieldError(field, absl::StrCat("{seconds: ", seconds, ", nanos: ", nanos,
                                                 "} is not a valid google.protobuf.Duration"));
  }
  return FromProtoDuration(duration);
}

v1::Alignment ToProto(Align align) {
  return align == Align::kNone ? v1::ALIGNMENT_NONE : v1::ALIGNMENT_START;
}

v1::Scaling ToProto(Scale scale) {
  return scale == Scale::kNone ? v1::SCALING_NONE : v1::SCALING_REFERENCE_STD;
}

v1::Resampling ToProto(Resampling resampling) {
  return resampling == Resampling::kNone ? v1::RESAMPLING_NONE : v1::RESAMPLING_AUTO;
}

v1::Solver ToProto(TransportSolver solver) {
  switch (solver) {
    case TransportSolver::kAssignment:
      return v1::SOLVER_ASSIGNMENT;
    case TransportSolver::kNetworkSimplex:
      return v1::SOLVER_NETWORK_SIMPLEX;
    case TransportSolver::kMonotone:
      return v1::SOLVER_MONOTONE;
  }
  return v1::SOLVER_UNSPECIFIED;
}

v1::Phase ToProto(ValidationPhase phase) {
  switch (phase) {
    case ValidationPhase::kPreparing:
      return v1::PHASE_PREPARING;
    case ValidationPhase::kCostMatrix:
      return v1::PHASE_COST_MATRIX;
    case ValidationPhase::kTransport:
      return v1::PHASE_TRANSPORT;
    case ValidationPhase::kDiagnostics:
      return v1::PHASE_DIAGNOSTICS;
    case ValidationPhase::kPooledCostMatrix:
      return v1::PHASE_POOLED_COST_MATRIX;
    case ValidationPhase::kResampling:
      return v1::PHASE_RESAMPLING;
  }
  return v1::PHASE_UNSPECIFIED;
}

absl::StatusOr<Series> SeriesFromInline(const v1::InlineSeries& inline_series) {
  Series series;
  series.id = inline_series.series_id();
  series.channels = ToVector(inline_series.channels());
  series.times = ToVector(inline_series.times());
  series.values = ToVector(inline_series.values());
  absl::StatusOr<std::vector<std::string>> units = UnitsFromProto(
      inline_series.units(), series.channels, absl::StrCat("series ", QuotedText(series.id)));
  if (!units.ok()) return units.status();
  series.units = *std::move(units);
  if (absl::Status status = ValidateSeries(series); !status.ok()) return status;
  return series;
}

v1::InlineSeries InlineFromSeries(const Series& series) {
  v1::InlineSeries out;
  out.set_series_id(series.id);
  for (const std::string& channel : series.channels) out.add_channels(channel);
  Assign(series.times, out.mutable_times());
  Assign(series.values, out.mutable_values());
  for (const std::string& unit : series.units) out.add_units(unit);
  return out;
}

namespace {

void MatrixToProto(const CostMatrix& costs, v1::CostMatrix& proto) {
  proto.set_rows(static_cast<int32_t>(costs.rows));
  proto.set_cols(static_cast<int32_t>(costs.cols));
  Assign(costs.values, proto.mutable_values());
}

absl::StatusOr<CostMatrix> MatrixFromProto(const v1::CostMatrix& matrix, absl::string_view what) {
  if (matrix.rows() < 0 || matrix.cols() < 0 ||
      static_cast<int64_t>(matrix.rows()) * matrix.cols() != matrix.values_size()) {
    return absl::InvalidArgumentError(absl::StrCat("report ", what, " of ", matrix.rows(), " x ",
                                                   matrix.cols(), " holds ", matrix.values_size(),
                                                   " values"));
  }
  CostMatrix costs(matrix.rows(), matrix.cols());
  costs.values.assign(matrix.values().begin(), matrix.values().end());
  return costs;
}

// The core says NaN where a metric is undefined; the wire leaves it unset.
void SetDefined(double value, void (v1::ChannelMetrics::*set)(double), v1::ChannelMetrics& proto) {
  if (!std::isnan(value)) (proto.*set)(value);
}

void MetricsToProto(const ChannelMetrics& metrics, v1::ChannelMetrics& proto) {
  proto.set_samples(static_cast<int64_t>(metrics.samples));
  SetDefined(metrics.rmse, &v1::ChannelMetrics::set_rmse, proto);
  SetDefined(metrics.theil_u, &v1::ChannelMetrics::set_theil_u, proto);
  SetDefined(metrics.q3, &v1::ChannelMetrics::set_q3, proto);
  SetDefined(metrics.sprague_geers_m, &v1::ChannelMetrics::set_sprague_geers_m, proto);
  SetDefined(metrics.sprague_geers_p, &v1::ChannelMetrics::set_sprague_geers_p, proto);
  SetDefined(metrics.sprague_geers_c, &v1::ChannelMetrics::set_sprague_geers_c, proto);
  SetDefined(metrics.lag, &v1::ChannelMetrics::set_lag, proto);
}

double DefinedOrNan(bool has, double value) {
  return has ? value : std::numeric_limits<double>::quiet_NaN();
}

ChannelMetrics MetricsFromProto(const v1::ChannelMetrics& proto) {
  return {static_cast<uint64_t>(proto.samples()),
          DefinedOrNan(proto.has_rmse(), proto.rmse()),
          DefinedOrNan(proto.has_theil_u(), proto.theil_u()),
          DefinedOrNan(proto.has_q3(), proto.q3()),
          DefinedOrNan(proto.has_sprague_geers_m(), proto.sprague_geers_m()),
          DefinedOrNan(proto.has_sprague_geers_p(), proto.sprague_geers_p()),
          DefinedOrNan(proto.has_sprague_geers_c(), proto.sprague_geers_c()),
          DefinedOrNan(proto.has_lag(), proto.lag())};
}

}  // namespace

void ReportToProto(const ValidationReport& report, v1::ValidationReport& proto) {
  proto.set_distance(report.distance);
  proto.set_order(report.order);
  proto.set_solver(ToProto(report.solver));
  v1::ReportParameters* params = proto.mutable_parameters();
  params->set_nu(report.twed.nu);
  params->set_deletion_penalty(report.twed.lambda);
  params->set_p(report.twed.p);
  if (report.twed.time_window.has_value()) params->set_time_window(*report.twed.time_window);
  params->set_align(ToProto(report.align));
  params->set_scale(ToProto(report.scale));
  for (const std::string& channel : report.channels) params->add_channels(channel);
  if (report.resample_rate.has_value()) params->set_resample_rate(*report.resample_rate);
  params->set_resampling(ToProto(report.resampling));
  WindowReportToProto(report, *params);
  ChannelUnitsToProto(report, *params);
  ToProto(report.simulation, proto.mutable_simulation());
  ToProto(report.reference, proto.mutable_reference());
  for (const PlanEntry& entry : report.plan) {
    v1::PlanEntry* out = proto.add_plan();
    out->set_sim(entry.row);
    out->set_ref(entry.col);
    out->set_mass(entry.mass);
    out->set_cost(entry.cost);
  }
  Assign(report.sim_contributions, proto.mutable_sim_contributions());
  Assign(report.ref_contributions, proto.mutable_ref_contributions());
  for (const PairDiagnostics& pair : report.pairs) {
    v1::PairDiagnostics* out = proto.add_pairs();
    out->set_sim(pair.sim);
    out->set_ref(pair.ref);
    out->set_twed(pair.twed);
    out->set_matches(static_cast<int64_t>(pair.matches));
    out->set_sim_deletions(static_cast<int64_t>(pair.sim_deletions));
    out->set_ref_deletions(static_cast<int64_t>(pair.ref_deletions));
    out->set_mean_time_shift(pair.mean_time_shift);
  }
  v1::Certificate* certificate = proto.mutable_certificate();
  certificate->set_max_dual_violation(report.certificate.max_dual_violation);
  certificate->set_primal_dual_gap(report.certificate.primal_dual_gap);
  certificate->set_primal(report.certificate.primal);
  certificate->set_dual(report.certificate.dual);
  Assign(report.certificate.u, certificate->mutable_u());
  Assign(report.certificate.v, certificate->mutable_v());
  proto.set_weight_rounding_bound(report.weight_rounding_bound);
  if (report.cost_matrix.has_value())
    MatrixToProto(*report.cost_matrix, *proto.mutable_cost_matrix());
  proto.set_dp_cells(static_cast<int64_t>(report.dp_cells));
  proto.set_dp_cells_full(static_cast<int64_t>(report.dp_cells_full));
  proto.set_pairs_computed(static_cast<int64_t>(report.pairs_computed));
  proto.set_int16_cells(static_cast<int64_t>(report.int16_cells));
  proto.set_single_cells(static_cast<int64_t>(report.single_cells));
  proto.set_pairs_total(static_cast<int64_t>(report.pairs_total));
  proto.set_path(report.path);
  proto.set_transport_solves(static_cast<int64_t>(report.transport_solves));
  proto.set_seconds(report.seconds);
  for (const TileShare& share : report.tiles) {
    v1::TileShare* out = proto.add_tiles();
    out->set_replica(share.replica);
    out->set_tiles(static_cast<int64_t>(share.tiles));
    out->set_dp_cells(static_cast<int64_t>(share.dp_cells));
  }
  if (report.verdict.has_value()) VerdictToProto(*report.verdict, *proto.mutable_verdict());
  for (const PairMetrics& pair : report.pair_metrics) {
    v1::PairMetrics* out = proto.add_pair_metrics();
    out->set_sim(pair.sim);
    out->set_ref(pair.ref);
    out->set_channel(pair.channel);
    MetricsToProto(pair.metrics, *out->mutable_metrics());
  }
  for (const ChannelMetrics& average : report.pair_metrics_average) {
    MetricsToProto(average, *proto.add_pair_metrics_average());
  }
  for (const QuantityComparison& quantity : report.quantities) {
    v1::QuantityComparison* out = proto.add_quantities();
    out->set_channel(quantity.channel);
    out->set_quantity(quantity.quantity);
    out->set_avm(quantity.avm);
    Assign(quantity.sim_values, out->mutable_sim_values());
    Assign(quantity.ref_values, out->mutable_ref_values());
  }
  if (report.pooled_cost_matrix.has_value()) {
    MatrixToProto(*report.pooled_cost_matrix, *proto.mutable_pooled_cost_matrix());
  }
  EvidenceToProto(report, proto);
  BandsToProto(report, proto);
  Iso18571ToProto(report, proto);
}

absl::StatusOr<ValidationReport> ReportFromProto(const v1::ValidationReport& proto) {
  ValidationReport report;
  report.distance = proto.distance();
  report.order = proto.order();
  switch (proto.solver()) {
    case v1::SOLVER_ASSIGNMENT:
      report.solver = TransportSolver::kAssignment;
      break;
    case v1::SOLVER_NETWORK_SIMPLEX:
      report.solver = TransportSolver::kNetworkSimplex;
      break;
    case v1::SOLVER_MONOTONE:
      report.solver = TransportSolver::kMonotone;
      break;
    default:
      return absl::InvalidArgumentError(absl::StrCat("report has unknown solver ", proto.solver()));
  }
  const v1::ReportParameters& params = proto.parameters();
  report.twed.nu = params.nu();
  report.twed.lambda = params.deletion_penalty();
  report.twed.p = params.p();
  if (params.has_time_window()) report.twed.time_window = params.time_window();
  report.align = params.align() == v1::ALIGNMENT_NONE ? Align::kNone : Align::kStart;
  report.scale = params.scale() == v1::SCALING_REFERENCE_STD ? Scale::kReferenceStd : Scale::kNone;
  report.channels = ToVector(params.channels());
  if (params.has_resample_rate()) report.resample_rate = params.resample_rate();
  report.resampling =
      params.resampling() == v1::RESAMPLING_NONE ? Resampling::kNone : Resampling::kAuto;
  if (absl::Status status = WindowReportFromProto(params, report); !status.ok()) return status;
  ChannelUnitsFromProto(params, report);
  report.simulation = FromProto(proto.simulation());
  report.reference = FromProto(proto.reference());
  const auto valid_pair = [&](int sim, int ref) {
    return sim >= 0 && sim < proto.simulation_size() && ref >= 0 && ref < proto.reference_size();
  };
  for (const v1::PlanEntry& entry : proto.plan()) {
    if (!valid_pair(entry.sim(), entry.ref())) {
      return absl::InvalidArgumentError(
          absl::StrCat("report plan names run pair (", entry.sim(), ", ", entry.ref(), ")"));
    }
    report.plan.push_back({entry.sim(), entry.ref(), entry.mass(), entry.cost()});
  }
  report.sim_contributions = ToVector(proto.sim_contributions());
  report.ref_contributions = ToVector(proto.ref_contributions());
  for (const v1::PairDiagnostics& pair : proto.pairs()) {
    if (!valid_pair(pair.sim(), pair.ref())) {
      return absl::InvalidArgumentError(
          absl::StrCat("report pairs name run pair (", pair.sim(), ", ", pair.ref(), ")"));
    }
    report.pairs.push_back({pair.sim(), pair.ref(), pair.twed(),
                            static_cast<uint64_t>(pair.matches()),
                            static_cast<uint64_t>(pair.sim_deletions()),
                            static_cast<uint64_t>(pair.ref_deletions()), pair.mean_time_shift()});
  }
  const v1::Certificate& certificate = proto.certificate();
  report.certificate.max_dual_violation = certificate.max_dual_violation();
  report.certificate.primal_dual_gap = certificate.primal_dual_gap();
  report.certificate.primal = certificate.primal();
  report.certificate.dual = certificate.dual();
  report.certificate.u = ToVector(certificate.u());
  report.certificate.v = ToVector(certificate.v());
  report.weight_rounding_bound = proto.weight_rounding_bound();
  if (proto.has_cost_matrix()) {
    absl::StatusOr<CostMatrix> costs = MatrixFromProto(proto.cost_matrix(), "cost matrix");
    if (!costs.ok()) return costs.status();
    report.cost_matrix = *std::move(costs);
  }
  report.dp_cells = static_cast<uint64_t>(proto.dp_cells());
  report.dp_cells_full = static_cast<uint64_t>(proto.dp_cells_full());
  report.pairs_computed = static_cast<uint64_t>(proto.pairs_computed());
  report.int16_cells = static_cast<uint64_t>(proto.int16_cells());
  report.single_cells = static_cast<uint64_t>(proto.single_cells());
  report.pairs_total = static_cast<uint64_t>(proto.pairs_total());
  report.path = proto.path();
  report.transport_solves = static_cast<uint64_t>(proto.transport_solves());
  report.seconds = proto.seconds();
  for (const v1::TileShare& share : proto.tiles()) {
    report.tiles.push_back({.replica = share.replica(),
                            .tiles = static_cast<uint64_t>(share.tiles()),
                            .dp_cells = static_cast<uint64_t>(share.dp_cells())});
  }
  if (proto.has_verdict()) report.verdict = VerdictFromProto(proto.verdict());
  for (const v1::PairMetrics& pair : proto.pair_metrics()) {
    if (!valid_pair(pair.sim(), pair.ref()) || pair.channel() < 0 ||
        pair.channel() >= params.channels_size()) {
      return absl::InvalidArgumentError(absl::StrCat("report pair metrics name run pair (",
                                                     pair.sim(), ", ", pair.ref(), ") channel ",
                                                     pair.channel()));
    }
    report.pair_metrics.push_back(
        {pair.sim(), pair.ref(), pair.channel(), MetricsFromProto(pair.metrics())});
  }
  if (proto.pair_metrics_average_size() != 0 &&
      proto.pair_metrics_average_size() != params.channels_size()) {
    return absl::InvalidArgumentError(absl::StrCat("report has ", proto.pair_metrics_average_size(),
                                                   " averaged pair metrics for ",
                                                   params.channels_size(), " channels"));
  }
  for (const v1::ChannelMetrics& average : proto.pair_metrics_average()) {
    report.pair_metrics_average.push_back(MetricsFromProto(average));
  }
  for (const v1::QuantityComparison& quantity : proto.quantities()) {
    report.quantities.push_back({quantity.channel(), quantity.quantity(), quantity.avm(),
                                 ToVector(quantity.sim_values()), ToVector(quantity.ref_values())});
  }
  if (proto.has_pooled_cost_matrix()) {
    absl::StatusOr<CostMatrix> pooled =
        MatrixFromProto(proto.pooled_cost_matrix(), "pooled cost matrix");
    if (!pooled.ok()) return pooled.status();
    report.pooled_cost_matrix = *std::move(pooled);
  }
  EvidenceFromProto(proto, report);
  if (absl::Status status = BandsFromProto(proto, report); !status.ok()) return status;
  if (absl::Status status = Iso18571FromProto(proto, report); !status.ok()) return status;
  return report;
}

}  // namespace wasserwarp::wire
