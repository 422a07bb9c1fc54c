// The status a call ended with as its client sees it. When a call's deadline passes, the call is
// cancelled and the handler, told only that, ends it as CANCELLED; the client gets
// DEADLINE_EXCEEDED. Logs and metrics report the latter, so that expired deadlines are not
// mistaken for clients that gave up.

#ifndef WASSERWARP_SERVER_OPS_DEADLINE_STATUS_H_
#define WASSERWARP_SERVER_OPS_DEADLINE_STATUS_H_

#include <grpcpp/support/status.h>

#include "absl/time/clock.h"
#include "absl/time/time.h"

namespace wasserwarp::service {

// DEADLINE_EXCEEDED, with the same message, for a CANCELLED `status` of a call that started at
// `start` with `deadline` (the server's), when at `now` that deadline has passed or is about
// to: the client's own deadline comes first and it cancels the call a little before the
// server's (see the .cc). `status` otherwise.
grpc::Status StatusSeenByClient(const grpc::Status& status, absl::Time start, absl::Time deadline,
                                absl::Time now = absl::Now());

}  // namespace wasserwarp::service

#endif  // WASSERWARP_SERVER_OPS_DEADLINE_STATUS_H_
