// What a Validate request and the session it names resolve to: the core's options, the sizes
// they imply, and what goes on the wire besides the report. Every refusal of a validation
// happens here, before the job takes a slot, with the request field at fault.

#ifndef WASSERWARP_SERVER_VALIDATION_JOB_H_
#define WASSERWARP_SERVER_VALIDATION_JOB_H_

#include "absl/status/statusor.h"
#include "session_store.h"
#include "wasserwarp/v1/validation.pb.h"
#include "wasserwarp/validation.h"
#include "wasserwarp/validation_size.h"

namespace wasserwarp::service {

struct ValidationJob {
  ValidationOptions options;
  ValidationSize size;
  bool include_cost_matrix = false;
  bool include_pooled_cost_matrix = false;
  bool include_html_report = false;
};

// FailedPrecondition (with a PreconditionFailure) for a session without simulated or
// reference runs; InvalidArgument naming the request field of a bad value; ResourceExhausted
// naming the field and the limit when the sizes exceed `limits`.
absl::StatusOr<ValidationJob> PrepareValidationJob(const v1::ValidateRequest& request,
                                                   const SessionSnapshot& snapshot,
                                                   const ValidationLimits& limits);

}  // namespace wasserwarp::service

#endif  // WASSERWARP_SERVER_VALIDATION_JOB_H_
