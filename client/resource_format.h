// How the CLI shows a server's resources, sessions and validations: timestamps, tables for a
// person, JSON for a script.

#ifndef WASSERWARP_CLIENT_RESOURCE_FORMAT_H_
#define WASSERWARP_CLIENT_RESOURCE_FORMAT_H_

#include <google/protobuf/timestamp.pb.h>

#include <optional>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "wasserwarp/v1/validation.pb.h"

namespace wasserwarp::cli {

using Row = std::vector<std::string>;

// RFC 3339 in UTC to the second; "-" for an unset timestamp.
std::string FormatTimestamp(const google::protobuf::Timestamp& timestamp);

// Columns padded to their widest cell; the last column is not padded.
std::string FormatTable(const std::vector<Row>& rows);

// "queued", "running", "succeeded", "failed", "cancelled"; "unspecified" otherwise.
absl::string_view ValidationStateName(v1::ValidationState state);
// The state ValidationStateName names; nullopt for any other word.
std::optional<v1::ValidationState> ValidationStateNamed(absl::string_view name);

// "create", "start", "end", "cancel", "session_delete", "session_expire".
absl::string_view ValidationEventKindName(v1::ValidationEvent::Kind kind);
// "active", "expired" (a tombstone after the session's TTL), "deleted" (a tombstone).
absl::string_view SessionStateName(v1::Session::State state);

// key=value,... sorted by key; "-" for none.
std::string FormatLabels(const google::protobuf::Map<std::string, std::string>& labels);

// The record's own fields, a line each for a person: labels, principal, engine, request
// digest, outcome and events (those it has).
std::string FormatRecordFields(const v1::Validation& validation);

// The validation without its request and report, as one JSON object: name, id, state, labels
// (an object), outcome ({distance, passed, p_value, ratio, ratio_interval: [lo, hi]}, what it
// lacks null; null until it SUCCEEDED), create_time, start_time, end_time (RFC 3339, null while
// unset), attempts, principal, error ({code, message} for a FAILED or CANCELLED validation,
// null otherwise), engine ({version, commit, build_type, simd_target}, null until it ended),
// request_digest and events ([{kind, time, principal, replica}]).
std::string ValidationToJson(const v1::Validation& validation);
// The validations as a JSON array of those objects.
std::string ValidationsToJson(const std::vector<v1::Validation>& validations);

}  // namespace wasserwarp::cli

#endif  // WASSERWARP_CLIENT_RESOURCE_FORMAT_H_
