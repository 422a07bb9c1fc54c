// Prometheus metrics of one server: its RPCs by method and final status code,
// its jobs, its tiles and its database calls, moved as things happen. The gauges of what is
// held are read at each scrape by MetricsEndpoint (metrics_endpoint.h).

#ifndef WASSERWARP_SERVER_OPS_METRICS_H_
#define WASSERWARP_SERVER_OPS_METRICS_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "ops/job_stats.h"

namespace prometheus {
class Counter;
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

}  // namespace wasserwarp::service

#endif  // WASSERWARP_SERVER_OPS_METRICS_H_
