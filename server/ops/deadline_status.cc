#include "ops/deadline_status.h"

namespace wasserwarp::service {
namespace {

// The server's deadline is the client's timeout, rounded up to three significant figures for
// the grpc-timeout header (under 1% more), counted from when the call arrived (later than the
// client counted from). So the client's deadline passes first, and its cancellation reaches
// the server before the server's deadline: by up to 1% of the timeout, and the time the
// cancellation takes to arrive.
constexpr double kTimeoutRounding = 0.01;
constexpr absl::Duration kCancellationTransit = absl::Milliseconds(50);

}  // namespace

grpc::Status StatusSeenByClient(const grpc::Status& status, absl::Time start, absl::Time deadline,
                                absl::Time now) {
  if (status.error_code() != grpc::StatusCode::CANCELLED) return status;
  const absl::Duration early = kTimeoutRounding * (deadline - start) + kCancellationTransit;
  if (now < deadline - early) return status;
  return grpc::Status(grpc::StatusCode::DEADLINE_EXCEEDED, status.error_message());
}

}  // namespace wasserwarp::service
