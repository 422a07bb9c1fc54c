// The one place where the client turns gRPC's status into absl::Status, so that every error
// the client library returns carries the service's code and message unchanged.

#ifndef WASSERWARP_WIRE_STATUS_FROM_GRPC_H_
#define WASSERWARP_WIRE_STATUS_FROM_GRPC_H_

#include <grpcpp/support/status.h>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace wasserwarp::wire {

// Same code, same message; UNAVAILABLE says "cannot reach server <target>" first, since the
// transport's own words ("failed to connect to all addresses") do not say which server. The
// status's google.rpc details come back as payloads: each under its Any type URL, and the
// request field of a BadRequest and the limit of a QuotaFailure as ErrorField and ErrorLimit
// (wasserwarp/field_error.h) read them.
absl::Status FromGrpcStatus(const grpc::Status& status, absl::string_view target);

}  // namespace wasserwarp::wire

#endif  // WASSERWARP_WIRE_STATUS_FROM_GRPC_H_
