// A real wasserwarp-server under faults: clients that vanish mid-upload or mid-validation
// (nothing partial stays, the bytes and the job slot come back, as its metrics show), SIGTERM
// during a validation (drained within the grace, or cancelled at its end, the sessions kept
// for the restart), and many clients against the quotas (RESOURCE_EXHAUSTED, the server up).

#include <gmock/gmock.h>
#include <grpcpp/create_channel.h>
#include <grpcpp/security/credentials.h>
#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "e2e_clients.h"
#include "e2e_process.h"
#include "metrics_scrape.h"
#include "random_runs.h"
#include "scratch_dir.h"
#include "sessions/session_store.h"
#include "validation_client.h"

namespace wasserwarp {
namespace {

using ::testing::AnyOf;
using ::testing::HasSubstr;

// The metrics the tests read: a name, and the value of its "state" label where it has one.
struct Metric {
  std::string_view name;
  std::string_view state;
};
constexpr Metric kUploadingBytes = {"wasserwarp_bytes_held", "uploading"};
constexpr Metric kCommittedBytes = {"wasserwarp_bytes_held", "committed"};
constexpr Metric kJobsRunning = {"wasserwarp_jobs_running", ""};

// Messages of a run's header and one chunk of all its samples, for streams written by hand.
std::vector<v1::UploadSeriesRequest> HeaderAndSamples(const std::string& session, v1::Role role,
                                                      const Series& run) {
  v1::UploadSeriesRequest header;
  header.set_session(absl::StrCat("sessions/", session));
  header.mutable_header()->set_role(role);
  header.mutable_header()->set_series_id(run.id);
  for (const std::string& channel : run.channels) header.mutable_header()->add_channels(channel);
  v1::UploadSeriesRequest chunk;
  chunk.mutable_chunk()->mutable_times()->Assign(run.times.begin(), run.times.end());
  chunk.mutable_chunk()->mutable_values()->Assign(run.values.begin(), run.values.end());
  return {header, chunk};
}

class E2eFaultsTest : public ::testing::Test {
 protected:
  // A server on data_dir_, and clients of it.
  void StartServer(std::vector<std::string> flags) {
    flags.insert(flags.end(), {"--data_dir", data_dir_});
    absl::StatusOr<std::unique_ptr<e2e::ServerProcess>> server =
        e2e::ServerProcess::Start(WASSERWARP_SERVER, scratch_.root().string(), flags);
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = *std::move(server);
    ASSERT_NO_FATAL_FAILURE(e2e::ConnectClients(server_->address(), client_, stub_));
  }

  // The same with a metrics endpoint; metrics_ is its address.
  void StartServerWithMetrics(std::vector<std::string> flags) {
    flags.push_back("--metrics_listen=127.0.0.1:0");
    ASSERT_NO_FATAL_FAILURE(StartServer(flags));
    metrics_ = server_->MetricsAddress();
    ASSERT_FALSE(metrics_.empty()) << server_->Log();
  }

  // The value of `metric` now; -1 when the server does not export it.
  double MetricValue(const Metric& metric) const {
    test_support::Labels labels;
    if (!metric.state.empty()) labels.emplace("state", metric.state);
    return test_support::Scrape::Of(metrics_).Value(std::string(metric.name), labels).value_or(-1);
  }

  // Waits up to 10 s for `metric` to read `value`; returns what it reads last.
  double AwaitSample(const Metric& metric, double value) const {
    const absl::Time deadline = absl::Now() + absl::Seconds(10);
    double read = MetricValue(metric);
    while (read != value && absl::Now() < deadline) {
      absl::SleepFor(absl::Milliseconds(20));
      read = MetricValue(metric);
    }
    return read;
  }

  // Uploads `count` simulated and as many reference runs of `samples` samples (one channel).
  void UploadWorkload(const std::string& session, size_t count, size_t samples) {
    ASSERT_TRUE(client_->CreateSession(session, {}).ok());
    ASSERT_TRUE(client_
                    ->UploadRuns(session,
                                 test_data::RandomWalkRuns("sim", count, samples, samples, 1, 1),
                                 test_data::RandomWalkRuns("ref", count, samples, samples, 1, 2))
                    .ok());
  }

