// Validations as stored resources through the in-process service: created QUEUED, watched to
// the same report Validate gives, listed newest first, cancelled, and kept across a restart of
// a server with --data_dir.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "random_runs.h"
#include "scratch_dir.h"
#include "server_test_util.h"
#include "wasserwarp/report_json.h"
#include "wire/convert.h"

namespace wasserwarp::service::testing {
namespace {

using test_data::RandomWalkRuns;
using ::testing::HasSubstr;

constexpr char kSession[] = "sessions/bench";

class ValidationsTest : public ServerTest {
 protected:
  void UploadSmallSession() {
    ASSERT_TRUE(CreateSession("bench").ok());
    ASSERT_TRUE(Upload(kSession, RandomWalkRuns("sim", 4, 40, 120, 2, 11),
                       RandomWalkRuns("ref", 3, 40, 120, 2, 12))
                    .ok());
  }
  void UploadBigSession() {
    ASSERT_TRUE(CreateSession("bench").ok());
    ASSERT_TRUE(Upload(kSession, RandomWalkRuns("sim", 24, 6000, 6000, 1, 1),
                       RandomWalkRuns("ref", 24, 6000, 6000, 1, 2))
                    .ok());
  }

  absl::StatusOr<v1::Validation> Create(const v1::ValidateRequest& request) {
    grpc::ClientContext context;
    v1::CreateValidationRequest create;
    *create.mutable_request() = request;
    v1::CreateValidationResponse response;
    const grpc::Status status = stub_->CreateValidation(&context, create, &response);
    if (!status.ok()) {
      return absl::Status(static_cast<absl::StatusCode>(status.error_code()),
                          status.error_message());
    }
    return response.validation();
  }

  absl::StatusOr<v1::Validation> Get(const std::string& name) {
    grpc::ClientContext context;
    v1::GetValidationRequest request;
    request.set_name(name);
    v1::GetValidationResponse response;
    const grpc::Status status = stub_->GetValidation(&context, request, &response);
    if (!status.ok()) {
      return absl::Status(static_cast<absl::StatusCode>(status.error_code()),
                          status.error_message());
    }
    return response.validation();
  }

  // Every event of a watch, and its status.
  grpc::Status Watch(const std::string& name, std::vector<v1::WatchValidationResponse>& events) {
    grpc::ClientContext context;
    v1::WatchValidationRequest request;
    request.set_name(name);
    auto reader = stub_->WatchValidation(&context, request);
    v1::WatchValidationResponse event;
    while (reader->Read(&event)) events.push_back(event);
    return reader->Finish();
  }

