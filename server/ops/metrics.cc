#include "ops/metrics.h"

#include <prometheus/counter.h>
#include <prometheus/family.h>
#include <prometheus/histogram.h>
#include <prometheus/registry.h>

#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace wasserwarp::service {
namespace {

// From a millisecond health check to a validation of many minutes.
const prometheus::Histogram::BucketBoundaries& SecondsBuckets() {
  static const auto* const buckets = new prometheus::Histogram::BucketBoundaries{
      0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5,
      1,     2.5,    5,     10,   25,    60,   150, 300,  600};
  return *buckets;
}

// "OK", "NOT_FOUND", ...: gRPC's codes are absl's.
std::string CodeName(int code) {
  std::string name = absl::StatusCodeToString(static_cast<absl::StatusCode>(code));
  return name.empty() ? absl::StrCat("CODE_", code) : name;
}

prometheus::Labels LabelsOf(const RpcLabels& rpc) {
  return {{"grpc_service", rpc.service}, {"grpc_method", rpc.method}, {"grpc_type", rpc.type}};
}

}  // namespace

RpcLabels RpcLabelsOf(std::string_view path, std::string type) {
  RpcLabels labels;
  labels.type = std::move(type);
  const size_t slash = path.rfind('/');
  if (path.size() > 1 && path.front() == '/' && slash > 0) {
    labels.service = std::string(path.substr(1, slash - 1));
    labels.method = std::string(path.substr(slash + 1));
  } else {
    labels.method = std::string(path);
  }
  return labels;
}

ServiceMetrics::ServiceMetrics()
    : registry_(std::make_shared<prometheus::Registry>()),
      rpc_started_(prometheus::BuildCounter()
                       .Name("wasserwarp_grpc_server_started_total")
                       .Help("RPCs started")
                       .Register(*registry_)),
      rpc_handled_(prometheus::BuildCounter()
                       .Name("wasserwarp_grpc_server_handled_total")
                       .Help("RPCs ended, by final status code")
                       .Register(*registry_)),
      rpc_seconds_(prometheus::BuildHistogram()
                       .Name("wasserwarp_grpc_server_handling_seconds")
                       .Help("Time from an RPC's start to its final status")
                       .Register(*registry_)),
      rpc_received_bytes_(prometheus::BuildCounter()
                              .Name("wasserwarp_grpc_server_received_bytes_total")
                              .Help("Serialized bytes of the messages received")
                              .Register(*registry_)),
      job_seconds_(prometheus::BuildHistogram()
                       .Name("wasserwarp_job_duration_seconds")
                       .Help("Time jobs ran, by outcome")
                       .Register(*registry_)),
      job_wait_seconds_(prometheus::BuildHistogram()
                            .Name("wasserwarp_job_wait_seconds")
                            .Help("Time jobs waited for a slot before they ran")
                            .Register(*registry_)
                            .Add({}, SecondsBuckets())),
      database_seconds_(prometheus::BuildHistogram()
                            .Name("wasserwarp_database_call_seconds")
                            .Help("Time calls of the validation store's database took, by call")
                            .Register(*registry_)),
      tiles_claimed_(prometheus::BuildCounter()
                         .Name("wasserwarp_tiles_claimed_total")
                         .Help("Cost-matrix tiles this replica claimed, by replica")
                         .Register(*registry_)),
      tiles_reclaimed_(prometheus::BuildCounter()
                           .Name("wasserwarp_tiles_reclaimed_total")
                           .Help("Claimed tiles whose earlier holder had lost its lease")
                           .Register(*registry_)),
      tiles_finished_(prometheus::BuildCounter()
                          .Name("wasserwarp_tiles_finished_total")
                          .Help("Tiles this replica computed and stored, by replica")
                          .Register(*registry_)),
      tiles_computing_(prometheus::BuildGauge()
                           .Name("wasserwarp_tiles_computing")
                           .Help("Tiles this replica is computing now, by replica")
                           .Register(*registry_)),
      tile_seconds_(prometheus::BuildHistogram()
                        .Name("wasserwarp_tile_compute_seconds")
                        .Help("Time from a tile's claim to its result stored, by replica")
                        .Register(*registry_)),
      jobs_dropped_(prometheus::BuildCounter()
                        .Name("wasserwarp_jobs_dropped_total")
                        .Help("Jobs cancelled while they waited for a slot")
                        .Register(*registry_)
                        .Add({})),
      dp_cells_(prometheus::BuildCounter()
                    .Name("wasserwarp_dp_cells_total")
                    .Help("TWED dynamic-programming cells computed, counted when a job ends")
                    .Register(*registry_)
                    .Add({})) {}

ServiceMetrics::~ServiceMetrics() = default;

void ServiceMetrics::RpcStarted(const RpcLabels& rpc) {
  rpc_started_.Add(LabelsOf(rpc)).Increment();
}

void ServiceMetrics::RpcReceived(const RpcLabels& rpc, uint64_t bytes) {
  rpc_received_bytes_.Add(LabelsOf(rpc)).Increment(static_cast<double>(bytes));
}

void ServiceMetrics::RpcHandled(const RpcLabels& rpc, int code, double seconds) {
  prometheus::Labels labels = LabelsOf(rpc);
  rpc_seconds_.Add(labels, SecondsBuckets()).Observe(seconds);
  labels.emplace("grpc_code", CodeName(code));
  rpc_handled_.Add(labels).Increment();
}

void ServiceMetrics::DatabaseCall(std::string_view call, double seconds) {
  // From 0.1 ms: a local SQLite call takes about that, a PostgreSQL round trip a few times more.
  static const prometheus::Histogram::BucketBoundaries kBuckets = {
      0.0001, 0.0003, 0.001, 0.003, 0.01, 0.03, 0.1, 0.3, 1, 3, 10};
  database_seconds_.Add({{"call", std::string(call)}}, kBuckets).Observe(seconds);
}

void ServiceMetrics::TileClaimed(std::string_view replica, bool reclaimed) {
  const prometheus::Labels labels{{"replica", std::string(replica)}};
  tiles_claimed_.Add(labels).Increment();
  // Present from the first claim, so that a rate over it starts at 0.
  prometheus::Counter& reclaims = tiles_reclaimed_.Add(labels);
  if (reclaimed) reclaims.Increment();
  tiles_computing_.Add(labels).Increment();
}

void ServiceMetrics::TileEnded(std::string_view replica, bool finished, double seconds) {
  const prometheus::Labels labels{{"replica", std::string(replica)}};
  tiles_computing_.Add(labels).Decrement();
  if (!finished) return;
  tiles_finished_.Add(labels).Increment();
  tile_seconds_.Add(labels, SecondsBuckets()).Observe(seconds);
}

void ServiceMetrics::JobEnded(const JobStats& stats) {
  if (!stats.started) {
    jobs_dropped_.Increment();
    return;
  }
  job_wait_seconds_.Observe(absl::ToDoubleSeconds(stats.waited));
  job_seconds_
      .Add({{"code", CodeName(static_cast<int>(stats.outcome.status.code()))}}, SecondsBuckets())
      .Observe(absl::ToDoubleSeconds(stats.ran));
  dp_cells_.Increment(static_cast<double>(stats.outcome.cells_done));
}

}  // namespace wasserwarp::service