  // About 4e10 DP cells, minutes on one thread unless cancelled, in pairs short enough that a
  // cancellation takes effect at once.
  static constexpr int kLongWorkloadRuns = 40;
  void UploadLongWorkload(const std::string& session) {
    UploadWorkload(session, kLongWorkloadRuns, 5000);
  }

  const test_support::ScratchDir scratch_{"e2e_faults_"};
  const std::string data_dir_ = scratch_.Path("data");
  std::unique_ptr<e2e::ServerProcess> server_;
  std::string metrics_;
  std::unique_ptr<client::ValidationClient> client_;
  std::unique_ptr<v1::ValidationService::Stub> stub_;
};

TEST_F(E2eFaultsTest, AClientGoneMidUploadLeavesNoRunAndItsBytesComeBack) {
  ASSERT_NO_FATAL_FAILURE(StartServerWithMetrics({}));
  ASSERT_TRUE(client_->CreateSession("s", {}).ok());
  const Series kept = test_data::RandomWalkRuns("kept", 1, 1000, 1000, 2, 3)[0];
  ASSERT_TRUE(client_->UploadRuns("s", {kept}, {}).ok());
  const double committed = MetricValue(kCommittedBytes);
  ASSERT_GT(committed, 0) << test_support::HttpGet(metrics_, "/metrics").body;
  ASSERT_EQ(MetricValue(kUploadingBytes), 0);

  const Series partial = test_data::RandomWalkRuns("partial", 1, 100'000, 100'000, 2, 4)[0];
  const double partial_bytes =
      static_cast<double>(service::HeaderBytes(partial.id, partial.channels) +
                          service::SampleBytes(static_cast<int64_t>(partial.times.size()),
                                               static_cast<int64_t>(partial.values.size())));
  // Cancelled by the client, and cut off by its deadline.
  for (const bool cancel : {true, false}) {
    SCOPED_TRACE(cancel ? "cancelled" : "deadline");
    grpc::ClientContext context;
    if (!cancel) context.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(2)));
    v1::UploadSeriesResponse response;
    std::unique_ptr<grpc::ClientWriter<v1::UploadSeriesRequest>> writer =
        stub_->UploadSeries(&context, &response);
    for (const v1::UploadSeriesRequest& message :
         HeaderAndSamples("s", v1::ROLE_SIMULATION, partial)) {
      ASSERT_TRUE(writer->Write(message));
    }
    // The server holds the samples it received, waiting for the end mark.
    EXPECT_EQ(AwaitSample(kUploadingBytes, partial_bytes), partial_bytes);
    if (cancel) context.TryCancel();
    const grpc::Status status = writer->Finish();
    EXPECT_THAT(status.error_code(),
                AnyOf(grpc::StatusCode::CANCELLED, grpc::StatusCode::DEADLINE_EXCEEDED));
    EXPECT_EQ(AwaitSample(kUploadingBytes, 0), 0);
    EXPECT_EQ(MetricValue(kCommittedBytes), committed);
    absl::StatusOr<v1::Session> session = client_->GetSession("s");
    ASSERT_TRUE(session.ok()) << session.status();
    ASSERT_EQ(session->runs_size(), 1);
    EXPECT_EQ(session->runs(0).series_id(), kept.id);
    EXPECT_EQ(session->bytes_held(), static_cast<int64_t>(committed));
  }
  client_.reset();
  EXPECT_EQ(server_->Stop(), 0) << server_->Log();
}

