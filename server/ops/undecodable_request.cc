#include "ops/undecodable_request.h"

#include <google/protobuf/descriptor.h>

#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "ops/rpc_log.h"

namespace wasserwarp::service {
namespace {

using grpc::experimental::InterceptionHookPoints;
using grpc::experimental::ServerRpcInfo;

// The request type of `method`, or the method's path where its descriptor is not compiled in.
std::string RequestTypeOf(std::string_view method) {
  absl::string_view name(method.data(), method.size());
  absl::ConsumePrefix(&name, "/");
  const size_t slash = name.rfind('/');
  if (slash != absl::string_view::npos) {
    const google::protobuf::MethodDescriptor* descriptor =
        google::protobuf::DescriptorPool::generated_pool()->FindMethodByName(
            absl::StrCat(name.substr(0, slash), ".", name.substr(slash + 1)));
    if (descriptor != nullptr) return descriptor->input_type()->full_name();
  }
  return absl::StrCat("the request of ", name);
}

// "GetSession" of "/wasserwarp.v1.ValidationService/GetSession".
std::string_view MethodName(std::string_view path) {
  const size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

class UndecodableRequestInterceptor final : public grpc::experimental::Interceptor {
 public:
  explicit UndecodableRequestInterceptor(ServerRpcInfo& info)
      : method_(info.method()),
        // Its handler never runs, so the call's log line is written here, named as a handler
        // names its own.
        log_(info.server_context(), MethodName(method_)),
        // gRPC reads and parses the one request of these before the handler starts; a stream's
        // messages are read by the handler.
        parsed_before_handler_(info.type() == ServerRpcInfo::Type::UNARY ||
                               info.type() == ServerRpcInfo::Type::SERVER_STREAMING) {}

  void Intercept(grpc::experimental::InterceptorBatchMethods* methods) override {
    if (parsed_before_handler_ &&
        methods->QueryInterceptionHookPoint(InterceptionHookPoints::POST_RECV_MESSAGE) &&
        methods->GetRecvMessage() == nullptr) {
      // This hook point comes only with a message that arrived, so no message here means that
      // parsing it failed.
      undecodable_ = true;
    }
    if (undecodable_ &&
        methods->QueryInterceptionHookPoint(InterceptionHookPoints::PRE_SEND_STATUS) &&
        methods->GetSendStatus().error_code() == grpc::StatusCode::UNIMPLEMENTED) {
      const grpc::Status status(grpc::StatusCode::INVALID_ARGUMENT,
                                UndecodableRequestMessage(method_));
      methods->ModifySendStatus(status);
      log_.Done(status);
    }
    methods->Proceed();
  }

 private:
  const std::string method_;
  RpcLog log_;
  const bool parsed_before_handler_;
  bool undecodable_ = false;
};

}  // namespace

grpc::experimental::Interceptor* UndecodableRequestInterceptorFactory::CreateServerInterceptor(
    grpc::experimental::ServerRpcInfo* info) {
  return new UndecodableRequestInterceptor(*info);
}

std::string UndecodableRequestMessage(std::string_view method) {
  return absl::StrCat("the request could not be parsed as a ", RequestTypeOf(method),
                      ": it is not a protobuf message of that type, or one of its string fields "
                      "is not UTF-8");
}

}  // namespace wasserwarp::service
