// The Prometheus endpoint of the in-process service, scraped over HTTP with a
// plain socket client: RPC counts by method and status code, received bytes,
// what sessions and the job queue hold, DP cells and job durations, each
// checked against values computed here.

#include <gmock/gmock.h>
#include <google/protobuf/descriptor.h>
#include <grpcpp/generic/generic_stub.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "absl/synchronization/notification.h"
#include "metrics_scrape.h"
#include "ops/metrics.h"
#include "ops/metrics_interceptor.h"
#include "random_runs.h"
#include "server_test_util.h"
#include "spdlog/sinks/ostream_sink.h"
#include "spdlog/spdlog.h"

namespace wasserwarp::service::testing {
namespace {

using test_data::RandomWalkRuns;
using test_support::HttpGet;
using test_support::Labels;
using test_support::MetricSample;
using test_support::Scrape;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr char kSession[] = "sessions/rig7";
constexpr char kService[] = "wasserwarp.v1.ValidationService";

Labels Rpc(const std::string& method) {
  return {{"grpc_service", kService}, {"grpc_method", method}};
}

Labels Rpc(const std::string& method, const std::string& code) {
  Labels labels = Rpc(method);
  labels["grpc_code"] = code;
  return labels;
}

int64_t TotalSamples(const std::vector<Series>& runs) {
  int64_t total = 0;
  for (const Series& run : runs) total += static_cast<int64_t>(run.samples());
  return total;
}

// What the store holds for `runs`: samples and header text.
int64_t HeldBytes(const std::vector<Series>& runs) {
  int64_t total = 0;
  for (const Series& run : runs) {
    total += SampleBytes(static_cast<int64_t>(run.samples()),
                         static_cast<int64_t>(run.samples() * run.num_channels())) +
             HeaderBytes(run.id, run.channels);
  }
  return total;
}

class MetricsTest : public ServerTest {
 protected:
  void SetUp() override { StartServer(MetricsConfig()); }

  static ServerConfig MetricsConfig() {
    ServerConfig config = TestConfig();
    config.metrics_listen = "127.0.0.1:0";
    return config;
  }

  Scrape ScrapeMetrics() { return Scrape::Of(server_->metrics_address()); }

  // Scrapes until `ready` holds, for what the server records after the
  // client has its answer (a cancelled call's end); fails after 10 s.
  Scrape ScrapeUntil(const std::function<bool(const Scrape&)>& ready) {
    const absl::Time give_up = absl::Now() + absl::Seconds(10);
    while (true) {
      Scrape scrape = ScrapeMetrics();
      if (ready(scrape)) return scrape;
      if (absl::Now() > give_up) {
        ADD_FAILURE() << "the metrics did not reach the expected state";
        return scrape;
      }
      absl::SleepFor(absl::Milliseconds(20));
    }
  }