TEST_F(E2eFaultsTest, AClientGoneMidValidationCancelsItsJobAndFreesTheSlot) {
  ASSERT_NO_FATAL_FAILURE(StartServerWithMetrics(
      {"--max_concurrent_jobs=1", "--max_queued_jobs=0", "--job_threads=1"}));
  ASSERT_NO_FATAL_FAILURE(UploadLongWorkload("long"));
  grpc::ClientContext context;
  v1::ValidateRequest request;
  request.set_session("sessions/long");
  std::unique_ptr<grpc::ClientReader<v1::ValidateResponse>> reader =
      stub_->Validate(&context, request);
  v1::ValidateResponse event;
  while (reader->Read(&event) && event.progress().phase() != v1::PHASE_COST_MATRIX) {
  }
  ASSERT_EQ(event.progress().phase(), v1::PHASE_COST_MATRIX);
  EXPECT_EQ(MetricValue(kJobsRunning), 1);
  context.TryCancel();
  while (reader->Read(&event)) {
  }
  EXPECT_EQ(reader->Finish().error_code(), grpc::StatusCode::CANCELLED);
  EXPECT_EQ(AwaitSample(kJobsRunning, 0), 0);

  // The one slot is free again: with no queue, a busy slot would refuse this.
  ASSERT_TRUE(client_->CreateSession("short", {}).ok());
  ASSERT_TRUE(client_
                  ->UploadRuns("short", test_data::RandomWalkRuns("sim", 2, 50, 60, 1, 5),
                               test_data::RandomWalkRuns("ref", 2, 50, 60, 1, 6))
                  .ok());
  absl::StatusOr<ValidationReport> report = client_->Validate("short", {}, false);
  EXPECT_TRUE(report.ok()) << report.status();
  client_.reset();
  EXPECT_EQ(server_->Stop(), 0) << server_->Log();
  EXPECT_THAT(server_->Log(), HasSubstr("CANCELLED"));
}

TEST_F(E2eFaultsTest, SigtermDrainsARunningValidationWithinTheGraceAndKeepsTheSessions) {
  constexpr absl::Duration kGrace = absl::Seconds(60);
  ASSERT_NO_FATAL_FAILURE(StartServer({"--shutdown_grace=60s", "--job_threads=1"}));
  // About 1.5e9 DP cells on one thread: long enough that SIGTERM comes while it runs.
  ASSERT_NO_FATAL_FAILURE(UploadWorkload("bench", 10, 3900));
  absl::Notification computing;
  absl::StatusOr<ValidationReport> report;
  std::thread validation([&] {
    report = client_->Validate("bench", {}, false, [&](const v1::ValidateProgress& progress) {
      if (progress.phase() == v1::PHASE_COST_MATRIX && !computing.HasBeenNotified()) {
        computing.Notify();
      }
    });
    if (!computing.HasBeenNotified()) computing.Notify();
  });
  computing.WaitForNotification();
  const absl::Time signalled = absl::Now();
  const int exit_code = server_->Stop(std::chrono::seconds(90));
  const absl::Duration drained = absl::Now() - signalled;
  validation.join();
  EXPECT_EQ(exit_code, 0) << server_->Log();
  EXPECT_LT(drained, kGrace);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_EQ(report->simulation.size(), 10u);
  const std::string log = server_->Log();
  EXPECT_LT(log.find("received signal 15"), log.find("job 1 end")) << log;

  ASSERT_NO_FATAL_FAILURE(StartServer({}));
  absl::StatusOr<v1::Session> session = client_->GetSession("bench");
  ASSERT_TRUE(session.ok()) << session.status();
  EXPECT_EQ(session->simulation_run_count(), 10);
  EXPECT_EQ(session->reference_run_count(), 10);
  client_.reset();
  EXPECT_EQ(server_->Stop(), 0) << server_->Log();
}

TEST_F(E2eFaultsTest, SigtermCancelsAValidationThatOutlastsTheGrace) {
  ASSERT_NO_FATAL_FAILURE(StartServer({"--shutdown_grace=1s", "--job_threads=1"}));
  ASSERT_NO_FATAL_FAILURE(UploadLongWorkload("long"));
  absl::Notification computing;
  absl::StatusOr<ValidationReport> report;
  std::thread validation([&] {
    report = client_->Validate("long", {}, false, [&](const v1::ValidateProgress& progress) {
      if (progress.phase() == v1::PHASE_COST_MATRIX && !computing.HasBeenNotified()) {
        computing.Notify();
      }
    });
    if (!computing.HasBeenNotified()) computing.Notify();
  });
  computing.WaitForNotification();
  EXPECT_EQ(server_->Stop(), 0) << server_->Log();
  validation.join();
  EXPECT_FALSE(report.ok());

  ASSERT_NO_FATAL_FAILURE(StartServer({}));
  absl::StatusOr<v1::Session> session = client_->GetSession("long");
  ASSERT_TRUE(session.ok()) << session.status();
  EXPECT_EQ(session->runs_size(), 2 * kLongWorkloadRuns);
  client_.reset();
  EXPECT_EQ(server_->Stop(), 0) << server_->Log();
}

