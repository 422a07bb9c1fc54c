#include "wasserwarp/comparison_json.h"

#include <cmath>
#include <string>
#include <utility>

#include "nlohmann/json.hpp"
#include "report/iso18571_json.h"

namespace wasserwarp {

std::string ComparisonToJson(const ComparisonReport& report, int indent) {
  using Json = nlohmann::ordered_json;
  Json json;
  json["distance_a"] = report.distance_a;
  json["distance_b"] = report.distance_b;
  json["difference"] = report.difference;
  json["interval"] = {report.interval_lo, report.interval_hi};
  json["interval_method"] = "bca";
  json["bias_correction"] = report.bias_correction;
  json["acceleration"] = report.acceleration;
  json["paired"] = report.paired;
  // JSON has no infinity; nlohmann would write null for it anyway, said here
  // so that the document does not depend on that.
  json["variance_gain"] = report.variance_gain.has_value() && std::isfinite(*report.variance_gain)
                              ? Json(*report.variance_gain)
                              : Json(nullptr);
  json["resamples"] = report.resamples;
  json["confidence"] = report.confidence;
  json["seed"] = report.seed;
  json["runs"] = {{"a", report.runs_a}, {"b", report.runs_b}, {"ref", report.runs_ref}};
  json["dp_cells"] = report.dp_cells;
  json["seconds"] = report.seconds;
  // Each variant's own section, with the keys a validation of that variant writes.
  for (const auto& [key, iso] :
       {std::pair{"a", &report.iso18571_a}, std::pair{"b", &report.iso18571_b}}) {
    if (!iso->has_value()) continue;
    Json variant = Json::object();
    AddIso18571Json(**iso, variant);
    json[key] = std::move(variant);
  }
  return json.dump(indent) + "\n";
}

}  // namespace wasserwarp
