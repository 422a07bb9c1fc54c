// UploadSeries: runs streamed into a session, each committed atomically when
// its end mark arrives and it is valid. The reactor reads and answers; what
// each message means is UploadState's, worked out on the call pool, since a
// commit writes to the store.

#ifndef WASSERWARP_SERVER_RPC_UPLOAD_REACTOR_H_
#define WASSERWARP_SERVER_RPC_UPLOAD_REACTOR_H_

#include <grpcpp/support/server_callback.h>

#include <string>

#include "absl/status/status.h"
#include "ops/rpc_log.h"
#include "ops/server_config.h"
#include "rpc/call_pool.h"
#include "rpc/upload_state.h"
#include "sessions/session_store.h"
#include "wasserwarp/v1/validation.pb.h"

namespace wasserwarp::service {

// Reads one message at a time, and reads the next only once this one is handled; each
// reaction runs alone, so the state needs no lock.
class UploadReactor final : public grpc::ServerReadReactor<v1::UploadSeriesRequest> {
 public:
  // `response` is the call's, filled as runs commit. `principal` is the
  // caller's (call_principal.h): only its own sessions exist for it. Messages are handled on
  // `calls`.
  UploadReactor(grpc::CallbackServerContext* context, v1::UploadSeriesResponse* response,
                std::string principal, SessionStore& store, const SessionLimits& limits,
                CallPool& calls);

  void OnReadDone(bool ok) override;
  void OnDone() override;

 private:
  void HandleRead(bool ok);
  void Complete(const absl::Status& status);

  grpc::CallbackServerContext* const context_;
  CallPool& calls_;
  RpcLog log_;
  v1::UploadSeriesRequest request_;
  UploadState state_;
  v1::UploadSeriesResponse* const response_;
};

}  // namespace wasserwarp::service

#endif  // WASSERWARP_SERVER_RPC_UPLOAD_REACTOR_H_
