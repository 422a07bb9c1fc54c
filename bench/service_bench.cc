// The service over loopback as a bench sees it, through the C++ client library against a
// real `wasserwarp-server` child process: how fast sample data uploads, and how long a small
// validation (10 x 10 runs of 500 samples) takes from request to report, as p50 and p99. The
// server keeps its state in SQLite, or in PostgreSQL with WASSERWARP_BENCH_POSTGRES_URL set.

#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "e2e_process.h"
#include "nearest_rank.h"
#include "random_runs.h"
#include "temporary_directory.h"
#include "validation_client.h"

namespace wasserwarp {
namespace {

using Clock = std::chrono::steady_clock;

// One server for the whole program, so that every benchmark talks to a warm process.
class Service {
 public:
  Service() {
    if (scratch_.path().empty()) {
      error_ = "cannot create a scratch directory";
      return;
    }
    // With WASSERWARP_BENCH_POSTGRES_URL, the server keeps its state there (an empty database
    // of its own, or one it made before) rather than in SQLite under its data directory.
    std::vector<std::string> args = {"--log_level=warn"};
    if (const char* url = std::getenv("WASSERWARP_BENCH_POSTGRES_URL"); url != nullptr) {
      args.push_back(absl::StrCat("--postgres_url=", url));
    }
    absl::StatusOr<std::unique_ptr<e2e::ServerProcess>> server =
        e2e::ServerProcess::Start(WASSERWARP_SERVER, scratch_.path(), args);
    if (!server.ok()) {
      error_ = std::string(server.status().message());
      return;
    }
    server_ = *std::move(server);
    absl::StatusOr<std::unique_ptr<client::ValidationClient>> client =
        client::ValidationClient::Connect(server_->address());
    if (!client.ok()) {
      error_ = std::string(client.status().message());
      return;
    }
    client_ = *std::move(client);
  }

  // The server's exit status after SIGTERM.
  int Stop() {
    client_.reset();
    return server_ == nullptr ? 0 : server_->Stop();
  }

  client::ValidationClient* client() { return client_.get(); }
  const std::string& error() const { return error_; }

  std::string NewSessionId() { return absl::StrCat("bench-", ++sessions_); }

