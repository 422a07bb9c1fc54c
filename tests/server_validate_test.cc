// Validate through the in-process service: results equal to the core's, progress,
// cancellation, deadlines, the job queue and shutdown, and the runs' sources by run id.
// Over 500 lines for one reason: every case shares one fixture's server and stream helpers, and
// splitting the file would copy them or move them to a header read by this file alone.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "google/rpc/error_details.pb.h"
#include "random_runs.h"
#include "series/sampling_rate.h"
#include "server_test_util.h"
#include "status_details.h"
#include "wasserwarp/prepare.h"
#include "wasserwarp/report_json.h"
#include "wasserwarp/twed.h"
#include "wasserwarp/validation.h"
#include "wire/convert.h"

namespace wasserwarp::service::testing {
namespace {

using test_support::FindDetail;

using test_data::RandomWalkRuns;
using ::testing::HasSubstr;

constexpr char kSession[] = "sessions/bench";

// The report's JSON with its wall time zeroed, for exact comparison.
std::string ComparableJson(ValidationReport report) {
  report.seconds = 0.0;
  return ReportToJson(report);
}

class ValidateTest : public ServerTest {
 protected:
  // A validation long enough (about 2e10 DP cells, seconds even with every
  // core) that it is always still computing when a test cancels it.
  void UploadBigSession() {
    ASSERT_TRUE(CreateSession("bench").ok());
    ASSERT_TRUE(Upload(kSession, RandomWalkRuns("sim", 24, 6000, 6000, 1, 1),
                       RandomWalkRuns("ref", 24, 6000, 6000, 1, 2))
                    .ok());
  }

  // Reads events until one shows the job computing the cost matrix.
  static void ReadUntilComputing(grpc::ClientReader<v1::ValidateResponse>& reader) {
    v1::ValidateResponse event;
    while (reader.Read(&event)) {
      if (event.has_progress() && event.progress().phase() == v1::PHASE_COST_MATRIX) return;
    }
    ADD_FAILURE() << "the stream ended before the cost matrix phase";
  }

