// When a cancelled call counts as one whose deadline expired (server/deadline_status.h).

#include <gtest/gtest.h>

#include "absl/time/time.h"
#include "ops/deadline_status.h"

namespace wasserwarp::service {
namespace {

const absl::Time kStart = absl::FromUnixSeconds(1700000000);
const grpc::Status kCancelled(grpc::StatusCode::CANCELLED, "cost matrix computation cancelled");

TEST(StatusSeenByClientTest, CancelledAfterTheDeadlineIsDeadlineExceeded) {
  const absl::Time deadline = kStart + absl::Seconds(2);
  const grpc::Status seen = StatusSeenByClient(kCancelled, kStart, deadline, deadline);
  EXPECT_EQ(seen.error_code(), grpc::StatusCode::DEADLINE_EXCEEDED);
  EXPECT_EQ(seen.error_message(), kCancelled.error_message());
  EXPECT_EQ(
      StatusSeenByClient(kCancelled, kStart, deadline, deadline + absl::Seconds(1)).error_code(),
      grpc::StatusCode::DEADLINE_EXCEEDED);
}

// The client's deadline passes first: its cancellation arrives a little before the server's.
TEST(StatusSeenByClientTest, CancelledJustBeforeTheServersDeadlineIsDeadlineExceeded) {
  const absl::Time deadline = kStart + absl::Seconds(60);
  EXPECT_EQ(StatusSeenByClient(kCancelled, kStart, deadline, deadline - absl::Milliseconds(30))
                .error_code(),
            grpc::StatusCode::DEADLINE_EXCEEDED);
  // The timeout header rounds 60 s up by as much as 1%.
  EXPECT_EQ(StatusSeenByClient(kCancelled, kStart, deadline, deadline - absl::Milliseconds(500))
                .error_code(),
            grpc::StatusCode::DEADLINE_EXCEEDED);
}

TEST(StatusSeenByClientTest, CancelledWellBeforeTheDeadlineStaysCancelled) {
  const absl::Time deadline = kStart + absl::Seconds(60);
  EXPECT_EQ(
      StatusSeenByClient(kCancelled, kStart, deadline, kStart + absl::Seconds(30)).error_code(),
      grpc::StatusCode::CANCELLED);
  const absl::Time no_deadline = kStart + absl::Hours(24 * 365 * 200);
  EXPECT_EQ(
      StatusSeenByClient(kCancelled, kStart, no_deadline, kStart + absl::Hours(1)).error_code(),
      grpc::StatusCode::CANCELLED);
}

TEST(StatusSeenByClientTest, OtherStatusesStayAsTheyAre) {
  const absl::Time deadline = kStart + absl::Seconds(1);
  const absl::Time after = deadline + absl::Seconds(1);
  EXPECT_TRUE(StatusSeenByClient(grpc::Status::OK, kStart, deadline, after).ok());
  EXPECT_EQ(StatusSeenByClient(grpc::Status(grpc::StatusCode::NOT_FOUND, "no session"), kStart,
                               deadline, after)
                .error_code(),
            grpc::StatusCode::NOT_FOUND);
}

}  // namespace
}  // namespace wasserwarp::service
