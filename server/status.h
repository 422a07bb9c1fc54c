// The one place where the service turns an absl::Status into the status a
// client sees.

#ifndef WASSERWARP_SERVER_STATUS_H_
#define WASSERWARP_SERVER_STATUS_H_

#include <grpcpp/support/status.h>

#include "absl/status/status.h"

namespace wasserwarp::service {

// Same code (Abseil and gRPC share google.rpc.Code), same message.
grpc::Status ToGrpcStatus(const absl::Status& status);

}  // namespace wasserwarp::service

#endif  // WASSERWARP_SERVER_STATUS_H_
