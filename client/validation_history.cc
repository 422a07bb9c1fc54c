#include "validation_history.h"

#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "nlohmann/json.hpp"
#include "resource_format.h"

namespace wasserwarp::cli {
namespace {

using Json = nlohmann::ordered_json;

std::string Optional(const std::optional<double>& value, const absl::FormatSpec<double>& format) {
  return value.has_value() ? absl::StrFormat(format, *value) : "-";
}

std::string Verdict(const std::optional<bool>& passed) {
  return !passed.has_value() ? "-" : *passed ? "PASS" : "FAIL";
}

Json OptionalJson(const std::optional<double>& value) {
  return value.has_value() ? Json(*value) : Json(nullptr);
}

}  // namespace

std::string FormatHistoryTable(const ValidationHistory& history) {
  if (history.points.empty()) {
    return absl::StrCat("no validation records with the label ", history.by, " and an outcome\n");
  }
  std::vector<Row> rows = {{history.by, "W", "ratio", "interval", "p", "verdict", "name"}};
  for (const HistoryPoint& point : history.points) {
    const std::string interval =
        point.ratio_interval_lo.has_value() && point.ratio_interval_hi.has_value()
            ? absl::StrFormat("[%.4g, %.4g]", *point.ratio_interval_lo, *point.ratio_interval_hi)
            : "-";
    rows.push_back({point.by, absl::StrFormat("%.6g", point.distance),
                    Optional(point.ratio, "%.4g"), interval, Optional(point.p_value, "%.3g"),
                    Verdict(point.passed), point.name});
  }
  return FormatTable(rows);
}

std::string HistoryToJson(const ValidationHistory& history) {
  Json list = Json::array();
  for (const HistoryPoint& point : history.points) {
    Json json;
    json["name"] = point.name;
    json["by"] = point.by;
    json["labels"] = Json::object();
    for (const auto& [key, value] : point.labels) json["labels"][key] = value;
    json["distance"] = point.distance;
    json["ratio"] = OptionalJson(point.ratio);
    json["ratio_interval"] =
        point.ratio_interval_lo.has_value() && point.ratio_interval_hi.has_value()
            ? Json::array({*point.ratio_interval_lo, *point.ratio_interval_hi})
            : Json(nullptr);
    json["p_value"] = OptionalJson(point.p_value);
    json["passed"] = point.passed.has_value() ? Json(*point.passed) : Json(nullptr);
    json["create_time"] = point.create_time;
    list.push_back(std::move(json));
  }
  return list.dump(2) + "\n";
}

std::string HistoryNote(const ValidationHistory& history) {
  std::vector<std::string> parts;
  if (history.without_label > 0) {
    parts.push_back(absl::StrCat(history.without_label, " without the label ", history.by));
  }
  if (history.without_outcome > 0) {
    parts.push_back(absl::StrCat(history.without_outcome, " that have not succeeded"));
  }
  if (parts.empty()) return "";
  return absl::StrCat("note: left out ", absl::StrJoin(parts, " and "),
                      " of the matching records\n");
}

}  // namespace wasserwarp::cli