 private:
  // Outlives the server, whose data directory and log it holds.
  const bench::TemporaryDirectory scratch_{"service_bench_"};
  std::unique_ptr<e2e::ServerProcess> server_;
  std::unique_ptr<client::ValidationClient> client_;
  std::string error_;
  int sessions_ = 0;
};

Service* service_under_test = nullptr;

size_t SampleBytes(const std::vector<Series>& runs) {
  size_t bytes = 0;
  for (const Series& run : runs) bytes += sizeof(double) * (run.times.size() + run.values.size());
  return bytes;
}

// Nearest-rank percentile, q in (0, 1].
double Percentile(std::vector<double> values, double q) {
  std::sort(values.begin(), values.end());
  return bench::NearestRank(values, q);
}

// End-to-end latencies, and the p50 of the validation's own time on the server, which shows
// what the service adds.
void ReportLatencies(benchmark::State& state, const std::vector<double>& seconds,
                     const std::vector<double>& validation_seconds) {
  state.counters["p50_ms"] = 1e3 * Percentile(seconds, 0.50);
  state.counters["p99_ms"] = 1e3 * Percentile(seconds, 0.99);
  state.counters["validation_p50_ms"] = 1e3 * Percentile(validation_seconds, 0.50);
}

// Ten runs per stream; only the upload is timed, session creation and deletion are not.
void BM_Upload(benchmark::State& state) {
  Service& service = *service_under_test;
  if (service.client() == nullptr) return state.SkipWithError(service.error().c_str());
  const std::vector<Series> runs =
      test_data::RandomWalkRuns("run", 10, state.range(0), state.range(0), state.range(1), 1);
  for (auto _ : state) {
    state.PauseTiming();
    const std::string id = service.NewSessionId();
    absl::Status created = service.client()->CreateSession(id, v1::Session()).status();
    state.ResumeTiming();
    absl::Status uploaded =
        created.ok() ? service.client()->UploadRuns(id, {}, runs).status() : created;
    state.PauseTiming();
    if (created.ok()) service.client()->DeleteSession(id).IgnoreError();
    state.ResumeTiming();
    if (!uploaded.ok()) return state.SkipWithError(std::string(uploaded.message()).c_str());
  }
  const double bytes = static_cast<double>(SampleBytes(runs));
  state.SetBytesProcessed(static_cast<int64_t>(bytes) * state.iterations());
  state.counters["MB_per_s"] =
      benchmark::Counter(bytes / 1e6, benchmark::Counter::kIsIterationInvariantRate);
}

BENCHMARK(BM_Upload)
    ->Args({100'000, 1})
    ->Args({100'000, 3})
    ->ArgNames({"samples", "channels"})
    ->Unit(benchmark::kMillisecond)
    ->MinTime(2.0)
    ->UseRealTime();

constexpr int kSmallRuns = 10;
constexpr int kSmallSamples = 500;
constexpr int kLatencySamples = 200;

// Validate on a session that already holds 10 x 10 runs: request to report.
void BM_SmallValidateLatency(benchmark::State& state) {
  Service& service = *service_under_test;
  if (service.client() == nullptr) return state.SkipWithError(service.error().c_str());
  const std::string id = service.NewSessionId();
  absl::Status ready = service.client()->CreateSession(id, v1::Session()).status();
  if (ready.ok()) {
    ready =
        service.client()
            ->UploadRuns(
                id,
                test_data::RandomWalkRuns("sim", kSmallRuns, kSmallSamples, kSmallSamples, 1, 2),
                test_data::RandomWalkRuns("ref", kSmallRuns, kSmallSamples, kSmallSamples, 1, 3))
            .status();
  }
  if (!ready.ok()) return state.SkipWithError(std::string(ready.message()).c_str());
  std::vector<double> seconds;
  std::vector<double> validation_seconds;
  for (auto _ : state) {
    const Clock::time_point start = Clock::now();
    absl::StatusOr<ValidationReport> report = service.client()->Validate(id, {}, false);
    const double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
    if (!report.ok()) return state.SkipWithError(std::string(report.status().message()).c_str());
    state.SetIterationTime(elapsed);
    seconds.push_back(elapsed);
    validation_seconds.push_back(report->seconds);
  }
  service.client()->DeleteSession(id).IgnoreError();
  ReportLatencies(state, seconds, validation_seconds);
}

BENCHMARK(BM_SmallValidateLatency)
    ->Iterations(kLatencySamples)
    ->Unit(benchmark::kMillisecond)
    ->UseManualTime();

// What a one-off `validate --server` does: create, upload 10 x 10 runs, validate, delete.
void BM_SmallOneOffLatency(benchmark::State& state) {
  Service& service = *service_under_test;
  if (service.client() == nullptr) return state.SkipWithError(service.error().c_str());
  const std::vector<Series> sim =
      test_data::RandomWalkRuns("sim", kSmallRuns, kSmallSamples, kSmallSamples, 1, 2);
  const std::vector<Series> ref =
      test_data::RandomWalkRuns("ref", kSmallRuns, kSmallSamples, kSmallSamples, 1, 3);
  std::vector<double> seconds;
  std::vector<double> validation_seconds;
  for (auto _ : state) {
    const Clock::time_point start = Clock::now();
    const std::string id = service.NewSessionId();
    absl::Status status = service.client()->CreateSession(id, v1::Session()).status();
    if (status.ok()) status = service.client()->UploadRuns(id, sim, ref).status();
    absl::StatusOr<ValidationReport> report =
        status.ok() ? service.client()->Validate(id, {}, false) : status;
    absl::Status deleted = service.client()->DeleteSession(id);
    const double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
    if (!report.ok()) return state.SkipWithError(std::string(report.status().message()).c_str());
    if (!deleted.ok()) return state.SkipWithError(std::string(deleted.message()).c_str());
    state.SetIterationTime(elapsed);
    seconds.push_back(elapsed);
    validation_seconds.push_back(report->seconds);
  }
  ReportLatencies(state, seconds, validation_seconds);
}

BENCHMARK(BM_SmallOneOffLatency)
    ->Iterations(kLatencySamples)
    ->Unit(benchmark::kMillisecond)
    ->UseManualTime();

}  // namespace

int Main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  Service service;
  service_under_test = &service;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  if (const int status = service.Stop(); status != 0) {
    std::fprintf(stderr, "wasserwarp-server exit status %d after SIGTERM\n", status);
    return 1;
  }
  return 0;
}

}  // namespace wasserwarp

int main(int argc, char** argv) { return wasserwarp::Main(argc, argv); }
