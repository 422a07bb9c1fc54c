// Hostile but valid requests against the real server binary under a memory limit, as a
// container would hold it: each is refused with its code before any of its work starts (the
// resampled runs, the DP cells, the matrices), its details name the field and the limit, and
// the server then serves a normal validation as if nothing had happened.

#include <gmock/gmock.h>
#include <grpcpp/create_channel.h>
#include <grpcpp/security/credentials.h>
#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "e2e_clients.h"
#include "e2e_process.h"
#include "random_runs.h"
#include "sanitized.h"
#include "scratch_dir.h"
#include "status_details.h"
#include "validation_client.h"
#include "wire/convert.h"

namespace wasserwarp {
namespace {

using ::testing::HasSubstr;

// 4 GiB, the shipped manifests' memory limit; none under a sanitizer, whose shadow memory no
// address-space limit fits.
constexpr uint64_t kAddressSpaceKib = test_support::kSanitized ? 0 : uint64_t{4} << 20;

// What the server is asked for, and what it must answer.
struct HostileRequest {
  std::string name;
  std::function<grpc::Status(v1::ValidationService::Stub&)> call;
  grpc::StatusCode code;
  std::string field;  // of the BadRequest
  std::string limit;  // of the QuotaFailure; empty: none
};

struct Details {
  std::string field;
  std::string limit;
};

Details Decode(const grpc::Status& status) {
  Details details;
  const std::optional<google::rpc::BadRequest> bad =
      test_support::FindDetail<google::rpc::BadRequest>(status);
  if (bad.has_value() && bad->field_violations_size() > 0) {
    details.field = bad->field_violations(0).field();
  }
  const std::optional<google::rpc::QuotaFailure> quota =
      test_support::FindDetail<google::rpc::QuotaFailure>(status);
  if (quota.has_value() && quota->violations_size() > 0) {
    details.limit = quota->violations(0).subject();
  }
  return details;
}

grpc::Status ValidateCall(v1::ValidationService::Stub& stub, const v1::ValidateRequest& request) {
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(60));
  std::unique_ptr<grpc::ClientReader<v1::ValidateResponse>> reader =
      stub.Validate(&context, request);
  v1::ValidateResponse event;
  while (reader->Read(&event)) {
  }
  return reader->Finish();
}

v1::ValidateRequest Resampled(double rate) {
  v1::ValidateRequest request;
  request.set_session("sessions/small");
  request.mutable_parameters()->set_resample_rate(rate);
  return request;
}

class HostileRequestsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // Two job threads make the sizes the same on every machine; 1e11 cells keep the test's
    // refusals at sizes it can send quickly.
    absl::StatusOr<std::unique_ptr<e2e::ServerProcess>> server = e2e::ServerProcess::Start(
        WASSERWARP_SERVER, scratch_.root().string(),
        {"--job_threads=2", "--max_job_cells=100000000000"}, kAddressSpaceKib);
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = *std::move(server);
    ASSERT_NO_FATAL_FAILURE(e2e::ConnectClients(server_->address(), client_, stub_));
  }

  void TearDown() override {
    if (server_ != nullptr) {
      EXPECT_EQ(server_->Stop(), 0) << server_->Log();
    }
  }

  const test_support::ScratchDir scratch_{"hostile_"};
  std::unique_ptr<e2e::ServerProcess> server_;
  std::unique_ptr<client::ValidationClient> client_;
  std::unique_ptr<v1::ValidationService::Stub> stub_;
};

