#include "wasserwarp/report_json.h"

#include <string>

#include "nlohmann/json.hpp"

namespace wasserwarp {
namespace {

using Json = nlohmann::ordered_json;

Json RunsJson(const std::vector<RunSummary>& runs) {
  Json list = Json::array();
  for (const RunSummary& run : runs) {
    list.push_back({{"id", run.id}, {"samples", run.samples}, {"weight", run.weight}});
  }
  return list;
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
  params["channels"] = report.channels;
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

}  // namespace

std::string ReportToJson(const ValidationReport& report, int indent) {
  Json json;
  json["distance"] = report.distance;
  json["order"] = report.order;
  json["solver"] = TransportSolverName(report.solver);
  json["params"] = ParamsJson(report);
  json["simulation"] = RunsJson(report.simulation);
  json["reference"] = RunsJson(report.reference);

  Json plan = Json::array();
  for (const PlanEntry& entry : report.plan) {
    plan.push_back(
        {{"sim", entry.row}, {"ref", entry.col}, {"mass", entry.mass}, {"cost", entry.cost}});
  }
  json["plan"] = std::move(plan);
  json["sim_contributions"] = report.sim_contributions;
  json["ref_contributions"] = report.ref_contributions;

  Json pairs = Json::array();
  for (const PairDiagnostics& pair : report.pairs) {
    pairs.push_back({{"sim", pair.sim},
                     {"ref", pair.ref},
                     {"twed", pair.twed},
                     {"matches", pair.matches},
                     {"sim_deletions", pair.sim_deletions},
                     {"ref_deletions", pair.ref_deletions},
                     {"mean_time_shift", pair.mean_time_shift}});
  }
  json["pairs"] = std::move(pairs);
  json["certificate"] = CertificateJson(report.certificate);
  json["weight_rounding_bound"] = report.weight_rounding_bound;
  json["dp_cells"] = report.dp_cells;
  json["seconds"] = report.seconds;

  if (report.cost_matrix.has_value()) {
    const CostMatrix& costs = *report.cost_matrix;
    Json matrix = Json::array();
    for (size_t i = 0; i < costs.rows; ++i) {
      matrix.push_back(std::vector<double>(costs.values.begin() + i * costs.cols,
                                           costs.values.begin() + (i + 1) * costs.cols));
    }
    json["cost_matrix"] = std::move(matrix);
  }
  return json.dump(indent) + "\n";
}

}  // namespace wasserwarp
