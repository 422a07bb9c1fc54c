// Answers a request that cannot be parsed as its method's message with INVALID_ARGUMENT saying
// so. gRPC 1.51's callback API answers it UNIMPLEMENTED with no message when a unary or
// server-streaming method's request fails to deserialize (bytes that are no protobuf, or a
// string field that is not UTF-8), and a client that sees UNIMPLEMENTED concludes the method
// does not exist. The interceptor sees the request arrive undecoded and rewrites that status
// before it is sent, and writes the call's log line (rpc_log.h), since no handler runs to write
// it; interceptors after it (the metrics) count the call under its real method.
//
// Not covered: a message of a client stream (UploadSeries) that fails to parse ends the
// handler's reads as the client's half-close would, so the handler sees a stream cut short
// (refused when a run lacks its end mark), never the parse failure.

#ifndef WASSERWARP_SERVER_OPS_UNDECODABLE_REQUEST_H_
#define WASSERWARP_SERVER_OPS_UNDECODABLE_REQUEST_H_

#include <grpcpp/support/server_interceptor.h>

#include <string>
#include <string_view>

namespace wasserwarp::service {

class UndecodableRequestInterceptorFactory final
    : public grpc::experimental::ServerInterceptorFactoryInterface {
 public:
  grpc::experimental::Interceptor* CreateServerInterceptor(
      grpc::experimental::ServerRpcInfo* info) override;
};

// The message of the status such a call gets, for `method` (a full path such as
// "/wasserwarp.v1.ValidationService/GetSession").
std::string UndecodableRequestMessage(std::string_view method);

}  // namespace wasserwarp::service

#endif  // WASSERWARP_SERVER_OPS_UNDECODABLE_REQUEST_H_