TEST_F(E2eFaultsTest, ManyClientsAgainstTheQuotasGetResourceExhaustedAndTheServerStaysUp) {
  constexpr int kClients = 16;
  constexpr int kSessions = 4;
  constexpr int64_t kSessionBytes = 1'000'000;
  constexpr int64_t kTotalBytes = 2'500'000;
  ASSERT_NO_FATAL_FAILURE(
      StartServerWithMetrics({absl::StrCat("--max_sessions=", kSessions),
                              absl::StrCat("--max_session_bytes=", kSessionBytes),
                              absl::StrCat("--max_total_bytes=", kTotalBytes)}));
  std::vector<absl::Status> created(kClients);
  std::vector<std::vector<absl::Status>> uploaded(kClients);
  std::vector<std::thread> clients;
  std::atomic<int> ready = 0;
  for (int k = 0; k < kClients; ++k) {
    clients.emplace_back([&, k] {
      absl::StatusOr<std::unique_ptr<client::ValidationClient>> client =
          client::ValidationClient::Connect(server_->address());
      // Everyone asks at once.
      ++ready;
      while (ready < kClients) std::this_thread::yield();
      created[k] = client.ok() ? (*client)->CreateSession(absl::StrCat("c", k), {}).status()
                               : client.status();
    });
  }
  for (std::thread& client : clients) client.join();
  clients.clear();
  std::vector<std::string> sessions;
  for (int k = 0; k < kClients; ++k) {
    if (created[k].ok()) {
      sessions.push_back(absl::StrCat("c", k));
    } else {
      EXPECT_EQ(created[k].code(), absl::StatusCode::kResourceExhausted) << created[k];
      EXPECT_THAT(created[k].message(), HasSubstr("--max_sessions=4"));
    }
  }
  ASSERT_EQ(sessions.size(), static_cast<size_t>(kSessions));

  // 16 clients, four to a session, each with three runs of 400 kB: far over both quotas.
  for (int k = 0; k < kClients; ++k) {
    clients.emplace_back([&, k] {
      absl::StatusOr<std::unique_ptr<client::ValidationClient>> client =
          client::ValidationClient::Connect(server_->address());
      if (!client.ok()) {
        uploaded[k].push_back(client.status());
        return;
      }
      for (const Series& run :
           test_data::RandomWalkRuns(absl::StrCat("k", k, "_"), 3, 12'500, 12'500, 3, 100 + k)) {
        uploaded[k].push_back((*client)->UploadRuns(sessions[k % kSessions], {run}, {}).status());
      }
    });
  }
  for (std::thread& client : clients) client.join();
  int accepted = 0;
  int refused = 0;
  for (const std::vector<absl::Status>& statuses : uploaded) {
    for (const absl::Status& status : statuses) {
      if (status.ok()) {
        ++accepted;
        continue;
      }
      ++refused;
      EXPECT_EQ(status.code(), absl::StatusCode::kResourceExhausted) << status;
      EXPECT_THAT(status.message(), AnyOf(HasSubstr("--max_session_bytes=1000000"),
                                          HasSubstr("--max_total_bytes=2500000")));
    }
  }
  EXPECT_GT(accepted, 0);
  EXPECT_GT(refused, 0);

  // Still serving, within both quotas, nothing left in flight.
  int64_t total = 0;
  for (const std::string& id : sessions) {
    absl::StatusOr<v1::Session> session = client_->GetSession(id);
    ASSERT_TRUE(session.ok()) << session.status();
    EXPECT_LE(session->bytes_held(), kSessionBytes);
    total += session->bytes_held();
  }
  EXPECT_LE(total, kTotalBytes);
  EXPECT_EQ(AwaitSample(kUploadingBytes, 0), 0);
  EXPECT_EQ(MetricValue(kCommittedBytes), static_cast<double>(total));
  client_.reset();
  EXPECT_EQ(server_->Stop(), 0) << server_->Log();
}

}  // namespace
}  // namespace wasserwarp
