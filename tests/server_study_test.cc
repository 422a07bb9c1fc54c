// Parameter studies through the in-process service: the runs' parameters and trials from the
// upload, the result equal to the core's on the same runs, its progress, and each refusal with
// its field.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "random_runs.h"
#include "server_test_util.h"
#include "wasserwarp/identification.h"
#include "wasserwarp/parameter_study.h"
#include "wasserwarp/sensitivity.h"
#include "wasserwarp/study_costs.h"
#include "wasserwarp/study_json.h"
#include "wire/study.h"

namespace wasserwarp::service::testing {
namespace {

using test_data::RandomWalkRuns;
using ::testing::HasSubstr;

constexpr char kSession[] = "sessions/study";

class StudyTest : public ServerTest {
 protected:
  // Points a = 1, 2, 3 with trials t0..t2, against 5 references.
  void SetUp() override {
    ServerTest::SetUp();
    simulation_ = RandomWalkRuns("sim", 9, 30, 60, 1, 21);
    reference_ = RandomWalkRuns("ref", 5, 30, 60, 1, 22);
    ASSERT_TRUE(CreateSession("study").ok());
  }

  grpc::Status UploadStudy(bool with_parameters) {
    std::vector<v1::UploadSeriesRequest> messages;
    for (size_t k = 0; k < simulation_.size(); ++k) {
      const size_t first = messages.size();
      AppendRun(kSession, v1::ROLE_SIMULATION, simulation_[k], messages);
      if (!with_parameters) continue;
      v1::SeriesHeader* header = messages[first].mutable_header();
      (*header->mutable_parameters())["a"] = 1.0 + static_cast<double>(k / 3);
      header->set_trial(absl::StrCat("t", k % 3));
    }
    for (const Series& run : reference_) AppendRun(kSession, v1::ROLE_REFERENCE, run, messages);
    return UploadMessages(messages);
  }

  absl::StatusOr<StudyDesign> Design() const {
    const std::string csv =
        "run_id,a,trial\nsim0,1,t0\nsim1,1,t1\nsim2,1,t2\nsim3,2,t0\nsim4,2,t1\nsim5,2,t2\n"
        "sim6,3,t0\nsim7,3,t1\nsim8,3,t2\n";
    absl::StatusOr<ParameterTable> table = ParseParameterCsv(csv, "params.csv");
    if (!table.ok()) return table.status();
    std::vector<std::string> ids;
    for (const Series& run : simulation_) ids.push_back(run.id);
    return DesignOf(*table, ids);
  }

