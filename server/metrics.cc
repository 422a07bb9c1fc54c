#include "metrics.h"

#include <prometheus/collectable.h>
#include <prometheus/counter.h>
#include <prometheus/exposer.h>
#include <prometheus/family.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>
#include <prometheus/metric_family.h>
#include <prometheus/registry.h>

#include <exception>
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

prometheus::MetricFamily GaugeFamily(
    std::string name, std::string help,
    std::vector<std::pair<prometheus::ClientMetric::Label, double>> values) {
  prometheus::MetricFamily family;
  family.name = std::move(name);
  family.help = std::move(help);
  family.type = prometheus::MetricType::Gauge;
  for (auto& [label, value] : values) {
    prometheus::ClientMetric metric;
    if (!label.name.empty()) metric.label.push_back(std::move(label));
    metric.gauge.value = value;
    family.metric.push_back(std::move(metric));
  }
  return family;
}

prometheus::MetricFamily GaugeFamily(std::string name, std::string help, double value) {
  return GaugeFamily(std::move(name), std::move(help), {{{}, value}});
}

// What the store and the queue hold, read when Prometheus asks.
class HeldGauges final : public prometheus::Collectable {
 public:
  HeldGauges(const ServerConfig& config, const SessionStore& store, const JobQueue& jobs,
             ValidationStore& validations)
      : config_(config), store_(store), jobs_(jobs), validations_(validations) {}

  std::vector<prometheus::MetricFamily> Collect() const override {
    const SessionStore::Totals totals = store_.totals();
    const auto as_double = [](int64_t value) { return static_cast<double>(value); };
    std::vector<prometheus::MetricFamily> families = {
        GaugeFamily("wasserwarp_sessions_held",
                    "Sessions held, expired ones until the sweep drops them",
                    as_double(totals.sessions)),
        GaugeFamily("wasserwarp_runs_held", "Committed runs of all sessions",
                    as_double(totals.runs)),
        GaugeFamily("wasserwarp_bytes_held",
                    "Run data bytes (samples and header text) against --max_total_bytes: committed "
                    "runs, and runs being uploaded",
                    {{{"state", "committed"}, as_double(totals.held_bytes)},
                     {{"state", "uploading"}, as_double(totals.reserved_bytes)}}),
        GaugeFamily("wasserwarp_jobs_queued", "Jobs waiting for a slot", jobs_.waiting()),
        GaugeFamily("wasserwarp_jobs_running", "Jobs running", jobs_.running()),
        GaugeFamily("wasserwarp_limit", "The limits set by the flags of the same name",
                    {{{"flag", "max_sessions"}, as_double(config_.sessions.max_sessions)},
                     {{"flag", "max_total_bytes"}, as_double(config_.sessions.max_total_bytes)},
                     {{"flag", "max_concurrent_jobs"}, as_double(config_.jobs.max_concurrent_jobs)},
                     {{"flag", "max_queued_jobs"}, as_double(config_.jobs.max_queued_jobs)}}),
    };
    // Shared by every replica on one database: the same figures from each.
    const absl::StatusOr<ValidationStore::Counts> counts = validations_.CountAll(absl::Now());
    if (counts.ok()) {
      std::vector<std::pair<prometheus::ClientMetric::Label, double>> by_state;
      for (const auto& [state, name] : kStateNames) {
        by_state.push_back({{"state", name}, as_double(counts->by_state[static_cast<int>(state)])});
      }
      families.push_back(GaugeFamily("wasserwarp_validations",
                                     "Stored validations by state, of every replica",
                                     std::move(by_state)));
      families.push_back(GaugeFamily(
          "wasserwarp_validation_queue_depth", "Validations waiting for a replica's job slot",
          as_double(counts->by_state[static_cast<int>(ValidationState::kQueued)])));
      families.push_back(GaugeFamily("wasserwarp_validation_leases_held",
                                     "Running validations whose worker's lease is current",
                                     as_double(counts->leases_held)));
    }
    return families;
  }

 private:
  static constexpr std::pair<ValidationState, const char*> kStateNames[] = {
      {ValidationState::kQueued, "queued"},       {ValidationState::kRunning, "running"},
      {ValidationState::kSucceeded, "succeeded"}, {ValidationState::kFailed, "failed"},
      {ValidationState::kCancelled, "cancelled"},
  };

  const ServerConfig& config_;
  const SessionStore& store_;
  const JobQueue& jobs_;
  ValidationStore& validations_;
};

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

absl::StatusOr<std::unique_ptr<MetricsEndpoint>> MetricsEndpoint::Start(
    const std::string& listen, const ServiceMetrics& metrics, const ServerConfig& config,
    const SessionStore& store, const JobQueue& jobs, ValidationStore& validations) {
  if (listen.starts_with('[')) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--metrics_listen: ", listen,
        " is an IPv6 address; the metrics HTTP server (civetweb as Debian builds it) takes IPv4 "
        "addresses and host names only"));
  }
  std::unique_ptr<MetricsEndpoint> endpoint(new MetricsEndpoint());
  // civetweb reports a port it cannot bind by throwing.
  try {
    endpoint->exposer_ = std::make_unique<prometheus::Exposer>(listen, 2);
  } catch (const std::exception& error) {
    return absl::UnavailableError(
        absl::StrCat("--metrics_listen: cannot listen on ", listen, ": ", error.what()));
  }
  const std::vector<int> ports = endpoint->exposer_->GetListeningPorts();
  if (ports.empty()) {
    return absl::UnavailableError(absl::StrCat("--metrics_listen: cannot listen on ", listen));
  }
  endpoint->held_gauges_ = std::make_shared<HeldGauges>(config, store, jobs, validations);
  endpoint->exposer_->RegisterCollectable(metrics.registry());
  endpoint->exposer_->RegisterCollectable(endpoint->held_gauges_);
  const size_t colon = listen.rfind(':');
  endpoint->address_ = absl::StrCat(listen.substr(0, colon), ":", ports.front());
  return endpoint;
}

MetricsEndpoint::~MetricsEndpoint() = default;

}  // namespace wasserwarp::service
