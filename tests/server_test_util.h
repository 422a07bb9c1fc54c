// The service in-process on a free loopback port, with a stub and helpers
// for the server tests.

#ifndef WASSERWARP_TESTS_SERVER_TEST_UTIL_H_
#define WASSERWARP_TESTS_SERVER_TEST_UTIL_H_

#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "server.h"
#include "spdlog/spdlog.h"
#include "wasserwarp/series.h"
#include "wasserwarp/v1/validation.grpc.pb.h"
#include "wasserwarp/validation.h"
#include "wire/convert.h"
#include "wire/report_chunks.h"

namespace wasserwarp::service::testing {

// Every job's end as the queue reports it, waitable.
class JobLog {
 public:
  JobQueue::Observer Observer() {
    return [this](const JobStats& stats) {
      absl::MutexLock lock(&mu_);
      ended_.push_back(stats);
    };
  }

  // The first ended job that `match` accepts, waiting up to `timeout`.
  std::optional<JobStats> WaitFor(std::function<bool(const JobStats&)> match,
                                  absl::Duration timeout = absl::Seconds(5)) {
    absl::MutexLock lock(&mu_);
    std::optional<JobStats> found;
    const auto done = [&] {
      for (const JobStats& stats : ended_) {
        if (match(stats)) {
          found = stats;
          return true;
        }
      }
      return false;
    };
    mu_.AwaitWithTimeout(absl::Condition(&done), timeout);
    return found;
  }

 private:
  absl::Mutex mu_;
  std::vector<JobStats> ended_ ABSL_GUARDED_BY(mu_);
};

// Small limits unless a test says otherwise, two threads per job.
inline ServerConfig TestConfig() {
  ServerConfig config;
  config.listen = "127.0.0.1:0";
  config.jobs.job_threads = 2;
  return config;
}

class ServerTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { spdlog::set_level(spdlog::level::warn); }

  void SetUp() override { StartServer(TestConfig()); }

  void StartServer(const ServerConfig& config) {
    stub_.reset();
    server_.reset();
    absl::StatusOr<std::unique_ptr<ValidationServer>> server =
        ValidationServer::Start(config, jobs_.Observer());
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = *std::move(server);
    grpc::ChannelArguments args;
    args.SetMaxReceiveMessageSize(-1);
    channel_ =
        grpc::CreateCustomChannel(server_->address(), grpc::InsecureChannelCredentials(), args);
    stub_ = v1::ValidationService::NewStub(channel_);
  }

  grpc::Status CreateSession(const std::string& id, const v1::Session& settings = {}) {
    grpc::ClientContext context;
    v1::CreateSessionRequest request;
    request.set_session_id(id);
    *request.mutable_session() = settings;
    v1::CreateSessionResponse response;
    return stub_->CreateSession(&context, request, &response);
  }

  absl::StatusOr<v1::Session> GetSession(const std::string& name) {
    grpc::ClientContext context;
    v1::GetSessionRequest request;
    request.set_name(name);
    v1::GetSessionResponse response;
    grpc::Status status = stub_->GetSession(&context, request, &response);
    if (!status.ok()) {
      return absl::Status(static_cast<absl::StatusCode>(status.error_code()),
                          status.error_message());
    }
    return response.session();
  }

  // Sends `messages` as one upload stream.
  grpc::Status UploadMessages(const std::vector<v1::UploadSeriesRequest>& messages,
                              v1::UploadSeriesResponse* response = nullptr) {
    grpc::ClientContext context;
    v1::UploadSeriesResponse ignored;
    std::unique_ptr<grpc::ClientWriter<v1::UploadSeriesRequest>> writer =
        stub_->UploadSeries(&context, response != nullptr ? response : &ignored);
    for (const v1::UploadSeriesRequest& message : messages) {
      if (!writer->Write(message)) break;
    }
    writer->WritesDone();
    return writer->Finish();
  }

