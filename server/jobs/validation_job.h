// A validation as the service runs it, between the reactor that moves its messages and the
// core that computes it: what a Validate request and the session it names resolve to (the
// core's options, the sizes they imply, what goes on the wire besides the report), and the run
// that turns them into the report's proto. Every refusal of a validation happens in
// PrepareValidationJob, before the job takes a slot, with the request field at fault.

#ifndef WASSERWARP_SERVER_JOBS_VALIDATION_JOB_H_
#define WASSERWARP_SERVER_JOBS_VALIDATION_JOB_H_

#include <functional>
#include <map>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "jobs/study_job.h"
#include "sessions/session_store.h"
#include "wasserwarp/parameter_overrides.h"
#include "wasserwarp/v1/validation.pb.h"
#include "wasserwarp/validation.h"
#include "wasserwarp/validation_size.h"

namespace wasserwarp::service {

struct ValidationJob {
  // The session's defaults with the request's parameters over them: what `options` were
  // resolved from, stored as the validation's effective parameters.
  ParameterOverrides parameters;
  ValidationOptions options;
  ValidationSize size;
  bool include_cost_matrix = false;
  bool include_pooled_cost_matrix = false;
  bool include_html_report = false;
  // A parameter study instead of a plain validation (ValidateRequest.study).
  std::optional<StudyJob> study;
  // The request's labels, checked (CheckLabels), and the digest of what it validates
  // (RequestDigest): both go into the report.
  std::map<std::string, std::string> labels;
  std::string request_digest;
};

// FailedPrecondition (with a PreconditionFailure) for a session without simulated or
// reference runs; InvalidArgument naming the request field of a bad value; ResourceExhausted
// naming the field and the limit when the sizes exceed `limits`.
absl::StatusOr<ValidationJob> PrepareValidationJob(const v1::ValidateRequest& request,
                                                   const SessionSnapshot& snapshot,
                                                   const ValidationLimits& limits);

// The core validation on the snapshot's runs, their samples shared with the store, the HTML page
// when asked for, and the report as it goes on the wire, without the matrices that were not asked
// for. The job's options carry the caller's progress callbacks and cancellation token;
// `on_computed` runs as soon as the core is done, before the page is drawn.
absl::StatusOr<v1::ValidationReport> RunValidationJob(const ValidationJob& job,
                                                      const SessionSnapshot& snapshot,
                                                      const std::function<void()>& on_computed);

}  // namespace wasserwarp::service

#endif  // WASSERWARP_SERVER_JOBS_VALIDATION_JOB_H_
