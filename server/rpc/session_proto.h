// Sessions and runs (sessions/session_record.h) rendered as the API's Session and RunInfo, and
// run roles in both directions.

#ifndef WASSERWARP_SERVER_RPC_SESSION_PROTO_H_
#define WASSERWARP_SERVER_RPC_SESSION_PROTO_H_

#include <optional>

#include "sessions/session_record.h"
#include "wasserwarp/run_role.h"
#include "wasserwarp/v1/validation.pb.h"

namespace wasserwarp::service {

// `with_runs` false leaves the runs out, as ListSessions does; their counts stay.
v1::Session ToProto(const SessionRecord& session, bool with_runs);
v1::RunInfo ToProto(const RunRecord& run);

v1::Role ToProto(RunRole role);
// Null for ROLE_UNSPECIFIED and values this build does not know.
std::optional<RunRole> RoleFromProto(v1::Role role);

}  // namespace wasserwarp::service

#endif  // WASSERWARP_SERVER_RPC_SESSION_PROTO_H_
