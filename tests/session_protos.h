// A session store's records as the API shows them, so that store tests check
// what a client would see.

#ifndef WASSERWARP_TESTS_SESSION_PROTOS_H_
#define WASSERWARP_TESTS_SESSION_PROTOS_H_

#include <vector>

#include "absl/status/statusor.h"
#include "rpc/session_proto.h"
#include "wasserwarp/v1/validation.pb.h"

namespace wasserwarp::test_data {

// As GetSession shows it, with its runs.
inline absl::StatusOr<v1::Session> AsProto(const absl::StatusOr<service::SessionRecord>& session) {
  if (!session.ok()) return session.status();
  return service::ToProto(*session, /*with_runs=*/true);
}

// As ListSessions shows them, without their runs.
inline std::vector<v1::Session> AsProtos(const std::vector<service::SessionRecord>& sessions) {
  std::vector<v1::Session> protos;
  for (const service::SessionRecord& session : sessions) {
    protos.push_back(service::ToProto(session, /*with_runs=*/false));
  }
  return protos;
}

}  // namespace wasserwarp::test_data

#endif  // WASSERWARP_TESTS_SESSION_PROTOS_H_
