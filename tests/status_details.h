// The google.rpc details of a gRPC status, decoded as a client of the service decodes them.

#ifndef WASSERWARP_TESTS_STATUS_DETAILS_H_
#define WASSERWARP_TESTS_STATUS_DETAILS_H_

#include <grpcpp/support/status.h>

#include <optional>

#include "google/protobuf/any.pb.h"
#include "google/rpc/error_details.pb.h"
#include "google/rpc/status.pb.h"

namespace wasserwarp::test_support {

// The first detail of type `Detail` in `status`'s grpc-status-details-bin; none when it has
// none, or no details at all.
template <typename Detail>
std::optional<Detail> FindDetail(const grpc::Status& status) {
  google::rpc::Status rich;
  if (!rich.ParseFromString(status.error_details())) return std::nullopt;
  for (const google::protobuf::Any& any : rich.details()) {
    Detail detail;
    if (any.UnpackTo(&detail)) return detail;
  }
  return std::nullopt;
}

}  // namespace wasserwarp::test_support

#endif  // WASSERWARP_TESTS_STATUS_DETAILS_H_
