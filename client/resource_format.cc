#include "resource_format.h"

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/time/time.h"
#include "nlohmann/json.hpp"

namespace wasserwarp::cli {
namespace {

using Json = nlohmann::ordered_json;

constexpr struct {
  v1::ValidationState state;
  absl::string_view name;
} kStateNames[] = {
    {v1::VALIDATION_STATE_QUEUED, "queued"},       {v1::VALIDATION_STATE_RUNNING, "running"},
    {v1::VALIDATION_STATE_SUCCEEDED, "succeeded"}, {v1::VALIDATION_STATE_FAILED, "failed"},
    {v1::VALIDATION_STATE_CANCELLED, "cancelled"},
};

bool IsSet(const google::protobuf::Timestamp& timestamp) {
  return timestamp.seconds() != 0 || timestamp.nanos() != 0;
}

Json TimestampJson(const google::protobuf::Timestamp& timestamp) {
  return IsSet(timestamp) ? Json(FormatTimestamp(timestamp)) : Json(nullptr);
}

Json LabelsJson(const google::protobuf::Map<std::string, std::string>& labels) {
  // Sorted, so that equal records print equal JSON whatever the map's order.
  const std::map<std::string, std::string> sorted(labels.begin(), labels.end());
  Json json = Json::object();
  for (const auto& [key, value] : sorted) json[key] = value;
  return json;
}

Json OutcomeJson(const v1::Validation& validation) {
  if (!validation.has_outcome()) return nullptr;
  const v1::ValidationOutcome& outcome = validation.outcome();
  Json json;
  json["distance"] = outcome.distance();
  json["passed"] = outcome.has_passed() ? Json(outcome.passed()) : Json(nullptr);
  json["p_value"] = outcome.has_p_value() ? Json(outcome.p_value()) : Json(nullptr);
  json["ratio"] = outcome.has_ratio() ? Json(outcome.ratio()) : Json(nullptr);
  json["ratio_interval"] =
      outcome.has_ratio_interval_lo() && outcome.has_ratio_interval_hi()
          ? Json::array({outcome.ratio_interval_lo(), outcome.ratio_interval_hi()})
          : Json(nullptr);
  return json;
}

Json EngineJson(const v1::Validation& validation) {
  if (!validation.has_engine()) return nullptr;
  const v1::EngineInfo& engine = validation.engine();
  return {{"version", engine.version()},
          {"commit", engine.commit()},
          {"build_type", engine.build_type()},
          {"simd_target", engine.simd_target()}};
}

Json EventsJson(const v1::Validation& validation) {
  Json events = Json::array();
  for (const v1::ValidationEvent& event : validation.events()) {
    events.push_back({{"kind", ValidationEventKindName(event.kind())},
                      {"time", TimestampJson(event.time())},
                      {"principal", event.principal()},
                      {"replica", event.replica()}});
  }
  return events;
}

Json ValidationJson(const v1::Validation& validation) {
  Json json;
  json["name"] = validation.name();
  const size_t slash = validation.name().rfind('/');
  json["id"] = slash == std::string::npos ? validation.name() : validation.name().substr(slash + 1);
  json["state"] = ValidationStateName(validation.state());
  json["labels"] = LabelsJson(validation.labels());
  json["outcome"] = OutcomeJson(validation);
  json["create_time"] = TimestampJson(validation.create_time());
  json["start_time"] = TimestampJson(validation.start_time());
  json["end_time"] = TimestampJson(validation.end_time());
  json["attempts"] = validation.attempts();
  json["principal"] = validation.principal();
  if (validation.has_error()) {
    json["error"] = {{"code", absl::StatusCodeToString(
                                  static_cast<absl::StatusCode>(validation.error().code()))},
                     {"message", validation.error().message()}};
  } else {
    json["error"] = nullptr;
  }
  json["engine"] = EngineJson(validation);
  json["request_digest"] = validation.request_digest();
  json["events"] = EventsJson(validation);
  return json;
}

}  // namespace

std::string FormatTimestamp(const google::protobuf::Timestamp& timestamp) {
  if (!IsSet(timestamp)) return "-";
  const absl::Time time =
      absl::FromUnixSeconds(timestamp.seconds()) + absl::Nanoseconds(timestamp.nanos());
  return absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", time, absl::UTCTimeZone());
}

std::string FormatTable(const std::vector<Row>& rows) {
  std::vector<size_t> widths;
  for (const Row& row : rows) {
    widths.resize(std::max(widths.size(), row.size()));
    for (size_t i = 0; i < row.size(); ++i) widths[i] = std::max(widths[i], row[i].size());
  }
  std::string out;
  for (const Row& row : rows) {
    for (size_t i = 0; i < row.size(); ++i) {
      if (i + 1 == row.size()) {
        absl::StrAppend(&out, row[i], "\n");
      } else {
        absl::StrAppendFormat(&out, "%-*s  ", static_cast<int>(widths[i]), row[i]);
      }
    }
  }
  return out;
}

absl::string_view ValidationStateName(v1::ValidationState state) {
  for (const auto& named : kStateNames) {
    if (named.state == state) return named.name;
  }
  return "unspecified";
}

std::optional<v1::ValidationState> ValidationStateNamed(absl::string_view name) {
  for (const auto& named : kStateNames) {
    if (named.name == name) return named.state;
  }
  return std::nullopt;
}

absl::string_view ValidationEventKindName(v1::ValidationEvent::Kind kind) {
  switch (kind) {
    case v1::ValidationEvent::KIND_CREATE:
      return "create";
    case v1::ValidationEvent::KIND_START:
      return "start";
    case v1::ValidationEvent::KIND_END:
      return "end";
    case v1::ValidationEvent::KIND_CANCEL:
      return "cancel";
    case v1::ValidationEvent::KIND_SESSION_DELETE:
      return "session_delete";
    case v1::ValidationEvent::KIND_SESSION_EXPIRE:
      return "session_expire";
    default:
      return "unspecified";
  }
}

absl::string_view SessionStateName(v1::Session::State state) {
  switch (state) {
    case v1::Session::STATE_ACTIVE:
      return "active";
    case v1::Session::STATE_EXPIRED:
      return "expired";
    case v1::Session::STATE_DELETED:
      return "deleted";
    default:
      // A server from before tombstones sends no state: its sessions are all live.
      return "active";
  }
}

std::string FormatLabels(const google::protobuf::Map<std::string, std::string>& labels) {
  // The map's own order is unspecified; people read labels sorted.
  std::vector<std::string> pairs;
  for (const auto& [key, value] : labels) pairs.push_back(absl::StrCat(key, "=", value));
  std::sort(pairs.begin(), pairs.end());
  return pairs.empty() ? "-" : absl::StrJoin(pairs, ",");
}

std::string FormatRecordFields(const v1::Validation& validation) {
  std::string out = absl::StrFormat("labels: %s\n", FormatLabels(validation.labels()));
  if (!validation.principal().empty()) {
    absl::StrAppendFormat(&out, "principal: %s\n", validation.principal());
  }
  if (validation.has_engine()) {
    const v1::EngineInfo& engine = validation.engine();
    absl::StrAppendFormat(&out, "engine: wasserwarp %s (commit %s, %s, %s)\n", engine.version(),
                          engine.commit(), engine.build_type(), engine.simd_target());
  }
  if (!validation.request_digest().empty()) {
    absl::StrAppendFormat(&out, "request digest: %s\n", validation.request_digest());
  }
  if (validation.has_outcome()) {
    const v1::ValidationOutcome& outcome = validation.outcome();
    absl::StrAppendFormat(&out, "outcome: W %.6g", outcome.distance());
    if (outcome.has_ratio()) absl::StrAppendFormat(&out, ", ratio %.4g", outcome.ratio());
    if (outcome.has_ratio_interval_lo() && outcome.has_ratio_interval_hi()) {
      absl::StrAppendFormat(&out, " [%.4g, %.4g]", outcome.ratio_interval_lo(),
                            outcome.ratio_interval_hi());
    }
    if (outcome.has_p_value()) absl::StrAppendFormat(&out, ", p %.3g", outcome.p_value());
    absl::StrAppend(&out, ", ",
                    !outcome.has_passed() ? "no decision"
                    : outcome.passed()    ? "PASS"
                                          : "FAIL",
                    "\n");
  }
  for (const v1::ValidationEvent& event : validation.events()) {
    absl::StrAppendFormat(&out, "event: %s %s", FormatTimestamp(event.time()),
                          ValidationEventKindName(event.kind()));
    if (!event.principal().empty()) absl::StrAppendFormat(&out, " by %s", event.principal());
    if (!event.replica().empty()) absl::StrAppendFormat(&out, " on %s", event.replica());
    absl::StrAppend(&out, "\n");
  }
  return out;
}

std::string ValidationToJson(const v1::Validation& validation) {
  return ValidationJson(validation).dump(2) + "\n";
}

std::string ValidationsToJson(const std::vector<v1::Validation>& validations) {
  Json list = Json::array();
  for (const v1::Validation& validation : validations) list.push_back(ValidationJson(validation));
  return list.dump(2) + "\n";
}

}  // namespace wasserwarp::cli
