// How much a session's or a validation's labels may hold (--max_label_bytes, and at most
// kMaxLabels of them), and what they count toward the bytes a session and its principal hold:
// labels are kept in memory and in the database as long as their session or record.

#ifndef WASSERWARP_SERVER_SESSIONS_LABEL_BOUND_H_
#define WASSERWARP_SERVER_SESSIONS_LABEL_BOUND_H_

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "ops/server_config.h"

namespace wasserwarp::service {

// The bytes of the keys and values.
int64_t LabelBytes(const std::map<std::string, std::string>& labels);

// InvalidArgument on `<field_path>[<key>]` of the first label, in key order, past kMaxLabels or
// past --max_label_bytes (with that limit); Ok otherwise.
absl::Status CheckLabelBound(const std::map<std::string, std::string>& labels,
                             std::string_view field_path, const SessionLimits& limits);

}  // namespace wasserwarp::service

#endif  // WASSERWARP_SERVER_SESSIONS_LABEL_BOUND_H_
