// A bounded load test of wasserwarp-server over loopback: N clients, each
// with its own connection, for T seconds create a session, upload runs into
// it, validate it and delete it, over and over. Then it prints requests per
// second, p50/p95/p99 latency per RPC, errors by status code and, when it
// started the server itself, the server's resident memory at the start and
// after every tenth of the run. Exit status 0 only when no call failed and
// the server it started exited 0 on SIGTERM.
//
//   load [--server 127.0.0.1:PORT] [--clients 32] [--seconds 60]
//        [--runs-per-session 4] [--samples 1000] [--channels 1]
//
// Without --server it starts the wasserwarp-server it was built with on a
// free loopback port, with its own data directory, and stops it at the end.

#include <grpcpp/grpcpp.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/strip.h"
#include "e2e_process.h"
#include "nearest_rank.h"
#include "random_runs.h"
#include "temporary_directory.h"
#include "wasserwarp/v1/validation.grpc.pb.h"

namespace wasserwarp::bench {
namespace {

using Clock = std::chrono::steady_clock;

// Long enough for a validation queued behind every other client's.
constexpr auto kCallDeadline = std::chrono::seconds(60);

struct Options {
  std::string server;  // empty: start one here
  int clients = 32;
  int seconds = 60;
  int runs_per_session = 4;
  int samples = 1000;
  int channels = 1;
};

enum Rpc { kCreateSession, kUploadSeries, kValidate, kDeleteSession, kRpcCount };
constexpr std::array<const char*, kRpcCount> kRpcNames = {"CreateSession", "UploadSeries",
                                                          "Validate", "DeleteSession"};

// One client's record; merged once every client has stopped.
struct Record {
  std::array<std::vector<double>, kRpcCount> latency_ms;
  std::map<int, int64_t> errors;  // by grpc::StatusCode
  std::string first_error;

