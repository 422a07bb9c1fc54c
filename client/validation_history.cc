#include "validation_history.h"

#include <algorithm>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "nlohmann/json.hpp"
#include "resource_format.h"
#include "version_order.h"

namespace wasserwarp::cli {
namespace {

using Json = nlohmann::ordered_json;

HistoryPoint PointOf(const v1::Validation& record, const std::string& by) {
  const v1::ValidationOutcome& outcome = record.outcome();
  HistoryPoint point;
  point.name = record.name();
  point.by = by;
  point.labels.insert(record.labels().begin(), record.labels().end());
  point.distance = outcome.distance();
  if (outcome.has_ratio()) point.ratio = outcome.ratio();
  if (outcome.has_ratio_interval_lo()) point.ratio_interval_lo = outcome.ratio_interval_lo();
  if (outcome.has_ratio_interval_hi()) point.ratio_interval_hi = outcome.ratio_interval_hi();
  if (outcome.has_p_value()) point.p_value = outcome.p_value();
  if (outcome.has_passed()) point.passed = outcome.passed();
  // The request's rules are what the record was judged by; reading them here spares a
  // GetValidation per record for its report.
  const v1::VerdictParameters& verdict = record.request().verdict();
  if (verdict.has_max_distance()) point.max_distance = verdict.max_distance();
  if (verdict.has_max_ratio()) point.max_ratio = verdict.max_ratio();
  point.create_time = FormatTimestamp(record.create_time());
  return point;
}

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

absl::StatusOr<std::string> HistoryLabelKey(absl::string_view by) {
  const absl::string_view key = absl::StripPrefix(by, "labels.");
  if (key.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("expected labels.KEY, e.g. labels.version, got \"", by, "\""));
  }
  return std::string(key);
}

ValidationHistory HistoryOf(const std::vector<v1::Validation>& records, absl::string_view key,
                            absl::string_view filter) {
  ValidationHistory history;
  history.by = std::string(key);
  history.filter = std::string(filter);
  struct Ordered {
    HistoryPoint point;
    google::protobuf::Timestamp created;
  };
  std::vector<Ordered> ordered;
  for (const v1::Validation& record : records) {
    const auto label = record.labels().find(std::string(key));
    if (label == record.labels().end()) {
      ++history.without_label;
    } else if (record.state() != v1::VALIDATION_STATE_SUCCEEDED || !record.has_outcome()) {
      ++history.without_outcome;
    } else {
      ordered.push_back({PointOf(record, label->second), record.create_time()});
    }
  }
  std::stable_sort(ordered.begin(), ordered.end(), [](const Ordered& a, const Ordered& b) {
    if (const int order = CompareVersions(a.point.by, b.point.by); order != 0) return order < 0;
    return std::make_tuple(a.created.seconds(), a.created.nanos(), a.point.name) <
           std::make_tuple(b.created.seconds(), b.created.nanos(), b.point.name);
  });
  for (Ordered& entry : ordered) history.points.push_back(std::move(entry.point));
  return history;
}

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
