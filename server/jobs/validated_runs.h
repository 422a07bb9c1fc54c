// The runs a stored validation was created with, from its session as the store holds it now:
// what a worker on any replica computes the validation, or one of its tiles, on.

#ifndef WASSERWARP_SERVER_JOBS_VALIDATED_RUNS_H_
#define WASSERWARP_SERVER_JOBS_VALIDATED_RUNS_H_

#include <vector>

#include "absl/status/statusor.h"
#include "sessions/session_store.h"
#include "validations/validation_record.h"
#include "wasserwarp/runs_view.h"

namespace wasserwarp::service {

// The session's runs that `record` names, in its order, with the session's lease. NotFound when
// the session instance is gone; DataLoss when a run is not the one the validation was created
// with (its checksum differs).
absl::StatusOr<SessionSnapshot> SnapshotOfValidation(SessionStore& sessions,
                                                     const ValidationRecord& record);

// The runs' series as the core reads them, their samples shared rather than copied: `runs`
// must outlive the view, which lives no longer than the job that computes on it.
RunsView ViewOf(const std::vector<StoredRun>& runs);

}  // namespace wasserwarp::service

#endif  // WASSERWARP_SERVER_JOBS_VALIDATED_RUNS_H_
