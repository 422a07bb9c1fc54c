// Prometheus metrics of one server: its RPCs by method and final status code,
// its jobs, and what its sessions hold. Counters and histograms move as things
// happen; the gauges of what is held are read from the session store and the
// job queue at each scrape, so they cannot drift from the truth.

#ifndef WASSERWARP_SERVER_METRICS_H_
#define WASSERWARP_SERVER_METRICS_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "job_queue.h"
#include "server_config.h"
#include "session_store.h"
#include "validation_store.h"

namespace prometheus {
class Collectable;
class Counter;
class Exposer;
class Gauge;
class Histogram;
class Registry;
template <typename T>
class Family;
}  // namespace prometheus

namespace wasserwarp::service {

// An RPC as the metrics label it: "wasserwarp.v1.ValidationService" and
// "Validate" for "/wasserwarp.v1.ValidationService/Validate"; `type` is
// unary, client_stream, server_stream or bidi_stream.
struct RpcLabels {
  std::string service;
  std::string method;
  std::string type;
};

// The service and method of a full method path; a path without the
// "/service/method" shape is all method, with an empty service.
RpcLabels RpcLabelsOf(std::string_view path, std::string type);

// Thread-safe: every update may come from any thread.
class ServiceMetrics {
 public:
  ServiceMetrics();
  ~ServiceMetrics();

  void RpcStarted(const RpcLabels& rpc);
  // One message of `bytes` (serialized size) arrived.
  void RpcReceived(const RpcLabels& rpc, uint64_t bytes);
  // The call ended with `code` (a grpc::StatusCode) after `seconds`.
  void RpcHandled(const RpcLabels& rpc, int code, double seconds);

  // A job ended or was dropped while it waited (a JobQueue::Observer).
  void JobEnded(const JobStats& stats);

  // One call of a store's database (`call`: the store's method) took `seconds`.
  void DatabaseCall(std::string_view call, double seconds);

  // `replica` (--replica_name) claimed a tile; `reclaimed`: its earlier holder lost the lease.
  void TileClaimed(std::string_view replica, bool reclaimed);
  // `replica` stopped computing a tile after `seconds`: stored when `finished`, otherwise
  // cancelled, failed, or taken over by another worker.
  void TileEnded(std::string_view replica, bool finished, double seconds);

  const std::shared_ptr<prometheus::Registry>& registry() const { return registry_; }

 private:
  std::shared_ptr<prometheus::Registry> registry_;
  prometheus::Family<prometheus::Counter>& rpc_started_;
  prometheus::Family<prometheus::Counter>& rpc_handled_;
  prometheus::Family<prometheus::Histogram>& rpc_seconds_;
  prometheus::Family<prometheus::Counter>& rpc_received_bytes_;
  prometheus::Family<prometheus::Histogram>& job_seconds_;
  prometheus::Histogram& job_wait_seconds_;
  prometheus::Family<prometheus::Histogram>& database_seconds_;
  prometheus::Family<prometheus::Counter>& tiles_claimed_;
  prometheus::Family<prometheus::Counter>& tiles_reclaimed_;
  prometheus::Family<prometheus::Counter>& tiles_finished_;
  prometheus::Family<prometheus::Gauge>& tiles_computing_;
  prometheus::Family<prometheus::Histogram>& tile_seconds_;
  prometheus::Counter& jobs_dropped_;
  prometheus::Counter& dp_cells_;
};

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

#endif  // WASSERWARP_SERVER_METRICS_H_
