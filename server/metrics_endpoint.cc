#include "metrics_endpoint.h"

#include <prometheus/collectable.h>
#include <prometheus/exposer.h>
#include <prometheus/metric_family.h>
#include <prometheus/registry.h>

#include <exception>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"

namespace wasserwarp::service {
namespace {

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
    const absl::StatusOr<ValidationStore::Counts> counts = Counts();
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
  // The store's counts, read again only once they are older than kCountsMaxAge: counting runs
  // queries over every validation, which a scrape every second (or many scrapers) would repeat
  // for figures that move slowly.
  absl::StatusOr<ValidationStore::Counts> Counts() const {
    absl::MutexLock lock(&counts_mu_);
    const absl::Time now = absl::Now();
    if (!counts_.ok() || now - counts_time_ >= kCountsMaxAge) {
      counts_ = validations_.CountAll(now);
      counts_time_ = now;
    }
    return counts_;
  }

  static constexpr absl::Duration kCountsMaxAge = absl::Seconds(2);
  static constexpr std::pair<ValidationState, const char*> kStateNames[] = {
      {ValidationState::kQueued, "queued"},       {ValidationState::kRunning, "running"},
      {ValidationState::kSucceeded, "succeeded"}, {ValidationState::kFailed, "failed"},
      {ValidationState::kCancelled, "cancelled"},
  };

  const ServerConfig& config_;
  const SessionStore& store_;
  const JobQueue& jobs_;
  ValidationStore& validations_;
  mutable absl::Mutex counts_mu_;
  mutable absl::StatusOr<ValidationStore::Counts> counts_ ABSL_GUARDED_BY(counts_mu_) =
      absl::UnavailableError("not counted yet");
  mutable absl::Time counts_time_ ABSL_GUARDED_BY(counts_mu_);
};

}  // namespace

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