  // The ended Validate job of `session`, after a test stopped it.
  std::optional<JobStats> ValidateJobEnd() {
    return jobs_.WaitFor([](const JobStats& stats) { return stats.label.starts_with("Validate"); });
  }
};

TEST_F(ValidateTest, ReportEqualsTheCoreWithSessionDefaultsAndOverrides) {
  const std::vector<Series> sim = RandomWalkRuns("sim", 5, 40, 120, 2, 11);
  const std::vector<Series> ref = RandomWalkRuns("ref", 4, 40, 120, 2, 12);
  v1::Session settings;
  v1::ValidationParameters* defaults = settings.mutable_default_parameters();
  defaults->set_deletion_penalty(0.3);
  defaults->set_nu(0.1);
  defaults->set_scale(v1::SCALING_REFERENCE_STD);
  defaults->add_channels("c1");
  defaults->add_channels("c0");
  ASSERT_TRUE(CreateSession("bench", settings).ok());
  std::vector<v1::UploadSeriesRequest> messages;
  const std::vector<double> sim_weights = {1, 2, 3, 4, 5};
  for (size_t i = 0; i < sim.size(); ++i) {
    AppendRun(kSession, v1::ROLE_SIMULATION, sim[i], messages, sim_weights[i], 7);
  }
  for (const Series& run : ref) AppendRun(kSession, v1::ROLE_REFERENCE, run, messages);
  ASSERT_TRUE(UploadMessages(messages).ok());

  v1::ValidateRequest request = ValidateRequestFor(kSession);
  request.mutable_parameters()->set_nu(0.5);
  request.mutable_parameters()->set_order(2.0);
  request.mutable_parameters()->set_align(v1::ALIGNMENT_NONE);
  request.set_include_cost_matrix(true);
  std::vector<v1::ValidateResponse> events;
  const grpc::Status status = ValidateAll(request, events);
  ASSERT_TRUE(status.ok()) << status.error_message();
  absl::StatusOr<ValidationReport> served = ServedReport(events);
  ASSERT_TRUE(served.ok()) << served.status();

  ValidationOptions options;
  options.twed.nu = 0.5;
  options.twed.lambda = 0.3;
  options.order = 2.0;
  options.prepare.align = Align::kNone;
  options.prepare.scale = Scale::kReferenceStd;
  options.prepare.channels = {"c1", "c0"};
  options.simulation_weights = sim_weights;
  options.keep_cost_matrix = true;
  absl::StatusOr<ValidationReport> embedded = Validate(sim, ref, options);
  ASSERT_TRUE(embedded.ok()) << embedded.status();
  EXPECT_EQ(ComparableJson(*served), ComparableJson(*embedded));
  ASSERT_TRUE(served->cost_matrix.has_value());
}

TEST_F(ValidateTest, RunsKeepTheirSourcesWhenAWindowLeavesOthersOut) {
  // Channel y rises by 1 a second from `rise`, sampled at 10 Hz for 10 s; "flat" never rises.
  const auto ramp = [](const std::string& id, double rise) {
    Series run{.id = id, .channels = {"y"}, .times = {}, .values = {}};
    for (int k = 0; k <= 100; ++k) {
      run.times.push_back(k / 10.0);
      run.values.push_back(std::max(0.0, k / 10.0 - rise));
    }
    return run;
  };
  ASSERT_TRUE(CreateSession("bench").ok());
  std::vector<v1::UploadSeriesRequest> messages;
  for (const Series& run : {ramp("sim0", 1.0), ramp("flat", 20.0), ramp("sim2", 2.0)}) {
    AppendRun(kSession, v1::ROLE_SIMULATION, run, messages);
  }
  for (const Series& run : {ramp("ref0", 1.5), ramp("ref1", 2.5)}) {
    AppendRun(kSession, v1::ROLE_REFERENCE, run, messages);
  }
  for (v1::UploadSeriesRequest& message : messages) {
    if (!message.has_header()) continue;
    v1::RunSource* source = message.mutable_header()->mutable_source();
    source->set_file(absl::StrCat("runs/", message.header().series_id(), ".csv"));
    source->set_sha256(std::string(64, 'a'));
  }
  ASSERT_TRUE(UploadMessages(messages).ok());

  v1::ValidateRequest request = ValidateRequestFor(kSession);
  v1::EventWindow* window = request.mutable_parameters()->mutable_window();
  window->set_condition("y>0.5");
  window->set_before(0.5);
  window->set_after(3.0);
  window->set_skip_untriggered(true);
  std::vector<v1::ValidateResponse> events;
  ASSERT_TRUE(ValidateAll(request, events).ok());
  absl::StatusOr<ValidationReport> served = ServedReport(events);
  ASSERT_TRUE(served.ok()) << served.status();
  ASSERT_EQ(served->untriggered.size(), 1u);
  EXPECT_EQ(served->untriggered[0].id, "flat");
  ASSERT_EQ(served->simulation.size(), 2u);
  ASSERT_EQ(served->reference.size(), 2u);
  for (const std::vector<RunSummary>* runs : {&served->simulation, &served->reference}) {
    for (const RunSummary& run : *runs) {
      ASSERT_TRUE(run.source.has_value()) << run.id;
      EXPECT_EQ(run.source->file, absl::StrCat("runs/", run.id, ".csv"));
    }
  }
}

TEST_F(ValidateTest, ReportEqualsTheCoreWithDefaults) {
  const std::vector<Series> sim = RandomWalkRuns("sim", 3, 30, 80, 1, 13);
  const std::vector<Series> ref = RandomWalkRuns("ref", 5, 30, 80, 1, 14);
  ASSERT_TRUE(CreateSession("bench").ok());
  ASSERT_TRUE(Upload(kSession, sim, ref).ok());
  std::vector<v1::ValidateResponse> events;
  ASSERT_TRUE(ValidateAll(ValidateRequestFor(kSession), events).ok());
  ASSERT_TRUE(events.back().has_report());
  EXPECT_FALSE(events.back().report().has_cost_matrix());
  absl::StatusOr<ValidationReport> served = ServedReport(events);
  ASSERT_TRUE(served.ok()) << served.status();
  absl::StatusOr<ValidationReport> embedded = Validate(sim, ref, ValidationOptions());
  ASSERT_TRUE(embedded.ok()) << embedded.status();
  EXPECT_EQ(ComparableJson(*served), ComparableJson(*embedded));
  // The validation counts as a use of the session.
  absl::StatusOr<v1::Session> session = GetSession(kSession);
  ASSERT_TRUE(session.ok());
  EXPECT_GT(wire::FromProtoTime(session->expire_time()),
            wire::FromProtoTime(session->create_time()) + absl::Hours(24));
}

TEST_F(ValidateTest, VerdictAndQuantitiesEqualTheCoreAndReportTheirProgress) {
  const std::vector<Series> sim = RandomWalkRuns("sim", 4, 30, 80, 2, 15);
  const std::vector<Series> ref = RandomWalkRuns("ref", 6, 30, 80, 2, 16);
  ASSERT_TRUE(CreateSession("bench").ok());
  ASSERT_TRUE(Upload(kSession, sim, ref).ok());
  v1::ValidateRequest request = ValidateRequestFor(kSession);
  request.mutable_parameters()->set_deletion_penalty(0.2);
  request.mutable_verdict()->set_permutations(39);
  request.mutable_verdict()->set_seed(5);
  request.mutable_verdict()->set_max_ratio(1.5);
  request.mutable_verdict()->set_alpha(0.05);
  request.add_quantities("c0:max");
  request.add_quantities("c1:value_at:0.1");
  request.set_include_pooled_cost_matrix(true);
  std::vector<v1::ValidateResponse> events;
  const grpc::Status status = ValidateAll(request, events);
  ASSERT_TRUE(status.ok()) << status.error_message();
  absl::StatusOr<ValidationReport> served = ServedReport(events);
  ASSERT_TRUE(served.ok()) << served.status();

  ValidationOptions options;
  options.twed.lambda = 0.2;
  options.verdict = VerdictOptions{};
  options.verdict->permutations = 39;
  options.verdict->seed = 5;
  options.verdict->max_ratio = 1.5;
  options.verdict->alpha = 0.05;
  options.quantities = {{"c0", QuantityKind::kMax}, {"c1", QuantityKind::kValueAt, 0.1}};
  options.keep_pooled_cost_matrix = true;
  absl::StatusOr<ValidationReport> embedded = Validate(sim, ref, options);
  ASSERT_TRUE(embedded.ok()) << embedded.status();
  EXPECT_EQ(ComparableJson(*served), ComparableJson(*embedded));
  ASSERT_TRUE(served->verdict.has_value());
  EXPECT_EQ(served->verdict->rules.size(), 2u);
  EXPECT_TRUE(served->pooled_cost_matrix.has_value());

  // The last progress event of the resampling phase may come too late to be sent, but its
  // phase must have been entered in order after the cost matrix's.
  std::vector<v1::Phase> phases;
  for (const v1::ValidateResponse& event : events) {
    if (event.has_progress() && (phases.empty() || phases.back() != event.progress().phase())) {
      phases.push_back(event.progress().phase());
    }
  }
  EXPECT_TRUE(std::is_sorted(phases.begin(), phases.end()));
}

TEST_F(ValidateTest, HtmlReportOnRequestWithoutTheMatricesItDraws) {
  ASSERT_TRUE(CreateSession("bench").ok());
  ASSERT_TRUE(Upload(kSession, RandomWalkRuns("sim", 3, 20, 40, 1, 19),
                     RandomWalkRuns("ref", 4, 20, 40, 1, 20))
                  .ok());
  v1::ValidateRequest request = ValidateRequestFor(kSession);
  request.mutable_verdict()->set_permutations(9);
  request.set_include_html_report(true);
  std::vector<v1::ValidateResponse> events;
  const grpc::Status status = ValidateAll(request, events);
  ASSERT_TRUE(status.ok()) << status.error_message();
  absl::StatusOr<v1::ValidationReport> report = AssembledReport(events);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_THAT(report->html_report(), ::testing::StartsWith("<!DOCTYPE html>"));
  EXPECT_THAT(report->html_report(), HasSubstr("sim0"));
  EXPECT_FALSE(report->has_cost_matrix());
  EXPECT_FALSE(report->has_pooled_cost_matrix());

  request.set_include_html_report(false);
  events.clear();
  ASSERT_TRUE(ValidateAll(request, events).ok());
  EXPECT_TRUE(events.back().report().html_report().empty());
}

// Progress of a validation computed whole: pairs and cells of its one matrix.
TEST_F(ValidateTest, ProgressCellsIncreaseThenClientCancelStopsTheJob) {
  ServerConfig whole = TestConfig();
  whole.tile_min_pairs = std::numeric_limits<int64_t>::max();
  StartServer(whole);
  UploadBigSession();
  grpc::ClientContext context;
  std::unique_ptr<grpc::ClientReader<v1::ValidateResponse>> reader =
      stub_->Validate(&context, LongValidateRequestFor(kSession));
  std::vector<v1::ValidateProgress> progress;
  v1::ValidateResponse event;
  // Until the cells done have grown twice while computing.
  int increases = 0;
  while (increases < 2 && reader->Read(&event)) {
    ASSERT_TRUE(event.has_progress());
    const v1::ValidateProgress& last = event.progress();
    if (!progress.empty()) {
      EXPECT_GE(last.phase(), progress.back().phase());
      EXPECT_GE(last.cells_done(), progress.back().cells_done());
      EXPECT_GE(last.pairs_done(), progress.back().pairs_done());
      // The contract's interval is 250 ms; a loaded machine gets generous slack.
      EXPECT_LT(wire::FromProtoDuration(last.elapsed()) -
                    wire::FromProtoDuration(progress.back().elapsed()),
                absl::Seconds(1));
      if (last.cells_done() > progress.back().cells_done()) ++increases;
    }
    EXPECT_EQ(last.pairs_total(), 24 * 24);
    EXPECT_EQ(last.cells_total(), int64_t{24 * 24} * 6000 * 6000);
    EXPECT_EQ(last.tiles_total(), 0);
    progress.push_back(last);
  }
  ASSERT_EQ(increases, 2);
  // Queued only when no slot is free: here it starts at once.
  EXPECT_LE(progress.front().phase(), v1::PHASE_PREPARING);

  context.TryCancel();
  while (reader->Read(&event)) {
  }
  EXPECT_EQ(reader->Finish().error_code(), grpc::StatusCode::CANCELLED);
  const std::optional<JobStats> job = ValidateJobEnd();
  ASSERT_TRUE(job.has_value()) << "the job did not end within 5 s of the cancellation";
  EXPECT_TRUE(absl::IsCancelled(job->outcome.status)) << job->outcome.status;
  EXPECT_LT(job->outcome.cells_done, job->outcome.cells_total / 2);
}

// Progress of a validation computed in tiles (the default for one this large): tiles and
// cells, as the store counts them for every replica, and no pairs.
TEST_F(ValidateTest, TiledProgressCountsTilesAndCells) {
  // Progress is stored with each lease renewal, once a second at the default lease: on a quiet
  // machine the tiles were done before two renewals had counted them. Renewals every 0.5 s.
  ServerConfig config = TestConfig();
  config.job_lease = absl::Milliseconds(1500);
  StartServer(config);
  UploadBigSession();
  grpc::ClientContext context;
  std::unique_ptr<grpc::ClientReader<v1::ValidateResponse>> reader =
      stub_->Validate(&context, LongValidateRequestFor(kSession));
  v1::ValidateResponse event;
  std::optional<v1::ValidateProgress> last;
  int increases = 0;
  while (increases < 2 && reader->Read(&event)) {
    ASSERT_TRUE(event.has_progress());
    const v1::ValidateProgress& now = event.progress();
    if (now.tiles_total() == 0) continue;  // not planned yet
    EXPECT_EQ(now.pairs_total(), 0);
    // One matrix without a verdict: its tiles' cells are its cells.
    EXPECT_EQ(now.cells_total(), int64_t{24 * 24} * 6000 * 6000);
    EXPECT_LE(now.tiles_done(), now.tiles_total());
    if (last.has_value()) {
      EXPECT_GE(now.tiles_done(), last->tiles_done());
      EXPECT_GE(now.cells_done(), last->cells_done());
      if (now.tiles_done() > last->tiles_done()) ++increases;
    }
    last = now;
  }
  ASSERT_EQ(increases, 2);
  ASSERT_TRUE(last.has_value());
  // 2e10 cells in tiles of 2^30.
  EXPECT_GE(last->tiles_total(), 18);
  context.TryCancel();
  while (reader->Read(&event)) {
  }
  EXPECT_EQ(reader->Finish().error_code(), grpc::StatusCode::CANCELLED);
}

TEST_F(ValidateTest, DeadlineStopsTheJob) {
  UploadBigSession();
  std::vector<v1::ValidateResponse> events;
  const grpc::Status status =
      ValidateAll(LongValidateRequestFor(kSession), events, absl::Milliseconds(500));
  EXPECT_EQ(status.error_code(), grpc::StatusCode::DEADLINE_EXCEEDED);
  const std::optional<JobStats> job = ValidateJobEnd();
  ASSERT_TRUE(job.has_value());
  EXPECT_TRUE(absl::IsCancelled(job->outcome.status)) << job->outcome.status;
  EXPECT_LT(job->outcome.cells_done, job->outcome.cells_total / 2);
}

TEST_F(ValidateTest, DeletingTheSessionCancelsItsJob) {
  UploadBigSession();
  grpc::ClientContext context;
  std::unique_ptr<grpc::ClientReader<v1::ValidateResponse>> reader =
      stub_->Validate(&context, LongValidateRequestFor(kSession));
  ReadUntilComputing(*reader);
  grpc::ClientContext delete_context;
  v1::DeleteSessionRequest request;
  request.set_name(kSession);
  v1::DeleteSessionResponse response;
  ASSERT_TRUE(stub_->DeleteSession(&delete_context, request, &response).ok());
  v1::ValidateResponse event;
  while (reader->Read(&event)) {
  }
  const grpc::Status status = reader->Finish();
  EXPECT_EQ(status.error_code(), grpc::StatusCode::CANCELLED);
  EXPECT_THAT(status.error_message(), HasSubstr("deleted"));
  const std::optional<JobStats> job = ValidateJobEnd();
  ASSERT_TRUE(job.has_value());
  EXPECT_LT(job->outcome.cells_done, job->outcome.cells_total / 2);
}

TEST_F(ValidateTest, FullQueueIsResourceExhaustedAndAWaitingJobCanBeCancelled) {
  ServerConfig config = TestConfig();
  config.jobs.max_concurrent_jobs = 1;
  config.jobs.max_queued_jobs = 1;
  StartServer(config);
  UploadBigSession();

  grpc::ClientContext running_context;
  auto running = stub_->Validate(&running_context, LongValidateRequestFor(kSession));
  ReadUntilComputing(*running);
  grpc::ClientContext waiting_context;
  auto waiting = stub_->Validate(&waiting_context, LongValidateRequestFor(kSession));
  v1::ValidateResponse event;
  ASSERT_TRUE(waiting->Read(&event));
  EXPECT_EQ(event.progress().phase(), v1::PHASE_QUEUED);

  std::vector<v1::ValidateResponse> events;
  grpc::Status status = ValidateAll(LongValidateRequestFor(kSession), events);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_THAT(status.error_message(), HasSubstr("--max_queued_jobs=1"));
  // A full queue empties again: the client is told when to retry, and which quota it hit.
  const std::optional<google::rpc::RetryInfo> retry = FindDetail<google::rpc::RetryInfo>(status);
  ASSERT_TRUE(retry.has_value());
  EXPECT_GT(retry->retry_delay().seconds(), 0);
  const std::optional<google::rpc::QuotaFailure> quota =
      FindDetail<google::rpc::QuotaFailure>(status);
  ASSERT_TRUE(quota.has_value());
  EXPECT_EQ(quota->violations(0).subject(), "--max_queued_jobs");
  waiting_context.TryCancel();
  while (waiting->Read(&event)) {
  }
  EXPECT_EQ(waiting->Finish().error_code(), grpc::StatusCode::CANCELLED);
  // The waiting validation never took a job slot: it ends CANCELLED in the store, once the
  // server has seen the call go.
  v1::ListValidationsRequest list;
  list.set_parent(kSession);
  list.set_state(v1::VALIDATION_STATE_CANCELLED);
  v1::ListValidationsResponse listed;
  for (const absl::Time give_up = absl::Now() + absl::Seconds(5);
       listed.validations_size() == 0 && absl::Now() < give_up;) {
    absl::SleepFor(absl::Milliseconds(20));
    grpc::ClientContext list_context;
    ASSERT_TRUE(stub_->ListValidations(&list_context, list, &listed).ok());
  }
  ASSERT_EQ(listed.validations_size(), 1);
  EXPECT_EQ(listed.validations(0).attempts(), 0);
  running_context.TryCancel();
  while (running->Read(&event)) {
  }
  EXPECT_EQ(running->Finish().error_code(), grpc::StatusCode::CANCELLED);
  EXPECT_TRUE(jobs_.WaitFor([](const JobStats& stats) { return stats.started; }).has_value());
}

TEST_F(ValidateTest, ASessionOutlivesItsTtlWhileItsValidationWaitsAndRuns) {
  ServerConfig config = TestConfig();
  config.jobs.max_concurrent_jobs = 1;
  StartServer(config);
  UploadBigSession();
  v1::Session short_lived;
  short_lived.mutable_idle_ttl()->set_seconds(60);
  ASSERT_TRUE(CreateSession("short", short_lived).ok());
  ASSERT_TRUE(Upload("sessions/short", RandomWalkRuns("sim", 2, 20, 20, 1, 3),
                     RandomWalkRuns("ref", 2, 20, 20, 1, 4))
                  .ok());

  grpc::ClientContext running_context;
  auto running = stub_->Validate(&running_context, LongValidateRequestFor(kSession));
  ReadUntilComputing(*running);
  grpc::ClientContext waiting_context;
  auto waiting = stub_->Validate(&waiting_context, ValidateRequestFor("sessions/short"));
  v1::ValidateResponse event;
  ASSERT_TRUE(waiting->Read(&event));
  EXPECT_EQ(event.progress().phase(), v1::PHASE_QUEUED);
  // Sweeps an hour on, while both validations wait or run: neither session goes.
  EXPECT_TRUE(server_->ExpireIdleSessions(absl::Now() + absl::Hours(1)).empty());
  EXPECT_TRUE(GetSession("sessions/short").ok());

  running_context.TryCancel();
  while (running->Read(&event)) {
  }
  EXPECT_EQ(running->Finish().error_code(), grpc::StatusCode::CANCELLED);
  bool reported = false;
  while (waiting->Read(&event)) reported = event.has_report();
  const grpc::Status status = waiting->Finish();
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_TRUE(reported);
  // Once its validation has ended, the session expires as usual.
  EXPECT_TRUE(server_->ExpireIdleSessions(absl::Now()).empty());
  EXPECT_THAT(server_->ExpireIdleSessions(absl::Now() + absl::Minutes(2)),
              ::testing::Contains("short"));
}

TEST_F(ValidateTest, ShutdownCancelsRunningJobsAfterTheGrace) {
  UploadBigSession();
  grpc::ClientContext context;
  auto reader = stub_->Validate(&context, LongValidateRequestFor(kSession));
  ReadUntilComputing(*reader);
  std::thread shutdown([this] { server_->Shutdown(absl::Milliseconds(100)); });
  v1::ValidateResponse event;
  while (reader->Read(&event)) {
  }
  const grpc::Status status = reader->Finish();
  EXPECT_FALSE(status.ok());
  shutdown.join();
  const std::optional<JobStats> job = ValidateJobEnd();
  ASSERT_TRUE(job.has_value());
  EXPECT_LT(job->outcome.cells_done, job->outcome.cells_total / 2);
  // New calls are refused.
  grpc::ClientContext late;
  late.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(5)));
  v1::GetSessionRequest request;
  request.set_name(kSession);
  v1::GetSessionResponse response;
  EXPECT_EQ(stub_->GetSession(&late, request, &response).error_code(),
            grpc::StatusCode::UNAVAILABLE);
}

}  // namespace
}  // namespace wasserwarp::service::testing

