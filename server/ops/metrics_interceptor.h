// Feeds ServiceMetrics from every RPC of every service the server runs,
// health and reflection included: its start, the bytes of each message it
// receives, and its final status and duration. An interceptor sees the
// status a streaming call finishes with just as a unary one's, whichever
// handler sends it. Calls of methods the server does not know count under
// the service and method "unknown".

#ifndef WASSERWARP_SERVER_OPS_METRICS_INTERCEPTOR_H_
#define WASSERWARP_SERVER_OPS_METRICS_INTERCEPTOR_H_

#include <grpcpp/support/server_interceptor.h>

#include <cstdint>
#include <string_view>

#include "ops/metrics.h"

namespace wasserwarp::service {

class MetricsInterceptorFactory final
    : public grpc::experimental::ServerInterceptorFactoryInterface {
 public:
  // `metrics` must outlive the server.
  explicit MetricsInterceptorFactory(ServiceMetrics& metrics) : metrics_(metrics) {}

  grpc::experimental::Interceptor* CreateServerInterceptor(
      grpc::experimental::ServerRpcInfo* info) override;

 private:
  ServiceMetrics& metrics_;
};

// An interceptor receives a message as an untyped pointer; this gives its
// serialized size for `method` (a full path such as
// "/wasserwarp.v1.ValidationService/UploadSeries"), whose request type it
// knows. nullptr for a method whose type it does not know (those of the
// health and reflection services), whose received bytes are not counted.
using ReceivedSizeFunction = uint64_t (*)(const void* message);
ReceivedSizeFunction ReceivedSizeOf(std::string_view method);

}  // namespace wasserwarp::service

#endif  // WASSERWARP_SERVER_OPS_METRICS_INTERCEPTOR_H_
