// Errors that concern one option or one input field carry that field's name beside their
// message, so that each front end can say it in its own words: the service as a request field
// path (`parameters.nu`, `verdict.permutations`), the CLI as a flag (`--nu`). The core names
// fields neutrally ("nu", "permutations", "times[118]") and never speaks of flags or requests.
//
// Errors where a size implied by the request exceeds a limit carry the limit's name too (a
// server flag such as `--max_job_bytes`, or a CLI flag), so that the client learns which quota
// it hit and the operator which one to raise.

#ifndef WASSERWARP_FIELD_ERROR_H_
#define WASSERWARP_FIELD_ERROR_H_

#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace wasserwarp {

// Status payload type URLs; neither is a protobuf message, so no front end mistakes them for
// google.rpc details.
inline constexpr char kFieldPayloadUrl[] = "wasserwarp/field";
inline constexpr char kLimitPayloadUrl[] = "wasserwarp/limit";

// `code` with message "<field>: <detail>" and the field attached.
absl::Status FieldError(absl::StatusCode code, absl::string_view field, absl::string_view detail);
inline absl::Status InvalidFieldError(absl::string_view field, absl::string_view detail) {
  return FieldError(absl::StatusCode::kInvalidArgument, field, detail);
}

// ResourceExhausted: "<field>: <detail>", with the field and the limit attached.
absl::Status LimitExceededError(absl::string_view field, absl::string_view limit,
                                absl::string_view detail);

// `status` with `field` attached; its message stays as it is.
absl::Status WithField(absl::Status status, absl::string_view field);
// `status` with `limit` attached; its message stays as it is.
absl::Status WithLimit(absl::Status status, absl::string_view limit);

// The field an error concerns; empty when it names none.
std::string ErrorField(const absl::Status& status);
// The limit a ResourceExhausted error hit; empty when it names none.
std::string ErrorLimit(const absl::Status& status);

// `status` about field `name` instead, its message "<name>: <detail>" where the detail is the
// message without its leading "<field>: ", if it had one. Unchanged when it names no field.
absl::Status RenameField(const absl::Status& status, absl::string_view name);

// `status` with `prefix` put before its field path ("a" + "times[3]" -> "a.times[3]", "verdict"
// + "permutations" -> "verdict.permutations"), renamed as RenameField does; a status without a
// field gets `prefix` as its field and its message unchanged.
absl::Status PrefixField(const absl::Status& status, absl::string_view prefix);

}  // namespace wasserwarp

#endif  // WASSERWARP_FIELD_ERROR_H_