  // A unary call of `method` with an empty request, through the generic stub:
  // HealthCheckRequest{service: ""} serializes to no bytes, and the test has
  // no health stubs.
  grpc::Status UnaryCall(const std::string& method) {
    grpc::GenericStub stub(channel_);
    grpc::ClientContext context;
    grpc::Slice empty("");
    const grpc::ByteBuffer request(&empty, 1);
    grpc::ByteBuffer response;
    grpc::Status status;
    absl::Notification done;
    stub.UnaryCall(&context, method, grpc::StubOptions(), &request, &response,
                   [&](grpc::Status result) {
                     status = std::move(result);
                     done.Notify();
                   });
    done.WaitForNotification();
    return status;
  }
};

TEST_F(MetricsTest, CountersAndGaugesFollowAnUploadAndAValidation) {
  const Scrape before = ScrapeMetrics();
  EXPECT_EQ(before.Value("wasserwarp_sessions_held"), 0.0);
  EXPECT_EQ(before.Value("wasserwarp_runs_held"), 0.0);
  EXPECT_EQ(before.Value("wasserwarp_bytes_held", {{"state", "committed"}}), 0.0);
  EXPECT_EQ(before.Value("wasserwarp_dp_cells_total"), 0.0);
  EXPECT_EQ(before.Value("wasserwarp_jobs_running"), 0.0);
  EXPECT_EQ(before.Value("wasserwarp_jobs_queued"), 0.0);
  EXPECT_EQ(before.Count("wasserwarp_grpc_server_handled_total"), 0.0);
  EXPECT_EQ(before.Value("wasserwarp_limit", {{"flag", "max_sessions"}}),
            MetricsConfig().sessions.max_sessions);
  EXPECT_EQ(before.Value("wasserwarp_limit", {{"flag", "max_total_bytes"}}),
            static_cast<double>(MetricsConfig().sessions.max_total_bytes));

  ASSERT_TRUE(CreateSession("rig7").ok());
  const std::vector<Series> simulation = RandomWalkRuns("sim", 3, 40, 90, 2, 1);
  const std::vector<Series> reference = RandomWalkRuns("ref", 2, 50, 70, 2, 2);
  std::vector<v1::UploadSeriesRequest> messages;
  for (const Series& run : simulation) {
    AppendRun(kSession, v1::ROLE_SIMULATION, run, messages, std::nullopt, 25);
  }
  for (const Series& run : reference) {
    AppendRun(kSession, v1::ROLE_REFERENCE, run, messages, std::nullopt, 25);
  }
  uint64_t upload_bytes = 0;
  for (const v1::UploadSeriesRequest& message : messages) upload_bytes += message.ByteSizeLong();
  ASSERT_TRUE(UploadMessages(messages).ok());

  const Scrape uploaded = ScrapeMetrics();
  EXPECT_EQ(uploaded.Value("wasserwarp_sessions_held"), 1.0);
  EXPECT_EQ(uploaded.Value("wasserwarp_runs_held"), 5.0);
  EXPECT_EQ(uploaded.Value("wasserwarp_bytes_held", {{"state", "committed"}}),
            static_cast<double>(HeldBytes(simulation) + HeldBytes(reference)));
  EXPECT_EQ(uploaded.Value("wasserwarp_bytes_held", {{"state", "uploading"}}), 0.0);
  EXPECT_EQ(uploaded.Value("wasserwarp_grpc_server_received_bytes_total", Rpc("UploadSeries")),
            static_cast<double>(upload_bytes));
  EXPECT_EQ(uploaded.Count("wasserwarp_grpc_server_handled_total", {{"grpc_method", "UploadSeries"},
                                                                    {"grpc_type", "client_stream"},
                                                                    {"grpc_code", "OK"}}),
            1.0);

  // Exhaustive, so that every pair is computed in full and the cells are known: the lazy solve
  // counts its single-precision cells at half weight.
  v1::ValidateRequest request = ValidateRequestFor(kSession);
  request.set_exhaustive(true);
  std::vector<v1::ValidateResponse> events;
  ASSERT_TRUE(ValidateAll(request, events).ok());
  ASSERT_TRUE(events.back().has_report());
  const std::optional<JobStats> job = jobs_.WaitFor([](const JobStats&) { return true; });
  ASSERT_TRUE(job.has_value());
  // The metrics observe each job before the test's observer does.
  const Scrape validated = ScrapeMetrics();
  const double cells = static_cast<double>(TotalSamples(simulation) * TotalSamples(reference));
  EXPECT_EQ(static_cast<double>(job->outcome.cells_done), cells);
  EXPECT_EQ(validated.Value("wasserwarp_dp_cells_total"), cells);
  EXPECT_EQ(validated.Value("wasserwarp_job_duration_seconds_count", {{"code", "OK"}}), 1.0);
  EXPECT_EQ(validated.Value("wasserwarp_job_wait_seconds_count"), 1.0);
  EXPECT_EQ(validated.Value("wasserwarp_jobs_running"), 0.0);
  EXPECT_EQ(validated.Value("wasserwarp_jobs_queued"), 0.0);
  EXPECT_EQ(validated.Count(
                "wasserwarp_grpc_server_handled_total",
                {{"grpc_method", "Validate"}, {"grpc_type", "server_stream"}, {"grpc_code", "OK"}}),
            1.0);
  EXPECT_EQ(validated.Value("wasserwarp_grpc_server_received_bytes_total", Rpc("Validate")),
            static_cast<double>(request.ByteSizeLong()));
  EXPECT_EQ(validated.Value("wasserwarp_grpc_server_handling_seconds_count", Rpc("Validate")), 1.0);
  EXPECT_EQ(validated.Value("wasserwarp_grpc_server_handling_seconds_bucket",
                            {{"grpc_method", "Validate"}, {"le", "+Inf"}}),
            1.0);
  EXPECT_EQ(validated.Count("wasserwarp_grpc_server_handled_total", Rpc("CreateSession", "OK")),
            1.0);
  // Every call has ended: as many handled as started, for every method.
  for (const char* method : {"CreateSession", "UploadSeries", "Validate"}) {
    EXPECT_EQ(validated.Count("wasserwarp_grpc_server_started_total", Rpc(method)), 1.0) << method;
    EXPECT_EQ(validated.Count("wasserwarp_grpc_server_handled_total", Rpc(method)), 1.0) << method;
  }
}

TEST_F(MetricsTest, ErrorsAreCountedByStatusCodeForUnaryAndStreamingCalls) {
  EXPECT_EQ(GetSession("sessions/none").status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(GetSession("sessions/none").status().code(), absl::StatusCode::kNotFound);
  std::vector<v1::ValidateResponse> events;
  EXPECT_EQ(ValidateAll(ValidateRequestFor("sessions/none"), events).error_code(),
            grpc::StatusCode::NOT_FOUND);
  EXPECT_EQ(CreateSession("bad id!").error_code(), grpc::StatusCode::INVALID_ARGUMENT);

  const Scrape scrape = ScrapeMetrics();
  EXPECT_EQ(scrape.Count("wasserwarp_grpc_server_handled_total", Rpc("GetSession", "NOT_FOUND")),
            2.0);
  EXPECT_EQ(scrape.Count("wasserwarp_grpc_server_handled_total", Rpc("GetSession", "OK")), 0.0);
  EXPECT_EQ(scrape.Count("wasserwarp_grpc_server_handled_total", Rpc("Validate", "NOT_FOUND")),
            1.0);
  EXPECT_EQ(scrape.Count("wasserwarp_grpc_server_handled_total",
                         Rpc("CreateSession", "INVALID_ARGUMENT")),
            1.0);
  EXPECT_EQ(scrape.Value("wasserwarp_grpc_server_handling_seconds_count", Rpc("GetSession")), 2.0);
}

TEST_F(MetricsTest, HealthChecksAreCountedToo) {
  ASSERT_TRUE(UnaryCall("/grpc.health.v1.Health/Check").ok());
  const Scrape scrape = ScrapeMetrics();
  EXPECT_EQ(scrape.Count("wasserwarp_grpc_server_handled_total",
                         {{"grpc_service", "grpc.health.v1.Health"},
                          {"grpc_method", "Check"},
                          {"grpc_type", "unary"},
                          {"grpc_code", "OK"}}),
            1.0);
}

// Made-up method names share one set of labels, so no client can grow the
// metrics without bound.
TEST_F(MetricsTest, UnknownMethodsCountUnderOneLabel) {
  EXPECT_EQ(UnaryCall("/no.such.Service/Method1").error_code(), grpc::StatusCode::UNIMPLEMENTED);
  EXPECT_EQ(UnaryCall("/no.such.Service/Method2").error_code(), grpc::StatusCode::UNIMPLEMENTED);
  EXPECT_EQ(UnaryCall("/wasserwarp.v1.ValidationService/NoSuchMethod").error_code(),
            grpc::StatusCode::UNIMPLEMENTED);
  const Scrape scrape = ScrapeMetrics();
  EXPECT_EQ(scrape.Count("wasserwarp_grpc_server_handled_total", {{"grpc_service", "unknown"},
                                                                  {"grpc_method", "unknown"},
                                                                  {"grpc_code", "UNIMPLEMENTED"}}),
            3.0);
  // Those were the only calls.
  for (const MetricSample& sample : scrape.samples()) {
    const auto method = sample.labels.find("grpc_method");
    if (method != sample.labels.end()) {
      EXPECT_EQ(method->second, "unknown") << sample.name;
    }
  }
}

TEST_F(MetricsTest, QueuedRunningAndCancelledJobs) {
  ServerConfig config = MetricsConfig();
  config.jobs.max_concurrent_jobs = 1;
  StartServer(config);
  ASSERT_TRUE(CreateSession("rig7").ok());
  // Every pair of 24 x 24 runs of 12000 samples, 8e10 DP cells: computing for many seconds,
  // long after the scrapes, until it is cancelled. Exhaustive, so that how long it runs does not
  // depend on what the lazy transport's bounds save: with 2e10 cells on the default path the
  // first scrape failed to see it running once in about ten runs.
  ASSERT_TRUE(Upload(kSession, RandomWalkRuns("sim", 24, 12000, 12000, 1, 1),
                     RandomWalkRuns("ref", 24, 12000, 12000, 1, 2))
                  .ok());

  grpc::ClientContext running_context;
  v1::ValidateRequest every_pair = ValidateRequestFor(kSession);
  every_pair.set_exhaustive(true);
  auto running = stub_->Validate(&running_context, every_pair);
  v1::ValidateResponse event;
  while (running->Read(&event) &&
         !(event.has_progress() && event.progress().phase() == v1::PHASE_COST_MATRIX)) {
  }
  grpc::ClientContext waiting_context;
  auto waiting = stub_->Validate(&waiting_context, ValidateRequestFor(kSession));
  // The waiting validation is queued in the store, not on the job queue.
  ScrapeUntil([](const Scrape& scrape) {
    return scrape.Value("wasserwarp_jobs_running") == 1.0 &&
           scrape.Value("wasserwarp_validation_queue_depth") == 1.0 &&
           scrape.Value("wasserwarp_validation_leases_held") == 1.0 &&
           scrape.Value("wasserwarp_validations", {{"state", "running"}}) == 1.0;
  });

  // The waiting validation is cancelled before the running one stops, so that it never gets
  // the slot.
  waiting_context.TryCancel();
  while (waiting->Read(&event)) {
  }
  // Its call ends after the store has it cancelled; the validation gauges, read from the
  // store at most every 2 s, could lag until the running one has finished.
  ScrapeUntil([](const Scrape& scrape) {
    return scrape.Count("wasserwarp_grpc_server_handled_total", Rpc("Validate", "CANCELLED")) ==
           1.0;
  });
  running_context.TryCancel();
  while (running->Read(&event)) {
  }
  EXPECT_EQ(waiting->Finish().error_code(), grpc::StatusCode::CANCELLED);
  EXPECT_EQ(running->Finish().error_code(), grpc::StatusCode::CANCELLED);

  const Scrape scrape = ScrapeUntil([](const Scrape& scrape) {
    return scrape.Count("wasserwarp_grpc_server_handled_total", Rpc("Validate")) == 2.0 &&
           scrape.Count("wasserwarp_job_duration_seconds_count") == 1.0 &&
           scrape.Value("wasserwarp_validations", {{"state", "cancelled"}}) == 2.0;
  });
  EXPECT_EQ(scrape.Count("wasserwarp_grpc_server_handled_total", Rpc("Validate", "CANCELLED")),
            2.0);
  EXPECT_EQ(scrape.Value("wasserwarp_jobs_running"), 0.0);
  EXPECT_EQ(scrape.Value("wasserwarp_validation_queue_depth"), 0.0);
  EXPECT_EQ(scrape.Value("wasserwarp_validation_leases_held"), 0.0);
  EXPECT_GT(scrape.Count("wasserwarp_database_call_seconds_count", {{"call", "Claim"}}), 0.0);
  EXPECT_EQ(scrape.Value("wasserwarp_job_duration_seconds_count", {{"code", "CANCELLED"}}), 1.0);
  // Cells count when a job ends, cancelled or not: what it did before it stopped.
  const std::optional<JobStats> ran =
      jobs_.WaitFor([](const JobStats& stats) { return stats.started; });
  ASSERT_TRUE(ran.has_value());
  EXPECT_EQ(scrape.Value("wasserwarp_dp_cells_total"),
            static_cast<double>(ran->outcome.cells_done));
}

// gRPC cancels a call whose deadline passes and the reactor ends it as cancelled, but the
// client sees DEADLINE_EXCEEDED, and so do the metrics and the log line.
TEST_F(MetricsTest, AnExpiredDeadlineCountsAsDeadlineExceeded) {
  ASSERT_TRUE(CreateSession("rig7").ok());
  // About 2e10 DP cells: computing for seconds, long after the deadline.
  ASSERT_TRUE(Upload(kSession, RandomWalkRuns("sim", 24, 6000, 6000, 1, 1),
                     RandomWalkRuns("ref", 24, 6000, 6000, 1, 2))
                  .ok());
  std::ostringstream log;
  const std::shared_ptr<spdlog::logger> previous_logger = spdlog::default_logger();
  auto capture = std::make_shared<spdlog::logger>(
      "capture", std::make_shared<spdlog::sinks::ostream_sink_mt>(log));
  capture->set_level(spdlog::level::info);
  spdlog::set_default_logger(capture);

  std::vector<v1::ValidateResponse> events;
  EXPECT_EQ(ValidateAll(ValidateRequestFor(kSession), events, absl::Milliseconds(500)).error_code(),
            grpc::StatusCode::DEADLINE_EXCEEDED);
  const Scrape scrape = ScrapeUntil([](const Scrape& scrape) {
    return scrape.Count("wasserwarp_grpc_server_handled_total", Rpc("Validate")) == 1.0;
  });
  spdlog::set_default_logger(previous_logger);
  EXPECT_EQ(
      scrape.Count("wasserwarp_grpc_server_handled_total", Rpc("Validate", "DEADLINE_EXCEEDED")),
      1.0);
  EXPECT_EQ(scrape.Count("wasserwarp_grpc_server_handled_total", Rpc("Validate", "CANCELLED")),
            0.0);
  // The line is written before the status is sent, hence before the scrape saw it.
  capture->flush();
  EXPECT_THAT(log.str(), HasSubstr("rpc Validate"));
  EXPECT_THAT(log.str(), HasSubstr("status=DEADLINE_EXCEEDED"));
  EXPECT_THAT(log.str(), Not(HasSubstr("status=CANCELLED")));
}

TEST_F(MetricsTest, OnlyMetricsPathIsServed) {
  EXPECT_THAT(HttpGet(server_->metrics_address(), "/other").status_line, HasSubstr(" 404 "));
}

TEST(MetricsEndpointTest, NoEndpointWithoutMetricsListen) {
  absl::StatusOr<std::unique_ptr<ValidationServer>> server = ValidationServer::Start(TestConfig());
  ASSERT_TRUE(server.ok()) << server.status();
  EXPECT_EQ((*server)->metrics_address(), "");
}

TEST(MetricsEndpointTest, TakenPortIsUnavailableNamingTheFlag) {
  ServerConfig config = TestConfig();
  config.metrics_listen = "127.0.0.1:0";
  absl::StatusOr<std::unique_ptr<ValidationServer>> first = ValidationServer::Start(config);
  ASSERT_TRUE(first.ok()) << first.status();
  config.metrics_listen = (*first)->metrics_address();
  absl::StatusOr<std::unique_ptr<ValidationServer>> second = ValidationServer::Start(config);
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(std::string(second.status().message()),
              HasSubstr("--metrics_listen: cannot listen on " + config.metrics_listen));
}

TEST(MetricsEndpointTest, Ipv6IsInvalidArgumentNamingTheFlag) {
  ServerConfig config = TestConfig();
  config.metrics_listen = "[::1]:0";
  absl::StatusOr<std::unique_ptr<ValidationServer>> server = ValidationServer::Start(config);
  ASSERT_FALSE(server.ok());
  EXPECT_EQ(server.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(server.status().message()), HasSubstr("--metrics_listen: [::1]:0"));
}

TEST(MetricsInterceptorTest, KnowsTheRequestTypeOfEveryValidationServiceMethod) {
  const google::protobuf::ServiceDescriptor* service =
      google::protobuf::DescriptorPool::generated_pool()->FindServiceByName(kService);
  ASSERT_NE(service, nullptr);
  for (int i = 0; i < service->method_count(); ++i) {
    const std::string path = "/" + service->full_name() + "/" + service->method(i)->name();
    EXPECT_NE(ReceivedSizeOf(path), nullptr) << path;
  }
  v1::GetSessionRequest request;
  request.set_name("sessions/rig7");
  EXPECT_EQ(ReceivedSizeOf("/wasserwarp.v1.ValidationService/GetSession")(&request),
            request.ByteSizeLong());
  EXPECT_EQ(ReceivedSizeOf("/grpc.health.v1.Health/Check"), nullptr);
}

TEST(RpcLabelsTest, SplitsServiceAndMethod) {
  const RpcLabels labels =
      RpcLabelsOf("/wasserwarp.v1.ValidationService/Validate", "server_stream");
  EXPECT_EQ(labels.service, "wasserwarp.v1.ValidationService");
  EXPECT_EQ(labels.method, "Validate");
  EXPECT_EQ(labels.type, "server_stream");
  EXPECT_EQ(RpcLabelsOf("odd", "unary").service, "");
  EXPECT_EQ(RpcLabelsOf("odd", "unary").method, "odd");
}

}  // namespace
}  // namespace wasserwarp::service::testing