namespace wasserwarp::service::testing {
namespace {

// Reference runs sampled 1.3 times as fast as the simulated ones.
std::vector<Series> Faster(std::vector<Series> runs) {
  for (Series& run : runs) {
    for (double& t : run.times) t /= 1.3;
  }
  return runs;
}

TEST_F(ValidateTest, VerdictOnGroupsAtDifferentRatesIsThinnedOrRefused) {
  const std::vector<Series> sim = RandomWalkRuns("sim", 3, 40, 40, 1, 21);
  const std::vector<Series> ref = Faster(RandomWalkRuns("ref", 3, 40, 40, 1, 22));
  ASSERT_TRUE(CreateSession("bench").ok());
  ASSERT_TRUE(Upload(kSession, sim, ref).ok());
  v1::ValidateRequest request = ValidateRequestFor(kSession);
  request.mutable_verdict()->set_permutations(19);
  request.mutable_parameters()->set_resampling(v1::RESAMPLING_NONE);
  std::vector<v1::ValidateResponse> events;
  grpc::Status status = ValidateAll(request, events);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(status.error_message(), AllOf(HasSubstr("parameters.resampling"), HasSubstr("auto")));
  const std::optional<google::rpc::BadRequest> bad = FindDetail<google::rpc::BadRequest>(status);
  ASSERT_TRUE(bad.has_value());
  EXPECT_EQ(bad->field_violations(0).field(), "parameters.resampling");

  request.mutable_parameters()->set_resample_rate(50.0);
  events.clear();
  status = ValidateAll(request, events);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(status.error_message(), HasSubstr("contradicts resample_rate"));

  request.mutable_parameters()->clear_resample_rate();
  request.mutable_parameters()->set_resampling(v1::RESAMPLING_AUTO);
  events.clear();
  status = ValidateAll(request, events);
  ASSERT_TRUE(status.ok()) << status.error_message();
  absl::StatusOr<ValidationReport> served = ServedReport(events);
  ASSERT_TRUE(served.ok()) << served.status();
  ASSERT_TRUE(served->verdict.has_value());
  EXPECT_FALSE(served->verdict->same_grid_as_distance);
  ASSERT_TRUE(served->verdict->resample_rate.has_value());
  EXPECT_EQ(*served->verdict->resample_rate, MedianRates(sim, ref).simulation);
}

}  // namespace
}  // namespace wasserwarp::service::testing
