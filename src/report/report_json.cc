#include "wasserwarp/report_json.h"

#include <cmath>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "nlohmann/json.hpp"
#include "report/iso18571_json.h"

namespace wasserwarp {
namespace {

using Json = nlohmann::ordered_json;

// `fields` in order as a JSON object, built in place. An initializer list of pairs makes nlohmann
// build an array for each field and then copy it into the object: about 7 us an object, 14 ms
// for the 2000 plan entries of a 2000 x 2000 report. For the lists of a report's many entries.
Json ObjectOf(std::initializer_list<std::pair<std::string_view, Json>> fields) {
  Json object(Json::value_t::object);
  Json::object_t& members = object.get_ref<Json::object_t&>();
  members.reserve(fields.size());
  for (const auto& [key, value] : fields) members.emplace_back(key, value);
  return object;
}

Json RunsJson(const std::vector<RunSummary>& runs) {
  Json list = Json::array();
  for (const RunSummary& run : runs) {
    Json entry = ObjectOf({{"id", run.id}, {"samples", run.samples}, {"weight", run.weight}});
    if (run.source.has_value()) {
      entry["source"] = ObjectOf({{"file", run.source->file}, {"sha256", run.source->sha256}});
    }
    if (run.trigger_time.has_value()) entry["trigger_time"] = *run.trigger_time;
    list.push_back(std::move(entry));
  }
  return list;
}

Json EngineJson(const std::optional<EngineInfo>& engine) {
  if (!engine.has_value()) return nullptr;
  return {{"version", engine->version},
          {"commit", engine->commit},
          {"build_type", engine->build_type},
          {"simd_target", engine->simd_target}};
}

// As the proto's ReportParameters.window, with the runs it left out.
Json WindowJson(const EventWindow& window, const std::vector<UntriggeredRun>& untriggered) {
  Json left_out = Json::array();
  for (const UntriggeredRun& run : untriggered) {
    left_out.push_back({{"side", run.side}, {"id", run.id}});
  }
  return {{"condition", WindowConditionText(window)},
          {"before", window.before},
          {"after", window.after},
          {"hysteresis", window.hysteresis},
          {"skip_untriggered", window.skip_untriggered},
          {"untriggered", std::move(left_out)}};
}

// Each channel with its unit (null where none) and its name in the simulated runs; reports from
// before units have neither, and read as without a unit and unmapped.
Json ChannelsJson(const ValidationReport& report) {
  Json channels = Json::array();
  for (size_t c = 0; c < report.channels.size(); ++c) {
    const bool known = c < report.channel_units.size();
    channels.push_back(
        {{"name", report.channels[c]},
         {"unit", known && !report.channel_units[c].empty() ? Json(report.channel_units[c])
                                                            : Json(nullptr)},
         {"simulation_channel", c < report.simulation_channels.size()
                                    ? report.simulation_channels[c]
                                    : report.channels[c]}});
  }
  return channels;
}

Json ParamsJson(const ValidationReport& report) {
  Json params;
  params["nu"] = report.twed.nu;
  params["lambda"] = report.twed.lambda;
  params["p"] = report.twed.p;
  params["time_window"] =
      report.twed.time_window.has_value() ? Json(*report.twed.time_window) : Json(nullptr);
  params["align"] = AlignName(report.align);
  params["scale"] = ScaleName(report.scale);
  params["channels"] = ChannelsJson(report);
  params["resample_rate"] =
      report.resample_rate.has_value() ? Json(*report.resample_rate) : Json(nullptr);
  params["resampling"] =
      report.resample_rate.has_value() ? Json(nullptr) : Json(ResamplingName(report.resampling));
  if (report.window.has_value()) {
    params["window"] = WindowJson(*report.window, report.untriggered);
  }
  params["unit_warnings"] = report.unit_warnings;
  return params;
}

Json CertificateJson(const TransportCertificate& certificate) {
  Json json;
  json["max_dual_violation"] = certificate.max_dual_violation;
  json["primal_dual_gap"] = certificate.primal_dual_gap;
  json["primal"] = certificate.primal;
  json["dual"] = certificate.dual;
  json["u"] = certificate.u;
  json["v"] = certificate.v;
  return json;
}

Json MatrixJson(const CostMatrix& costs) {
  Json matrix = Json::array();
  for (size_t i = 0; i < costs.rows; ++i) {
    matrix.push_back(std::vector<double>(costs.values.begin() + i * costs.cols,
                                         costs.values.begin() + (i + 1) * costs.cols));
  }
  return matrix;
}

// Metrics undefined for the data are NaN, which JSON cannot hold.
Json Number(double value) { return std::isfinite(value) ? Json(value) : Json(nullptr); }

// `metrics`' fields, after those `entry` has.
void AppendMetrics(const ChannelMetrics& metrics, Json& entry) {
  Json::object_t& members = entry.get_ref<Json::object_t&>();
  members.emplace_back("samples", metrics.samples);
  members.emplace_back("rmse", Number(metrics.rmse));
  members.emplace_back("theil_u", Number(metrics.theil_u));
  members.emplace_back("q3", Number(metrics.q3));
  members.emplace_back("sprague_geers_m", Number(metrics.sprague_geers_m));
  members.emplace_back("sprague_geers_p", Number(metrics.sprague_geers_p));
  members.emplace_back("sprague_geers_c", Number(metrics.sprague_geers_c));
  members.emplace_back("lag", Number(metrics.lag));
}

Json PairMetricsJson(const ValidationReport& report) {
  Json list = Json::array();
  for (const PairMetrics& pair : report.pair_metrics) {
    Json entry = ObjectOf(
        {{"sim", pair.sim}, {"ref", pair.ref}, {"channel", report.channels[pair.channel]}});
    AppendMetrics(pair.metrics, entry);
    list.push_back(std::move(entry));
  }
  return list;
}

Json PairMetricsAverageJson(const ValidationReport& report) {
  Json list = Json::array();
  for (size_t c = 0; c < report.pair_metrics_average.size(); ++c) {
    Json entry = ObjectOf({{"channel", report.channels[c]}});
    AppendMetrics(report.pair_metrics_average[c], entry);
    list.push_back(std::move(entry));
  }
  return list;
}

Json QuantitiesJson(const std::vector<QuantityComparison>& quantities) {
  Json list = Json::array();
  for (const QuantityComparison& quantity : quantities) {
    list.push_back({{"channel", quantity.channel},
                    {"quantity", quantity.quantity},
                    {"avm", quantity.avm},
                    {"sim_values", quantity.sim_values},
                    {"ref_values", quantity.ref_values}});
  }
  return list;
}

Json ToleranceBandsJson(const std::vector<ToleranceBand>& bands) {
  Json list = Json::array();
  for (const ToleranceBand& band : bands) {
    list.push_back({{"channel", band.channel},
                    {"abs", band.abs},
                    {"rel", band.rel},
                    {"lead", band.lead},
                    {"lag", band.lag}});
  }
  return list;
}

// Each scored band under its channel's name (the band's index says less to a reader).
Json PairBandsJson(const ValidationReport& report) {
  Json list = Json::array();
  for (const PairBand& pair : report.bands) {
    list.push_back(ObjectOf({{"sim", pair.sim},
                             {"ref", pair.ref},
                             {"channel", report.tolerance_bands[pair.band].channel},
                             {"samples", pair.score.samples},
                             {"inside", Number(pair.score.inside)},
                             {"max_excursion", Number(pair.score.max_excursion)},
                             {"first_violation", pair.score.first_violation.has_value()
                                                     ? Json(*pair.score.first_violation)
                                                     : Json(nullptr)}}));
  }
  return list;
}

Json BaselineJson(const Baseline& baseline) {
  return {{"ref_ref_median", baseline.ref_ref_median},
          {"ref_ref_p05", baseline.ref_ref_p05},
          {"ref_ref_p95", baseline.ref_ref_p95},
          {"sim_ref_median", baseline.sim_ref_median},
          {"sim_ref_p05", baseline.sim_ref_p05},
          {"sim_ref_p95", baseline.sim_ref_p95},
          // +inf when the references are indistinguishable from each other but not from the
          // simulations; JSON has no infinity.
          {"ratio", Number(baseline.ratio)},
          {"ratio_interval",
           Json::array({Number(baseline.ratio_interval_lo), Number(baseline.ratio_interval_hi)})},
          {"ratio_confidence", baseline.ratio_confidence},
          {"subset_size", baseline.subset_size}};
}

Json VerdictJson(const Verdict& verdict) {
  Json rules = Json::array();
  for (const VerdictRule& rule : verdict.rules) {
    rules.push_back({{"name", rule.name},
                     {"basis", rule.basis},
                     {"value", Number(rule.value)},
                     {"threshold", rule.threshold},
                     {"pass", rule.pass}});
  }
  Json json;
  json["pass"] = verdict.pass.has_value() ? Json(*verdict.pass) : Json(nullptr);
  json["rules"] = std::move(rules);
  json["p_value"] = verdict.p_value;
  json["permutations"] = verdict.permutations;
  json["baseline"] = verdict.baseline.has_value() ? BaselineJson(*verdict.baseline) : Json(nullptr);
  json["statistic"] = verdict.statistic;
  json["seed"] = verdict.seed;
  json["sampling_floor_subtracted"] = verdict.sampling_floor_subtracted;
  json["resample_rate"] =
      verdict.resample_rate.has_value() ? Json(*verdict.resample_rate) : Json(nullptr);
  json["same_grid_as_distance"] = verdict.same_grid_as_distance;
  json["warnings"] = verdict.warnings;
  return json;
}

std::string ReportJson(const ValidationReport& report, int indent, bool with_cost_matrices) {
  Json json;
  json["distance"] = report.distance;
  json["order"] = report.order;
  json["solver"] = TransportSolverName(report.solver);
  json["params"] = ParamsJson(report);
  json["simulation"] = RunsJson(report.simulation);
  json["reference"] = RunsJson(report.reference);

  Json plan = Json::array();
  for (const PlanEntry& entry : report.plan) {
    plan.push_back(ObjectOf(
        {{"sim", entry.row}, {"ref", entry.col}, {"mass", entry.mass}, {"cost", entry.cost}}));
  }
  json["plan"] = std::move(plan);
  json["sim_contributions"] = report.sim_contributions;
  json["ref_contributions"] = report.ref_contributions;

  Json pairs = Json::array();
  for (const PairDiagnostics& pair : report.pairs) {
    pairs.push_back(ObjectOf({{"sim", pair.sim},
                              {"ref", pair.ref},
                              {"twed", pair.twed},
                              {"matches", pair.matches},
                              {"sim_deletions", pair.sim_deletions},
                              {"ref_deletions", pair.ref_deletions},
                              {"mean_time_shift", pair.mean_time_shift}}));
  }
  json["pairs"] = std::move(pairs);
  json["certificate"] = CertificateJson(report.certificate);
  json["weight_rounding_bound"] = report.weight_rounding_bound;
  json["dp_cells"] = report.dp_cells;
  json["dp_cells_full"] = report.dp_cells_full;
  json["pairs_computed"] = report.pairs_computed;
  json["pairs_total"] = report.pairs_total;
  json["int16_cells"] = report.int16_cells;
  json["single_cells"] = report.single_cells;
  json["seconds"] = report.seconds;
  Json tiles = Json::array();
  for (const TileShare& share : report.tiles) {
    tiles.push_back(
        {{"replica", share.replica}, {"tiles", share.tiles}, {"dp_cells", share.dp_cells}});
  }
  json["tiles"] = std::move(tiles);
  json["verdict"] = report.verdict.has_value() ? VerdictJson(*report.verdict) : Json(nullptr);
  json["pair_metrics"] = PairMetricsJson(report);
  json["pair_metrics_average"] = PairMetricsAverageJson(report);
  json["qoi"] = QuantitiesJson(report.quantities);
  json["tolerance_bands"] = ToleranceBandsJson(report.tolerance_bands);
  json["bands"] = PairBandsJson(report);

  AddIso18571Json(report, json);

  json["path"] = report.path;
  json["transport_solves"] = report.transport_solves;
  json["input_notes"] = report.input_notes;
  json["labels"] = Json::object();
  for (const auto& [key, value] : report.labels) json["labels"][key] = value;
  json["engine"] = EngineJson(report.engine);
  json["request_digest"] =
      report.request_digest.empty() ? Json(nullptr) : Json(report.request_digest);
  // Only where known, so that a validation not stored reads as before.
  if (!report.link.empty()) json["link"] = report.link;

  if (with_cost_matrices && report.cost_matrix.has_value()) {
    json["cost_matrix"] = MatrixJson(*report.cost_matrix);
  }
  if (with_cost_matrices && report.pooled_cost_matrix.has_value()) {
    json["pooled_cost_matrix"] = MatrixJson(*report.pooled_cost_matrix);
  }
  return json.dump(indent) + "\n";
}

}  // namespace

std::string ReportToJson(const ValidationReport& report, int indent) {
  return ReportJson(report, indent, /*with_cost_matrices=*/true);
}

std::string ReportJsonDocument(const ValidationReport& report, bool with_cost_matrices) {
  return ReportJson(report, /*indent=*/2, with_cost_matrices);
}

}  // namespace wasserwarp
