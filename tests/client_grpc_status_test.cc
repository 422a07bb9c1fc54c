// gRPC's status becomes absl::Status with the same code and message; an unreachable server
// is named.

#include <gtest/gtest.h>

#include "google/rpc/error_details.pb.h"
#include "google/rpc/status.pb.h"
#include "wasserwarp/field_error.h"
#include "wire/status_from_grpc.h"

namespace wasserwarp::client {
namespace {

TEST(GrpcStatusTest, CodeAndMessageCarryOver) {
  EXPECT_TRUE(wire::FromGrpcStatus(grpc::Status::OK, "h:1").ok());
  for (const grpc::StatusCode code :
       {grpc::StatusCode::INVALID_ARGUMENT, grpc::StatusCode::NOT_FOUND,
        grpc::StatusCode::ALREADY_EXISTS, grpc::StatusCode::FAILED_PRECONDITION,
        grpc::StatusCode::OUT_OF_RANGE, grpc::StatusCode::RESOURCE_EXHAUSTED,
        grpc::StatusCode::DEADLINE_EXCEEDED, grpc::StatusCode::CANCELLED,
        grpc::StatusCode::INTERNAL}) {
    const absl::Status status =
        wire::FromGrpcStatus(grpc::Status(code, "run r7, sample 12"), "h:1");
    EXPECT_EQ(static_cast<int>(status.code()), static_cast<int>(code));
    EXPECT_EQ(status.message(), "run r7, sample 12");
  }
}

TEST(GrpcStatusTest, UnavailableNamesTheServer) {
  const absl::Status status = wire::FromGrpcStatus(
      grpc::Status(grpc::StatusCode::UNAVAILABLE, "failed to connect to all addresses"),
      "bench-host:50051");
  EXPECT_EQ(status.code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ(status.message(),
            "cannot reach server bench-host:50051: failed to connect to all addresses");
}

TEST(GrpcStatusTest, DetailsComeBackAsFieldLimitAndPayloads) {
  google::rpc::Status rich;
  rich.set_code(grpc::StatusCode::RESOURCE_EXHAUSTED);
  rich.set_message("parameters.resample_rate: too many samples");
  google::rpc::BadRequest bad_request;
  bad_request.add_field_violations()->set_field("parameters.resample_rate");
  rich.add_details()->PackFrom(bad_request);
  google::rpc::QuotaFailure quota;
  quota.add_violations()->set_subject("--max_samples_per_run");
  rich.add_details()->PackFrom(quota);
  const absl::Status status = wire::FromGrpcStatus(
      grpc::Status(grpc::StatusCode::RESOURCE_EXHAUSTED, rich.message(), rich.SerializeAsString()),
      "h:1");
  EXPECT_EQ(status.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(status.message(), "parameters.resample_rate: too many samples");
  EXPECT_EQ(ErrorField(status), "parameters.resample_rate");
  EXPECT_EQ(ErrorLimit(status), "--max_samples_per_run");
  EXPECT_TRUE(status.GetPayload("type.googleapis.com/google.rpc.QuotaFailure").has_value());
}

}  // namespace
}  // namespace wasserwarp::client