  // The validation a watch ended with and its report with every part.
  static absl::StatusOr<v1::ValidationReport> WatchedReport(
      const std::vector<v1::WatchValidationResponse>& events) {
    wire::ReportAssembler assembler;
    for (const v1::WatchValidationResponse& event : events) {
      absl::Status added = event.has_validation() ? assembler.AddReport(event.validation().report())
                           : event.has_chunk()    ? assembler.AddChunk(event.chunk())
                                                  : absl::OkStatus();
      if (!added.ok()) return added;
    }
    return assembler.Finish();
  }
};

std::string ComparableJson(v1::ValidationReport proto) {
  absl::StatusOr<ValidationReport> report = wire::ReportFromProto(proto);
  if (!report.ok()) return report.status().ToString();
  report->seconds = 0.0;
  return ReportToJson(*report);
}

TEST_F(ValidationsTest, WatchingACreatedValidationGivesTheReportValidateGives) {
  UploadSmallSession();
  v1::ValidateRequest request = ValidateRequestFor(kSession);
  request.set_include_cost_matrix(true);
  request.mutable_parameters()->set_nu(0.05);
  request.mutable_verdict()->set_permutations(99);

  absl::StatusOr<v1::Validation> created = Create(request);
  ASSERT_TRUE(created.ok()) << created.status();
  EXPECT_THAT(created->name(), ::testing::StartsWith("sessions/bench/validations/"));
  EXPECT_EQ(created->state(), v1::VALIDATION_STATE_QUEUED);
  EXPECT_EQ(created->runs_size(), 7);
  EXPECT_EQ(created->runs(0).checksum().size(), 16u);
  EXPECT_DOUBLE_EQ(created->effective_parameters().nu(), 0.05);

  std::vector<v1::WatchValidationResponse> events;
  ASSERT_TRUE(Watch(created->name(), events).ok());
  ASSERT_FALSE(events.empty());
  const v1::Validation* ended = nullptr;
  for (const v1::WatchValidationResponse& event : events) {
    if (event.has_validation()) ended = &event.validation();
  }
  ASSERT_NE(ended, nullptr);
  EXPECT_EQ(ended->state(), v1::VALIDATION_STATE_SUCCEEDED);
  EXPECT_EQ(ended->attempts(), 1);
  EXPECT_TRUE(ended->has_start_time());
  EXPECT_TRUE(ended->has_end_time());
  absl::StatusOr<v1::ValidationReport> watched = WatchedReport(events);
  ASSERT_TRUE(watched.ok()) << watched.status();
  EXPECT_EQ(watched->cost_matrix().values_size(), 4 * 3);

  std::vector<v1::ValidateResponse> validate_events;
  ASSERT_TRUE(ValidateAll(request, validate_events).ok());
  absl::StatusOr<v1::ValidationReport> validated = AssembledReport(validate_events);
  ASSERT_TRUE(validated.ok()) << validated.status();
  EXPECT_EQ(ComparableJson(*watched), ComparableJson(*validated));

  // A second watch, long after the end, gives the same.
  std::vector<v1::WatchValidationResponse> again;
  ASSERT_TRUE(Watch(created->name(), again).ok());
  absl::StatusOr<v1::ValidationReport> rewatched = WatchedReport(again);
  ASSERT_TRUE(rewatched.ok());
  EXPECT_EQ(ComparableJson(*rewatched), ComparableJson(*watched));

  // GetValidation announces the matrix without its values.
  absl::StatusOr<v1::Validation> got = Get(created->name());
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(got->report().cost_matrix().rows(), 4);
  EXPECT_EQ(got->report().cost_matrix().values_size(), 0);
  EXPECT_DOUBLE_EQ(got->report().distance(), watched->distance());
}

TEST_F(ValidationsTest, ListsNewestFirstAndRefusesWhatValidateRefuses) {
  UploadSmallSession();
  std::vector<std::string> names;
  for (int i = 0; i < 3; ++i) {
    absl::StatusOr<v1::Validation> created = Create(ValidateRequestFor(kSession));
    ASSERT_TRUE(created.ok());
    names.push_back(created->name());
    std::vector<v1::WatchValidationResponse> events;
    ASSERT_TRUE(Watch(created->name(), events).ok());
  }
  grpc::ClientContext context;
  v1::ListValidationsRequest list;
  list.set_parent(kSession);
  list.set_page_size(2);
  v1::ListValidationsResponse page;
  ASSERT_TRUE(stub_->ListValidations(&context, list, &page).ok());
  ASSERT_EQ(page.validations_size(), 2);
  EXPECT_EQ(page.validations(0).name(), names[2]);
  EXPECT_EQ(page.validations(1).name(), names[1]);
  EXPECT_FALSE(page.validations(0).has_report());
  ASSERT_FALSE(page.next_page_token().empty());
  grpc::ClientContext next_context;
  list.set_page_token(page.next_page_token());
  v1::ListValidationsResponse last;
  ASSERT_TRUE(stub_->ListValidations(&next_context, list, &last).ok());
  ASSERT_EQ(last.validations_size(), 1);
  EXPECT_EQ(last.validations(0).name(), names[0]);
  EXPECT_TRUE(last.next_page_token().empty());

  v1::ValidateRequest bad = ValidateRequestFor(kSession);
  bad.mutable_parameters()->set_nu(-1);
  absl::StatusOr<v1::Validation> refused = Create(bad);
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(refused.status().message(), HasSubstr("nu"));
  EXPECT_TRUE(absl::IsNotFound(Get("sessions/bench/validations/0123456789abcdef").status()));
  EXPECT_TRUE(absl::IsNotFound(Get("sessions/unknown/validations/x").status()));
  EXPECT_TRUE(absl::IsInvalidArgument(Get("sessions/bench/x").status()));
}

TEST_F(ValidationsTest, CancellingEndsAQueuedValidationAtOnceAndARunningOneSoon) {
  ServerConfig config = TestConfig();
  config.jobs.max_concurrent_jobs = 1;
  StartServer(config);
  UploadBigSession();
  absl::StatusOr<v1::Validation> running = Create(LongValidateRequestFor(kSession));
  absl::StatusOr<v1::Validation> queued = Create(LongValidateRequestFor(kSession));
  ASSERT_TRUE(running.ok() && queued.ok());

  grpc::ClientContext context;
  v1::CancelValidationRequest cancel;
  cancel.set_name(queued->name());
  v1::CancelValidationResponse cancelled;
  ASSERT_TRUE(stub_->CancelValidation(&context, cancel, &cancelled).ok());
  EXPECT_EQ(cancelled.validation().state(), v1::VALIDATION_STATE_CANCELLED);
  EXPECT_EQ(cancelled.validation().error().code(), grpc::StatusCode::CANCELLED);

  grpc::ClientContext running_context;
  cancel.set_name(running->name());
  ASSERT_TRUE(stub_->CancelValidation(&running_context, cancel, &cancelled).ok());
  std::vector<v1::WatchValidationResponse> events;
  ASSERT_TRUE(Watch(running->name(), events).ok());
  ASSERT_TRUE(events.back().has_validation());
  EXPECT_EQ(events.back().validation().state(), v1::VALIDATION_STATE_CANCELLED);
  const std::optional<JobStats> job =
      jobs_.WaitFor([](const JobStats& stats) { return stats.label.starts_with("Validate"); });
  ASSERT_TRUE(job.has_value());
  EXPECT_LT(job->outcome.cells_done, job->outcome.cells_total / 2);
}

TEST_F(ValidationsTest, AServerWithADataDirKeepsValidationsAndReportsAcrossARestart) {
  test_support::ScratchDir dir("validations");
  ServerConfig config = TestConfig();
  config.data_dir = dir.root().string();
  StartServer(config);
  UploadSmallSession();
  v1::ValidateRequest request = ValidateRequestFor(kSession);
  request.set_include_html_report(true);
  absl::StatusOr<v1::Validation> created = Create(request);
  ASSERT_TRUE(created.ok());
  std::vector<v1::WatchValidationResponse> before;
  ASSERT_TRUE(Watch(created->name(), before).ok());
  absl::StatusOr<v1::ValidationReport> first = WatchedReport(before);
  ASSERT_TRUE(first.ok());

  server_->Shutdown(absl::Seconds(1));
  StartServer(config);
  absl::StatusOr<v1::Validation> kept = Get(created->name());
  ASSERT_TRUE(kept.ok()) << kept.status();
  EXPECT_EQ(kept->state(), v1::VALIDATION_STATE_SUCCEEDED);
  std::vector<v1::WatchValidationResponse> after;
  ASSERT_TRUE(Watch(created->name(), after).ok());
  absl::StatusOr<v1::ValidationReport> second = WatchedReport(after);
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(second->html_report(), first->html_report());
  EXPECT_GT(second->html_report().size(), 1000u);
  EXPECT_EQ(ComparableJson(*second), ComparableJson(*first));
}

}  // namespace
}  // namespace wasserwarp::service::testing
