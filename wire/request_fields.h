// The core names the option an error concerns neutrally ("nu", "permutations"; see
// wasserwarp/field_error.h); a client of the service needs the path of the request field that
// set it ("parameters.nu", "verdict.permutations"). This is the one table between the two.

#ifndef WASSERWARP_WIRE_REQUEST_FIELDS_H_
#define WASSERWARP_WIRE_REQUEST_FIELDS_H_

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace wasserwarp::wire {

// `status` with its core field renamed to the request field path, message included.
// `parameters` is the path of the request's ValidationParameters: "parameters" in
// ValidateRequest and ComputeTwedRequest, "session.default_parameters" in
// CreateSessionRequest. Fields the table does not know, and statuses without one, are
// returned unchanged.
absl::Status InRequestTerms(const absl::Status& status,
                            absl::string_view parameters = "parameters");

}  // namespace wasserwarp::wire

#endif  // WASSERWARP_WIRE_REQUEST_FIELDS_H_
