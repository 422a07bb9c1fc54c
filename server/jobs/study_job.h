// A parameter study as the service runs it: a validation whose request carries StudyParameters.
// Its design comes from the parameters and trials the session's simulated runs were uploaded
// with; the job computes the study's costs (every simulated run against the references, and
// the references against themselves), then the sensitivity or the identification, as the CLI
// does without --server, so that both give the same numbers.

#ifndef WASSERWARP_SERVER_JOBS_STUDY_JOB_H_
#define WASSERWARP_SERVER_JOBS_STUDY_JOB_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "sessions/session_store.h"
#include "wasserwarp/html_report.h"
#include "wasserwarp/identification.h"
#include "wasserwarp/parameter_study.h"
#include "wasserwarp/runs_view.h"
#include "wasserwarp/sensitivity.h"
#include "wasserwarp/v1/validation.pb.h"
#include "wasserwarp/validation.h"

namespace wasserwarp::service {

struct StudyJob {
  StudyDesign design;
  std::optional<SensitivityOptions> sensitivity;  // one of the two
  std::optional<IdentifyOptions> identify;
};

// InvalidArgument naming the field under "study" for bad options, and for reference groups
// that name other runs than the session's references; FailedPrecondition when the session's
// simulated runs do not make a design (no parameters, different parameter names, trials for
// some runs only, one trial twice at a point).
absl::StatusOr<StudyJob> PrepareStudyJob(const v1::StudyParameters& parameters,
                                         const SessionSnapshot& snapshot);

// The study on `simulation` against `reference` with the validation options `options` (its
// threads, cancellation and progress callbacks included): the report of every simulated run
// against the references, its study part set; the cost matrix only when asked for, and the
// study's HTML page in html_report with `page` set.
absl::StatusOr<v1::ValidationReport> RunStudyJob(const StudyJob& study, const RunsView& simulation,
                                                 const RunsView& reference,
                                                 const ValidationOptions& options,
                                                 bool include_cost_matrix,
                                                 const HtmlReportOptions* page);

}  // namespace wasserwarp::service

#endif  // WASSERWARP_SERVER_JOBS_STUDY_JOB_H_