  void Add(Rpc rpc, Clock::time_point start, const grpc::Status& status) {
    latency_ms[rpc].push_back(
        std::chrono::duration<double, std::milli>(Clock::now() - start).count());
    if (status.ok()) return;
    ++errors[status.error_code()];
    if (first_error.empty()) {
      first_error = absl::StrCat(kRpcNames[rpc], ": ", status.error_message());
    }
  }
};

int Fail(const std::string& message) {
  std::fprintf(stderr, "load: %s\n", message.c_str());
  return 2;
}

std::optional<Options> ParseOptions(int argc, char** argv, std::string& error) {
  Options options;
  const std::map<std::string, int*> numbers = {{"--clients", &options.clients},
                                               {"--seconds", &options.seconds},
                                               {"--runs-per-session", &options.runs_per_session},
                                               {"--samples", &options.samples},
                                               {"--channels", &options.channels}};
  for (int k = 1; k < argc; k += 2) {
    const std::string flag = argv[k];
    if (k + 1 >= argc) {
      error = absl::StrCat(flag, " needs a value");
      return std::nullopt;
    }
    const std::string value = argv[k + 1];
    if (flag == "--server") {
      options.server = value;
    } else if (const auto it = numbers.find(flag); it != numbers.end()) {
      if (!absl::SimpleAtoi(value, it->second) || *it->second < 1) {
        error = absl::StrCat(flag, " takes a positive integer, got \"", value, "\"");
        return std::nullopt;
      }
    } else {
      error = absl::StrCat("unknown flag ", flag,
                           "; usage: load [--server 127.0.0.1:PORT] [--clients N] [--seconds T] "
                           "[--runs-per-session N] [--samples N] [--channels N]");
      return std::nullopt;
    }
  }
  // A load test aimed at someone else's server would be an attack.
  if (!options.server.empty() && !absl::StartsWith(options.server, "127.0.0.1:") &&
      !absl::StartsWith(options.server, "localhost:") &&
      !absl::StartsWith(options.server, "[::1]:")) {
    error = absl::StrCat("--server must be a loopback address (127.0.0.1:PORT, localhost:PORT or ",
                         "[::1]:PORT), got \"", options.server, "\"");
    return std::nullopt;
  }
  return options;
}

// VmRSS and VmHWM of process `pid` from /proc, in KiB.
std::pair<int64_t, int64_t> Memory(pid_t pid) {
  std::ifstream status(absl::StrCat("/proc/", pid, "/status"));
  int64_t rss = -1;
  int64_t peak = -1;
  for (std::string line; std::getline(status, line);) {
    absl::string_view rest = line;
    if (absl::ConsumePrefix(&rest, "VmRSS:")) {
      (void)absl::SimpleAtoi(absl::StripSuffix(absl::StripAsciiWhitespace(rest), " kB"), &rss);
    } else if (absl::ConsumePrefix(&rest, "VmHWM:")) {
      (void)absl::SimpleAtoi(absl::StripSuffix(absl::StripAsciiWhitespace(rest), " kB"), &peak);
    }
  }
  return {rss, peak};
}

// One client's session: its runs as upload messages, the session named on
// the first one.
std::vector<v1::UploadSeriesRequest> UploadMessages(const Options& options, int client) {
  std::vector<v1::UploadSeriesRequest> messages;
  constexpr int kChunkSamples = 1000;
  for (v1::Role role : {v1::ROLE_SIMULATION, v1::ROLE_REFERENCE}) {
    const std::vector<Series> runs = test_data::RandomWalkRuns(
        role == v1::ROLE_SIMULATION ? "sim" : "ref", options.runs_per_session, options.samples,
        options.samples, options.channels, static_cast<uint64_t>(2 * client + role));
    for (const Series& run : runs) {
      v1::UploadSeriesRequest header;
      header.mutable_header()->set_role(role);
      header.mutable_header()->set_series_id(run.id);
      for (const std::string& channel : run.channels)
        header.mutable_header()->add_channels(channel);
      messages.push_back(std::move(header));
      for (size_t begin = 0; begin < run.samples(); begin += kChunkSamples) {
        const size_t end = std::min(run.samples(), begin + kChunkSamples);
        v1::UploadSeriesRequest chunk;
        chunk.mutable_chunk()->mutable_times()->Add(run.times.begin() + begin,
                                                    run.times.begin() + end);
        chunk.mutable_chunk()->mutable_values()->Add(
            run.values.begin() + begin * run.num_channels(),
            run.values.begin() + end * run.num_channels());
        messages.push_back(std::move(chunk));
      }
      v1::UploadSeriesRequest end;
      end.mutable_end()->set_expected_samples(static_cast<int64_t>(run.samples()));
      messages.push_back(std::move(end));
    }
  }
  return messages;
}

void SetDeadline(grpc::ClientContext& context) {
  context.set_deadline(std::chrono::system_clock::now() + kCallDeadline);
}

// Create, upload, validate, delete until `stop`.
Record RunClient(const Options& options, const std::string& address, int client,
                 const std::atomic<bool>& stop) {
  grpc::ChannelArguments args;
  // Each client on a connection of its own, as separate benches would be.
  args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
  args.SetMaxReceiveMessageSize(-1);
  const std::unique_ptr<v1::ValidationService::Stub> stub = v1::ValidationService::NewStub(
      grpc::CreateCustomChannel(address, grpc::InsecureChannelCredentials(), args));
  std::vector<v1::UploadSeriesRequest> messages = UploadMessages(options, client);
  Record record;
  for (int iteration = 0; !stop.load(std::memory_order_relaxed); ++iteration) {
    const std::string id = absl::StrCat("load-", client, "-", iteration);
    const std::string name = absl::StrCat("sessions/", id);
    {
      grpc::ClientContext context;
      SetDeadline(context);
      v1::CreateSessionRequest request;
      request.set_session_id(id);
      v1::CreateSessionResponse response;
      const Clock::time_point start = Clock::now();
      const grpc::Status status = stub->CreateSession(&context, request, &response);
      record.Add(kCreateSession, start, status);
      if (!status.ok()) continue;
    }
    bool uploaded = false;
    {
      grpc::ClientContext context;
      SetDeadline(context);
      v1::UploadSeriesResponse response;
      messages.front().set_session(name);
      const Clock::time_point start = Clock::now();
      std::unique_ptr<grpc::ClientWriter<v1::UploadSeriesRequest>> writer =
          stub->UploadSeries(&context, &response);
      for (const v1::UploadSeriesRequest& message : messages) {
        if (!writer->Write(message)) break;
      }
      writer->WritesDone();
      const grpc::Status status = writer->Finish();
      record.Add(kUploadSeries, start, status);
      uploaded = status.ok();
    }
    if (uploaded) {
      grpc::ClientContext context;
      SetDeadline(context);
      v1::ValidateRequest request;
      request.set_session(name);
      const Clock::time_point start = Clock::now();
      std::unique_ptr<grpc::ClientReader<v1::ValidateResponse>> reader =
          stub->Validate(&context, request);
      v1::ValidateResponse event;
      bool reported = false;
      while (reader->Read(&event)) reported = reported || event.has_report();
      grpc::Status status = reader->Finish();
      if (status.ok() && !reported) {
        status = grpc::Status(grpc::StatusCode::INTERNAL, "the stream ended without a report");
      }
      record.Add(kValidate, start, status);
    }
    {
      grpc::ClientContext context;
      SetDeadline(context);
      v1::DeleteSessionRequest request;
      request.set_name(name);
      v1::DeleteSessionResponse response;
      const Clock::time_point start = Clock::now();
      record.Add(kDeleteSession, start, stub->DeleteSession(&context, request, &response));
    }
  }
  return record;
}

std::string Mib(int64_t kib) {
  return absl::StrFormat("%.1f MiB", static_cast<double>(kib) / 1024);
}

int Main(int argc, char** argv) {
  std::string error;
  const std::optional<Options> options = ParseOptions(argc, argv, error);
  if (!options.has_value()) return Fail(error);

  const TemporaryDirectory scratch("wasserwarp-load-");
  std::unique_ptr<e2e::ServerProcess> child;
  std::string address = options->server;
  if (address.empty()) {
    if (scratch.path().empty()) return Fail("cannot create a scratch directory");
    absl::StatusOr<std::unique_ptr<e2e::ServerProcess>> started =
        e2e::ServerProcess::Start(WASSERWARP_SERVER, scratch.path(), {"--log_level=warn"});
    if (!started.ok()) return Fail(std::string(started.status().message()));
    child = *std::move(started);
    address = child->address();
  }
  std::printf(
      "load: %d clients for %d s against %s%s; per session %d+%d runs of %d samples x %d "
      "channel(s)\n",
      options->clients, options->seconds, address.c_str(), child ? " (started here)" : "",
      options->runs_per_session, options->runs_per_session, options->samples, options->channels);
  std::fflush(stdout);

  // The server's RSS at the start and after each tenth of the run: flat once warm, or not.
  constexpr int kMemorySamples = 10;
  std::vector<std::pair<int64_t, int64_t>> memory;
  if (child) memory.push_back(Memory(child->pid()));
  std::atomic<bool> stop = false;
  std::vector<Record> records(options->clients);
  std::vector<std::thread> clients;
  const Clock::time_point start = Clock::now();
  for (int c = 0; c < options->clients; ++c) {
    clients.emplace_back([&, c] { records[c] = RunClient(*options, address, c, stop); });
  }
  for (int k = 1; k <= kMemorySamples; ++k) {
    std::this_thread::sleep_until(start +
                                  std::chrono::seconds(options->seconds) * k / kMemorySamples);
    if (child) memory.push_back(Memory(child->pid()));
  }
  stop = true;
  for (std::thread& client : clients) client.join();
  const double elapsed = std::chrono::duration<double>(Clock::now() - start).count();

  Record all;
  for (Record& record : records) {
    for (int rpc = 0; rpc < kRpcCount; ++rpc) {
      all.latency_ms[rpc].insert(all.latency_ms[rpc].end(), record.latency_ms[rpc].begin(),
                                 record.latency_ms[rpc].end());
    }
    for (const auto& [code, count] : record.errors) all.errors[code] += count;
    if (all.first_error.empty()) all.first_error = record.first_error;
  }
  std::printf("%-14s %9s %9s %9s %9s %9s\n", "rpc", "calls", "calls/s", "p50 ms", "p95 ms",
              "p99 ms");
  size_t total = 0;
  for (int rpc = 0; rpc < kRpcCount; ++rpc) {
    std::vector<double>& latencies = all.latency_ms[rpc];
    std::sort(latencies.begin(), latencies.end());
    total += latencies.size();
    std::printf("%-14s %9zu %9.1f %9.2f %9.2f %9.2f\n", kRpcNames[rpc], latencies.size(),
                static_cast<double>(latencies.size()) / elapsed, NearestRank(latencies, 0.50),
                NearestRank(latencies, 0.95), NearestRank(latencies, 0.99));
  }
  std::printf("%-14s %9zu %9.1f   (%.1f s)\n", "all", total, static_cast<double>(total) / elapsed,
              elapsed);
  std::string errors;
  for (const auto& [code, count] : all.errors) {
    absl::StrAppend(&errors, errors.empty() ? "" : ", ",
                    absl::StatusCodeToString(static_cast<absl::StatusCode>(code)), " x ", count);
  }
  std::printf("errors by status code: %s\n", errors.empty() ? "none" : errors.c_str());
  if (!all.first_error.empty()) std::printf("first error: %s\n", all.first_error.c_str());
  int exit_code = all.errors.empty() ? 0 : 1;
  if (child) {
    std::string timeline;
    for (const auto& [rss, peak] : memory) {
      absl::StrAppend(&timeline, timeline.empty() ? "" : " ",
                      absl::StrFormat("%.1f", static_cast<double>(rss) / 1024));
    }
    std::printf("server RSS: start %s, middle %s, end %s; peak %s\n",
                Mib(memory.front().first).c_str(), Mib(memory[kMemorySamples / 2].first).c_str(),
                Mib(memory.back().first).c_str(), Mib(memory.back().second).c_str());
    std::printf("server RSS every %.1f s (MiB): %s\n",
                static_cast<double>(options->seconds) / kMemorySamples, timeline.c_str());
    const int server_exit = child->Stop(std::chrono::seconds(30));
    std::printf("server exit status after SIGTERM: %d\n", server_exit);
    if (server_exit != 0) exit_code = 1;
  }
  return exit_code;
}

}  // namespace
}  // namespace wasserwarp::bench

int main(int argc, char** argv) { return wasserwarp::bench::Main(argc, argv); }