  // The runs as a stream of header, chunks of at most `chunk_samples`, end.
  static void AppendRun(const std::string& session, v1::Role role, const Series& run,
                        std::vector<v1::UploadSeriesRequest>& messages,
                        std::optional<double> weight = std::nullopt, size_t chunk_samples = 1000) {
    v1::UploadSeriesRequest header;
    header.set_session(session);
    header.mutable_header()->set_role(role);
    header.mutable_header()->set_series_id(run.id);
    for (const std::string& channel : run.channels) header.mutable_header()->add_channels(channel);
    for (const std::string& unit : run.units) header.mutable_header()->add_units(unit);
    if (weight.has_value()) header.mutable_header()->set_weight(*weight);
    messages.push_back(header);
    for (size_t begin = 0; begin < run.samples(); begin += chunk_samples) {
      const size_t end = std::min(run.samples(), begin + chunk_samples);
      v1::UploadSeriesRequest chunk;
      for (size_t i = begin; i < end; ++i) {
        chunk.mutable_chunk()->add_times(run.times[i]);
        for (size_t c = 0; c < run.num_channels(); ++c) {
          chunk.mutable_chunk()->add_values(run.value(i, c));
        }
      }
      messages.push_back(std::move(chunk));
    }
    v1::UploadSeriesRequest end;
    end.mutable_end()->set_expected_samples(static_cast<int64_t>(run.samples()));
    messages.push_back(end);
  }

  grpc::Status Upload(const std::string& session, const std::vector<Series>& simulation,
                      const std::vector<Series>& reference) {
    std::vector<v1::UploadSeriesRequest> messages;
    for (const Series& run : simulation) AppendRun(session, v1::ROLE_SIMULATION, run, messages);
    for (const Series& run : reference) AppendRun(session, v1::ROLE_REFERENCE, run, messages);
    return UploadMessages(messages);
  }

  // Every event of a Validate call, and its status.
  grpc::Status ValidateAll(const v1::ValidateRequest& request,
                           std::vector<v1::ValidateResponse>& events,
                           std::optional<absl::Duration> deadline = std::nullopt) {
    grpc::ClientContext context;
    if (deadline.has_value()) context.set_deadline(absl::ToChronoTime(absl::Now() + *deadline));
    std::unique_ptr<grpc::ClientReader<v1::ValidateResponse>> reader =
        stub_->Validate(&context, request);
    v1::ValidateResponse event;
    while (reader->Read(&event)) events.push_back(event);
    return reader->Finish();
  }

  JobLog jobs_;
  std::unique_ptr<ValidationServer> server_;
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<v1::ValidationService::Stub> stub_;
};

inline v1::ValidateRequest ValidateRequestFor(const std::string& session) {
  v1::ValidateRequest request;
  request.set_session(session);
  return request;
}

// For tests that need a validation still computing when they act on it: every pair, as the lazy
// transport might prove most of them irrelevant and end sooner.
inline v1::ValidateRequest LongValidateRequestFor(const std::string& session) {
  v1::ValidateRequest request = ValidateRequestFor(session);
  request.set_exhaustive(true);
  return request;
}

// The report a Validate stream's events carry, put back together from its chunks.
inline absl::StatusOr<v1::ValidationReport> AssembledReport(
    const std::vector<v1::ValidateResponse>& events) {
  wire::ReportAssembler assembler;
  for (const v1::ValidateResponse& event : events) {
    absl::Status added = event.has_report()  ? assembler.AddReport(event.report())
                         : event.has_chunk() ? assembler.AddChunk(event.chunk())
                                             : absl::OkStatus();
    if (!added.ok()) return added;
  }
  return assembler.Finish();
}

// The same in the core's terms.
inline absl::StatusOr<ValidationReport> ServedReport(
    const std::vector<v1::ValidateResponse>& events) {
  absl::StatusOr<v1::ValidationReport> report = AssembledReport(events);
  if (!report.ok()) return report.status();
  return wire::ReportFromProto(*report);
}

}  // namespace wasserwarp::service::testing

#endif  // WASSERWARP_TESTS_SERVER_TEST_UTIL_H_
