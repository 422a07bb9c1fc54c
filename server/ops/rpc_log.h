// One log line per RPC: method, peer, the caller's principal and the resource it named (a
// session or validation: who did what to which, for audits), status code, duration and the bytes
// of the messages received and sent.

#ifndef WASSERWARP_SERVER_OPS_RPC_LOG_H_
#define WASSERWARP_SERVER_OPS_RPC_LOG_H_

#include <grpcpp/server_context.h>
#include <grpcpp/support/status.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

#include "absl/time/time.h"

namespace wasserwarp::service {

class RpcLog {
 public:
  // `context` is the call's, a handler's or an interceptor's (undecodable_request.h).
  RpcLog(const grpc::ServerContextBase* context, std::string_view method);

  // Once the caller is known and its request read; a call refused before has neither.
  void Principal(std::string principal) { principal_ = std::move(principal); }
  void Resource(std::string name) { resource_ = std::move(name); }
  void Received(uint64_t bytes) { received_ += bytes; }
  void Sent(uint64_t bytes) { sent_ += bytes; }
  // Writes the line; `status` is the one handed to gRPC, logged as the client sees it
  // (deadline_status.h).
  void Done(const grpc::Status& status) const;

 private:
  const std::string method_;
  const std::string peer_;
  const absl::Time start_;
  const absl::Time deadline_;
  std::string principal_;
  std::string resource_;
  uint64_t received_ = 0;
  uint64_t sent_ = 0;
};

}  // namespace wasserwarp::service

#endif  // WASSERWARP_SERVER_OPS_RPC_LOG_H_
