// A report whose matrices exceed gRPC's default 4 MiB receive limit reaches a client that
// keeps the default: the real server sends the report, then its matrices in chunks.

#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "e2e_process.h"
#include "random_runs.h"
#include "validation_client.h"
#include "wasserwarp/report_json.h"
#include "wasserwarp/v1/validation.grpc.pb.h"
#include "wasserwarp/validation.h"
#include "wire/convert.h"
#include "wire/report_chunks.h"
#include "wire/resource_names.h"

namespace wasserwarp {
namespace {

constexpr size_t kDefaultMaxReceiveBytes = 4 << 20;
constexpr char kSessionId[] = "large";

// The report's JSON with its wall time zeroed, for exact comparison.
std::string ComparableJson(ValidationReport report) {
  report.seconds = 0.0;
  return ReportToJson(report);
}

class E2eLargeReportTest : public e2e::ServerTest {
 protected:
  // 370 + 370 runs of 5 samples: 370^2 + 740^2 TWEDs, 5.5 MB of matrices, in about a second.
  void SetUp() override {
    e2e::ServerTest::SetUp();
    absl::StatusOr<std::unique_ptr<client::ValidationClient>> connected =
        client::ValidationClient::Connect(server_->address());
    ASSERT_TRUE(connected.ok()) << connected.status();
    client_ = *std::move(connected);
    ASSERT_TRUE(client_->CreateSession(kSessionId, v1::Session()).ok());
    ASSERT_TRUE(client_->UploadRuns(kSessionId, sim_, ref_).ok());
    request_.set_session(wire::SessionName(kSessionId));
    request_.set_include_cost_matrix(true);
    request_.set_include_pooled_cost_matrix(true);
    request_.mutable_verdict()->set_permutations(1);
  }

  ValidationReport ExpectedReport() const {
    ValidationOptions options;
    options.keep_cost_matrix = true;
    options.keep_pooled_cost_matrix = true;
    options.verdict = wire::VerdictOptionsFromProto(request_.verdict());
    absl::StatusOr<ValidationReport> expected = Validate(sim_, ref_, options);
    EXPECT_TRUE(expected.ok()) << expected.status();
    return expected.ok() ? *std::move(expected) : ValidationReport();
  }

  const std::vector<Series> sim_ = test_data::RandomWalkRuns("sim", 370, 5, 5, 1, 41);
  const std::vector<Series> ref_ = test_data::RandomWalkRuns("ref", 370, 5, 5, 1, 42);
  std::unique_ptr<client::ValidationClient> client_;
  v1::ValidateRequest request_;
};

TEST_F(E2eLargeReportTest, ADefaultChannelReceivesTheMatricesInChunks) {
  std::shared_ptr<grpc::Channel> channel =
      grpc::CreateChannel(server_->address(), grpc::InsecureChannelCredentials());
  std::unique_ptr<v1::ValidationService::Stub> stub = v1::ValidationService::NewStub(channel);
  grpc::ClientContext context;
  std::unique_ptr<grpc::ClientReader<v1::ValidateResponse>> reader =
      stub->Validate(&context, request_);
  wire::ReportAssembler assembler;
  v1::ValidateResponse event;
  size_t largest_message = 0;
  int chunks = 0;
  while (reader->Read(&event)) {
    largest_message = std::max(largest_message, event.ByteSizeLong());
    if (event.has_report()) {
      ASSERT_TRUE(assembler.AddReport(event.report()).ok());
    } else if (event.has_chunk()) {
      ++chunks;
      absl::Status added = assembler.AddChunk(event.chunk());
      ASSERT_TRUE(added.ok()) << added;
    }
  }
  const grpc::Status status = reader->Finish();
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_LE(largest_message, wire::kReportChunkBytes + 1024);
  EXPECT_GE(chunks, 6);

  absl::StatusOr<v1::ValidationReport> assembled = assembler.Finish();
  ASSERT_TRUE(assembled.ok()) << assembled.status();
  EXPECT_GT(
      assembled->cost_matrix().ByteSizeLong() + assembled->pooled_cost_matrix().ByteSizeLong(),
      kDefaultMaxReceiveBytes);
  absl::StatusOr<ValidationReport> served = wire::ReportFromProto(*assembled);
  ASSERT_TRUE(served.ok()) << served.status();
  EXPECT_EQ(ComparableJson(*served), ComparableJson(ExpectedReport()));
}

TEST_F(E2eLargeReportTest, TheClientLibraryReassemblesTheReport) {
  absl::StatusOr<ValidationReport> served = client_->Validate(kSessionId, request_);
  ASSERT_TRUE(served.ok()) << served.status();
  ASSERT_TRUE(served->pooled_cost_matrix.has_value());
  EXPECT_EQ(served->pooled_cost_matrix->values.size(), 740u * 740u);
  EXPECT_EQ(ComparableJson(*served), ComparableJson(ExpectedReport()));
}

}  // namespace
}  // namespace wasserwarp