  std::vector<Series> simulation_;
  std::vector<Series> reference_;
};

TEST_F(StudyTest, IdentificationEqualsTheCoresOnTheUploadedParameters) {
  ASSERT_TRUE(UploadStudy(true).ok());
  IdentifyOptions options;
  options.study.resamples = 49;
  options.study.splits = 49;
  options.nominal = std::map<std::string, double>{{"a", 2.0}};
  v1::ValidateRequest request = ValidateRequestFor(kSession);
  *request.mutable_study() = wire::StudyParametersOf(options, {});
  std::vector<v1::ValidateResponse> events;
  const grpc::Status status = ValidateAll(request, events);
  ASSERT_TRUE(status.ok()) << status.error_message();
  absl::StatusOr<v1::ValidationReport> served = AssembledReport(events);
  ASSERT_TRUE(served.ok()) << served.status();
  ASSERT_TRUE(served->has_identification());

  absl::StatusOr<StudyDesign> design = Design();
  ASSERT_TRUE(design.ok()) << design.status();
  absl::StatusOr<StudyCosts> costs = ComputeStudyCosts(simulation_, reference_, {});
  ASSERT_TRUE(costs.ok());
  absl::StatusOr<IdentificationReport> embedded = Identify(*design, *costs, options);
  ASSERT_TRUE(embedded.ok()) << embedded.status();
  IdentificationReport from_server = wire::IdentificationFromProto(served->identification());
  from_server.summary.seconds = embedded->summary.seconds = 0.0;
  EXPECT_EQ(IdentificationToJson(from_server), IdentificationToJson(*embedded));
  EXPECT_EQ(served->simulation_size(), 9);

  // Progress is rate-limited, so a study this small may show few phases or none, but in order: the
  // simulated runs' matrix, the references' as the within-group one, then the resampling.
  std::vector<v1::Phase> phases;
  for (const v1::ValidateResponse& event : events) {
    if (event.has_progress() && (phases.empty() || phases.back() != event.progress().phase())) {
      phases.push_back(event.progress().phase());
    }
  }
  EXPECT_TRUE(std::is_sorted(phases.begin(), phases.end()));
}

TEST_F(StudyTest, SensitivityEqualsTheCores) {
  ASSERT_TRUE(UploadStudy(true).ok());
  SensitivityOptions options;
  options.study.resamples = 49;
  options.study.splits = 49;
  options.nominal = {{"a", 2.0}};
  v1::ValidateRequest request = ValidateRequestFor(kSession);
  *request.mutable_study() = wire::StudyParametersOf(options);
  std::vector<v1::ValidateResponse> events;
  ASSERT_TRUE(ValidateAll(request, events).ok());
  absl::StatusOr<v1::ValidationReport> served = AssembledReport(events);
  ASSERT_TRUE(served.ok() && served->has_sensitivity());
  absl::StatusOr<StudyDesign> design = Design();
  absl::StatusOr<StudyCosts> costs = ComputeStudyCosts(simulation_, reference_, {});
  ASSERT_TRUE(design.ok() && costs.ok());
  absl::StatusOr<SensitivityReport> embedded = AnalyseSensitivity(*design, *costs, options);
  ASSERT_TRUE(embedded.ok());
  SensitivityReport from_server = wire::SensitivityFromProto(served->sensitivity());
  from_server.summary.seconds = embedded->summary.seconds = 0.0;
  EXPECT_EQ(SensitivityToJson(from_server), SensitivityToJson(*embedded));
}

TEST_F(StudyTest, AStudyIsAValidationResourceToo) {
  ASSERT_TRUE(UploadStudy(true).ok());
  SensitivityOptions options;
  options.study.resamples = 29;
  options.nominal = {{"a", 2.0}};
  v1::ValidateRequest request = ValidateRequestFor(kSession);
  *request.mutable_study() = wire::StudyParametersOf(options);
  v1::CreateValidationRequest create;
  *create.mutable_request() = request;
  v1::CreateValidationResponse created;
  {
    grpc::ClientContext context;
    const grpc::Status status = stub_->CreateValidation(&context, create, &created);
    ASSERT_TRUE(status.ok()) << status.error_message();
  }
  v1::WatchValidationRequest watch;
  watch.set_name(created.validation().name());
  grpc::ClientContext context;
  std::unique_ptr<grpc::ClientReader<v1::WatchValidationResponse>> reader =
      stub_->WatchValidation(&context, watch);
  v1::WatchValidationResponse event;
  std::optional<v1::Validation> ended;
  while (reader->Read(&event)) {
    if (event.has_validation()) ended = event.validation();
  }
  ASSERT_TRUE(reader->Finish().ok());
  ASSERT_TRUE(ended.has_value());
  EXPECT_EQ(ended->state(), v1::VALIDATION_STATE_SUCCEEDED);
  ASSERT_TRUE(ended->report().has_sensitivity());
  EXPECT_EQ(ended->report().sensitivity().parameters(0).name(), "a");

  v1::GetValidationRequest get;
  get.set_name(created.validation().name());
  v1::GetValidationResponse got;
  grpc::ClientContext get_context;
  ASSERT_TRUE(stub_->GetValidation(&get_context, get, &got).ok());
  EXPECT_EQ(got.validation().report().sensitivity().SerializeAsString(),
            ended->report().sensitivity().SerializeAsString());
}

TEST_F(StudyTest, CancellingStopsTheBootstrap) {
  ASSERT_TRUE(UploadStudy(true).ok());
  IdentifyOptions options;
  options.study.resamples = 1000000;  // the most allowed: minutes of transport solves
  options.study.splits = 9;
  v1::ValidateRequest request = ValidateRequestFor(kSession);
  *request.mutable_study() = wire::StudyParametersOf(options, {});
  grpc::ClientContext context;
  std::unique_ptr<grpc::ClientReader<v1::ValidateResponse>> reader =
      stub_->Validate(&context, request);
  v1::ValidateResponse event;
  bool resampling = false;
  while (!resampling && reader->Read(&event)) {
    resampling = event.has_progress() && event.progress().phase() == v1::PHASE_RESAMPLING &&
                 event.progress().resamples_done() > 0;
  }
  ASSERT_TRUE(resampling) << "the stream ended before the bootstrap";
  EXPECT_EQ(event.progress().resamples_total(), int64_t{1000000} * 3);
  context.TryCancel();
  while (reader->Read(&event)) {
  }
  EXPECT_EQ(reader->Finish().error_code(), grpc::StatusCode::CANCELLED);
  const std::optional<JobStats> job =
      jobs_.WaitFor([](const JobStats& stats) { return stats.label.starts_with("Validate"); });
  ASSERT_TRUE(job.has_value()) << "the job did not end within 5 s of the cancellation";
  EXPECT_TRUE(absl::IsCancelled(job->outcome.status)) << job->outcome.status;
}

TEST_F(StudyTest, RefusalsNameTheirField) {
  ASSERT_TRUE(UploadStudy(false).ok());
  SensitivityOptions options;
  options.nominal = {{"a", 2.0}};
  v1::ValidateRequest request = ValidateRequestFor(kSession);
  *request.mutable_study() = wire::StudyParametersOf(options);
  std::vector<v1::ValidateResponse> events;
  grpc::Status status = ValidateAll(request, events);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_THAT(status.error_message(),
              HasSubstr("simulated run \"sim0\" carries no parameters; a study needs every run's"));

  request.mutable_study()->set_resamples(0);
  events.clear();
  status = ValidateAll(request, events);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(status.error_message(), HasSubstr("study.resamples: must be from 1 to"));

  request.mutable_study()->clear_resamples();
  request.mutable_verdict()->set_permutations(9);
  events.clear();
  status = ValidateAll(request, events);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(status.error_message(), HasSubstr("study: goes without a verdict"));

  request.clear_verdict();
  request.mutable_study()->clear_sensitivity();
  events.clear();
  status = ValidateAll(request, events);
  EXPECT_THAT(status.error_message(), HasSubstr("study.analysis: set sensitivity or identify"));
}

}  // namespace
}  // namespace wasserwarp::service::testing
