#include "ops/metrics_interceptor.h"

#include <google/protobuf/descriptor.h>
#include <grpcpp/server_context.h>

#include <map>
#include <string>
#include <utility>

#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "ops/deadline_status.h"
#include "wasserwarp/v1/validation.pb.h"

namespace wasserwarp::service {
namespace {

using grpc::experimental::InterceptionHookPoints;

template <class Request>
uint64_t SerializedSize(const void* message) {
  return static_cast<const Request*>(message)->ByteSizeLong();
}

const char* TypeName(grpc::experimental::ServerRpcInfo::Type type) {
  switch (type) {
    case grpc::experimental::ServerRpcInfo::Type::UNARY:
      return "unary";
    case grpc::experimental::ServerRpcInfo::Type::CLIENT_STREAMING:
      return "client_stream";
    case grpc::experimental::ServerRpcInfo::Type::SERVER_STREAMING:
      return "server_stream";
    case grpc::experimental::ServerRpcInfo::Type::BIDI_STREAMING:
      return "bidi_stream";
  }
  return "unknown";
}

// The labels of a method this server may serve: one of a service whose
// descriptors are compiled into the binary (ValidationService, health,
// reflection). Calls of other names reach interceptors too, before gRPC
// answers UNIMPLEMENTED; they share "unknown" labels, so made-up names cannot
// grow the metrics without bound.
RpcLabels LabelsOf(std::string_view path, std::string type) {
  RpcLabels labels = RpcLabelsOf(path, type);
  if (!labels.service.empty() &&
      google::protobuf::DescriptorPool::generated_pool()->FindMethodByName(
          labels.service + "." + labels.method) != nullptr) {
    return labels;
  }
  return RpcLabels{.service = "unknown", .method = "unknown", .type = std::move(type)};
}

class MetricsInterceptor final : public grpc::experimental::Interceptor {
 public:
  MetricsInterceptor(ServiceMetrics& metrics, grpc::experimental::ServerRpcInfo& info)
      : metrics_(metrics),
        rpc_(LabelsOf(info.method(), TypeName(info.type()))),
        received_size_(ReceivedSizeOf(info.method())),
        context_(*info.server_context()),
        start_(absl::Now()) {
    metrics_.RpcStarted(rpc_);
  }

  void Intercept(grpc::experimental::InterceptorBatchMethods* methods) override {
    if (received_size_ != nullptr &&
        methods->QueryInterceptionHookPoint(InterceptionHookPoints::POST_RECV_MESSAGE)) {
      // Null when the client half-closed instead of sending a message.
      if (const void* message = methods->GetRecvMessage(); message != nullptr) {
        metrics_.RpcReceived(rpc_, received_size_(message));
      }
    }
    if (methods->QueryInterceptionHookPoint(InterceptionHookPoints::PRE_SEND_STATUS)) {
      // An expired deadline counts as such, not as the cancellation the handler saw.
      const grpc::Status status = StatusSeenByClient(methods->GetSendStatus(), start_,
                                                     absl::FromChrono(context_.deadline()));
      metrics_.RpcHandled(rpc_, status.error_code(), absl::ToDoubleSeconds(absl::Now() - start_));
    }
    methods->Proceed();
  }

 private:
  ServiceMetrics& metrics_;
  const RpcLabels rpc_;
  const ReceivedSizeFunction received_size_;
  // The call's; it outlives its interceptors.
  const grpc::ServerContextBase& context_;
  const absl::Time start_;
};

}  // namespace

grpc::experimental::Interceptor* MetricsInterceptorFactory::CreateServerInterceptor(
    grpc::experimental::ServerRpcInfo* info) {
  return new MetricsInterceptor(metrics_, *info);
}

ReceivedSizeFunction ReceivedSizeOf(std::string_view method) {
  static const auto* const sizes = new std::map<std::string, ReceivedSizeFunction, std::less<>>{
      {"/wasserwarp.v1.ValidationService/CreateSession", &SerializedSize<v1::CreateSessionRequest>},
      {"/wasserwarp.v1.ValidationService/GetSession", &SerializedSize<v1::GetSessionRequest>},
      {"/wasserwarp.v1.ValidationService/ListSessions", &SerializedSize<v1::ListSessionsRequest>},
      {"/wasserwarp.v1.ValidationService/DeleteSession", &SerializedSize<v1::DeleteSessionRequest>},
      {"/wasserwarp.v1.ValidationService/UploadSeries", &SerializedSize<v1::UploadSeriesRequest>},
      {"/wasserwarp.v1.ValidationService/Validate", &SerializedSize<v1::ValidateRequest>},
      {"/wasserwarp.v1.ValidationService/ComputeTwed", &SerializedSize<v1::ComputeTwedRequest>},
      {"/wasserwarp.v1.ValidationService/CreateValidation",
       &SerializedSize<v1::CreateValidationRequest>},
      {"/wasserwarp.v1.ValidationService/GetValidation", &SerializedSize<v1::GetValidationRequest>},
      {"/wasserwarp.v1.ValidationService/ListValidations",
       &SerializedSize<v1::ListValidationsRequest>},
      {"/wasserwarp.v1.ValidationService/CancelValidation",
       &SerializedSize<v1::CancelValidationRequest>},
      {"/wasserwarp.v1.ValidationService/WatchValidation",
       &SerializedSize<v1::WatchValidationRequest>},
      {"/wasserwarp.v1.ValidationService/DeleteValidation",
       &SerializedSize<v1::DeleteValidationRequest>},
  };
  const auto it = sizes->find(method);
  return it == sizes->end() ? nullptr : it->second;
}

}  // namespace wasserwarp::service
