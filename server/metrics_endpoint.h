// The /metrics HTTP endpoint of one server: the counters of ServiceMetrics, and the gauges of
// what the server holds (sessions, runs, bytes, jobs, stored validations, the limits) read from
// the stores and the queue at each scrape, so that they cannot drift from the truth.

#ifndef WASSERWARP_SERVER_METRICS_ENDPOINT_H_
#define WASSERWARP_SERVER_METRICS_ENDPOINT_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "jobs/job_queue.h"
#include "ops/metrics.h"
#include "ops/server_config.h"
#include "sessions/session_store.h"
#include "validations/validation_store.h"

namespace prometheus {
class Collectable;
class Exposer;
}  // namespace prometheus

namespace wasserwarp::service {

// GET /metrics over HTTP (prometheus-cpp's civetweb server): the metrics'
// registry, and the gauges of `store`, `jobs`, `validations` and `config`'s limits read at
// each scrape. Everything it reads must outlive it.
class MetricsEndpoint {
 public:
  // Listens on `listen` (IPv4 host:port; port 0 picks a free port);
  // Unavailable naming --metrics_listen when it cannot, InvalidArgument for
  // an IPv6 address.
  static absl::StatusOr<std::unique_ptr<MetricsEndpoint>> Start(
      const std::string& listen, const ServiceMetrics& metrics, const ServerConfig& config,
      const SessionStore& store, const JobQueue& jobs, ValidationStore& validations);
  // Stops serving; a scrape in progress finishes first.
  ~MetricsEndpoint();

  // host:port with the port actually bound.
  const std::string& address() const { return address_; }

 private:
  MetricsEndpoint() = default;

  std::unique_ptr<prometheus::Exposer> exposer_;
  std::shared_ptr<prometheus::Collectable> held_gauges_;
  std::string address_;
};

}  // namespace wasserwarp::service

#endif  // WASSERWARP_SERVER_METRICS_ENDPOINT_H_