TEST_F(HostileRequestsTest, EachIsRefusedWithItsCodeAndTheServerServesOnAfterwards) {
  // 11 runs, 6250 samples in all, about 5.7 s each: the session of the crash report.
  const std::vector<Series> simulation = test_data::RandomWalkRuns("sim", 6, 560, 580, 2, 11);
  const std::vector<Series> reference = test_data::RandomWalkRuns("ref", 5, 560, 580, 2, 12);
  ASSERT_TRUE(client_->CreateSession("small", {}).ok());
  ASSERT_TRUE(client_->UploadRuns("small", simulation, reference).ok());
  // 2000 + 2000 runs of 2 samples: the matrices, not the runs, are large.
  ASSERT_TRUE(client_->CreateSession("wide", {}).ok());
  ASSERT_TRUE(client_
                  ->UploadRuns("wide", test_data::RandomWalkRuns("sim", 2000, 2, 2, 1, 13),
                               test_data::RandomWalkRuns("ref", 2000, 2, 2, 1, 14))
                  .ok());
  const std::vector<Series> long_runs =
      test_data::RandomWalkRuns("long", 2, 400'000, 400'000, 1, 15);

  const std::vector<HostileRequest> table = {
      {"a resample rate of millions of Hz",
       [](auto& stub) { return ValidateCall(stub, Resampled(2.5e6)); },
       grpc::StatusCode::RESOURCE_EXHAUSTED, "parameters.resample_rate", "--max_samples_per_run"},
      {"a resample rate whose cost matrix takes 1e13 cells",
       [](auto& stub) { return ValidateCall(stub, Resampled(1e5)); },
       grpc::StatusCode::RESOURCE_EXHAUSTED, "parameters.resample_rate", "--max_job_cells"},
      {"a resample rate that is no rate",
       [](auto& stub) { return ValidateCall(stub, Resampled(-1)); },
       grpc::StatusCode::INVALID_ARGUMENT, "parameters.resample_rate", ""},
      {"more permutations than the test defines",
       [](auto& stub) {
         v1::ValidateRequest request = Resampled(100);
         request.mutable_verdict()->set_permutations(2'000'000);
         return ValidateCall(stub, request);
       },
       grpc::StatusCode::INVALID_ARGUMENT, "verdict.permutations", ""},
      {"window-less long runs",
       [&](auto& stub) {
         v1::ComputeTwedRequest request;
         *request.mutable_a() = wire::InlineFromSeries(long_runs[0]);
         *request.mutable_b() = wire::InlineFromSeries(long_runs[1]);
         grpc::ClientContext context;
         v1::ComputeTwedResponse response;
         return stub.ComputeTwed(&context, request, &response);
       },
       grpc::StatusCode::RESOURCE_EXHAUSTED, "a", "--max_job_cells"},
      {"every matrix and the page, at 2000 x 2000 runs",
       [](auto& stub) {
         v1::ValidateRequest request;
         request.set_session("sessions/wide");
         request.mutable_verdict()->set_permutations(99);
         request.set_include_cost_matrix(true);
         request.set_include_pooled_cost_matrix(true);
         request.set_include_html_report(true);
         return ValidateCall(stub, request);
       },
       grpc::StatusCode::RESOURCE_EXHAUSTED, "verdict", "--max_job_bytes"},
      {"an idle TTL past year 9999",
       [](auto& stub) {
         v1::CreateSessionRequest request;
         request.mutable_session()->mutable_idle_ttl()->set_seconds(315'576'000'000);
         grpc::ClientContext context;
         v1::CreateSessionResponse response;
         return stub.CreateSession(&context, request, &response);
       },
       grpc::StatusCode::INVALID_ARGUMENT, "session.idle_ttl", "--max_session_ttl"},
  };
  for (const HostileRequest& hostile : table) {
    SCOPED_TRACE(hostile.name);
    const grpc::Status status = hostile.call(*stub_);
    EXPECT_EQ(status.error_code(), hostile.code) << status.error_message();
    const Details details = Decode(status);
    EXPECT_EQ(details.field, hostile.field) << status.error_message();
    EXPECT_EQ(details.limit, hostile.limit) << status.error_message();
    if (!hostile.limit.empty()) {
      EXPECT_THAT(std::string(status.error_message()), HasSubstr(hostile.limit));
    }
  }

  absl::StatusOr<ValidationReport> report = client_->Validate("small", {}, false);
  ASSERT_TRUE(report.ok()) << report.status() << "\n" << server_->Log();
  EXPECT_EQ(report->simulation.size(), 6u);
  EXPECT_GT(report->distance, 0.0);
  absl::StatusOr<v1::Session> small = client_->GetSession("small");
  ASSERT_TRUE(small.ok()) << small.status();
  EXPECT_EQ(small->runs_size(), 11);
}

}  // namespace
}  // namespace wasserwarp
