// The one place where the service turns an absl::Status into the status a client sees, and
// where the service's own errors get the standard details that say, in a form clients can
// read without parsing English, what went wrong: google.rpc.Status in grpc-status-details-bin.

#ifndef WASSERWARP_WIRE_STATUS_TO_GRPC_H_
#define WASSERWARP_WIRE_STATUS_TO_GRPC_H_

#include <grpcpp/support/status.h>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace wasserwarp::wire {

// Same code (Abseil and gRPC share google.rpc.Code), same message, and a google.rpc.Status
// whose details hold:
// - BadRequest with one field violation when the error names a request field
//   (wasserwarp/field_error.h: `parameters.nu`, `verdict.permutations`, `a.times[3]`);
// - QuotaFailure naming the limit when it names one (`--max_job_bytes`);
// - every google.rpc detail attached below (PreconditionFailure, RetryInfo, ResourceInfo).
grpc::Status ToGrpcStatus(const absl::Status& status);

// `status` with a google.rpc.PreconditionFailure: `type` is what kind of state is missing
// (e.g. "SESSION_RUNS"), `subject` what lacks it (`sessions/s1`).
absl::Status WithPreconditionFailure(absl::Status status, absl::string_view type,
                                     absl::string_view subject);

// `status` with a google.rpc.RetryInfo: retrying after `delay` may succeed.
absl::Status WithRetryDelay(absl::Status status, absl::Duration delay);

// `status` with a google.rpc.ResourceInfo for the resource it concerns.
absl::Status WithResourceInfo(absl::Status status, absl::string_view resource_type,
                              absl::string_view resource_name);

}  // namespace wasserwarp::wire

#endif  // WASSERWARP_WIRE_STATUS_TO_GRPC_H_
