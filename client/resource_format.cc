#include "resource_format.h"

#include <algorithm>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
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

Json ValidationJson(const v1::Validation& validation) {
  Json json;
  json["name"] = validation.name();
  const size_t slash = validation.name().rfind('/');
  json["id"] = slash == std::string::npos ? validation.name() : validation.name().substr(slash + 1);
  json["state"] = ValidationStateName(validation.state());
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

std::string ValidationToJson(const v1::Validation& validation) {
  return ValidationJson(validation).dump(2) + "\n";
}

std::string ValidationsToJson(const std::vector<v1::Validation>& validations) {
  Json list = Json::array();
  for (const v1::Validation& validation : validations) list.push_back(ValidationJson(validation));
  return list.dump(2) + "\n";
}

}  // namespace wasserwarp::cli
