// A call's work queued on the call pool with its log line already started: the log is made on
// gRPC's thread when the call arrives, so the duration it writes includes the time the call
// waited for a pool thread (under load, most of what a client sees).

#ifndef WASSERWARP_SERVER_RPC_LOGGED_CALL_H_
#define WASSERWARP_SERVER_RPC_LOGGED_CALL_H_

#include <functional>

#include "absl/status/status.h"
#include "ops/rpc_log.h"
#include "rpc/call_pool.h"

namespace wasserwarp::service {

// Queues `work(log)` on `pool`. When the queue is full, `log` is written with the refusal, which
// is returned for the caller to finish its call with; `work` is then not run.
absl::Status PostLogged(CallPool& pool, RpcLog log, std::function<void(RpcLog&)> work);

}  // namespace wasserwarp::service

#endif  // WASSERWARP_SERVER_RPC_LOGGED_CALL_H_
