// The runs a stored validation was created with, from its session as the store holds it now:
// what a worker on any replica computes the validation, or one of its tiles, on.

#ifndef WASSERWARP_SERVER_JOBS_VALIDATED_RUNS_H_
#define WASSERWARP_SERVER_JOBS_VALIDATED_RUNS_H_

#include <vector>

#include "absl/status/statusor.h"
#include "sessions/session_store.h"
#include "validations/validation_record.h"

namespace wasserwarp::service {

// The session's runs that `record` names, in its order, with the session's lease. NotFound when
// the session instance is gone; DataLoss when a run is not the one the validation was created
// with (its checksum differs).
absl::StatusOr<SessionSnapshot> SnapshotOfValidation(SessionStore& sessions,
                                                     const ValidationRecord& record);

// Copies of the runs' series: the core takes runs by value, and the copies live only as long
// as the job that computes on them.
std::vector<Series> CopiesOf(const std::vector<StoredRun>& runs);

}  // namespace wasserwarp::service

#endif  // WASSERWARP_SERVER_JOBS_VALIDATED_RUNS_H_
