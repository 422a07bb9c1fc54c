// What a validation record keeps of its session and runs as evidence, and the session's
// tombstone as the API's Session: the translations between the stores' opaque bytes
// (validations/validation_record.h) and wasserwarp.v1 messages.

#ifndef WASSERWARP_SERVER_RPC_VALIDATION_EVIDENCE_H_
#define WASSERWARP_SERVER_RPC_VALIDATION_EVIDENCE_H_

#include <string>
#include <vector>

#include "sessions/session_record.h"
#include "sessions/session_store.h"
#include "validations/validation_record.h"
#include "wasserwarp/v1/validation.pb.h"

namespace wasserwarp::service {

// The runs of `snapshot` in report order, as ValidatedRun details (channels, samples, first and
// last time, median sampling rate, weight, parameters, trial, source), in a serialized
// wasserwarp.v1.Validation: ValidationRecord::evidence. `runs` are the same runs as the record
// holds them, whose checksums (a pass over every sample) are not computed again.
std::string EvidenceOf(const SessionSnapshot& snapshot, const std::vector<ValidatedRun>& runs);

// `session` as a tombstone would answer for it: its labels, settings and runs, without
// samples (RecordedSession::summary).
RecordedSession RecordedSessionOf(const SessionRecord& session, int64_t key,
                                  const std::string& owner);

// A kept session as GetSession and ListSessions give it: state and delete time set, runs left
// out when `with_runs` is false.
v1::Session ToProto(const RecordedSession& session, bool with_runs);

// `record` as the API's Validation, without its report.
v1::Validation ToProto(const ValidationRecord& record);

}  // namespace wasserwarp::service

#endif  // WASSERWARP_SERVER_RPC_VALIDATION_EVIDENCE_H_
