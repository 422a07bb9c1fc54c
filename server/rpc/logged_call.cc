#include "rpc/logged_call.h"

#include <utility>

#include "wire/status_to_grpc.h"

namespace wasserwarp::service {

absl::Status PostLogged(CallPool& pool, RpcLog log, std::function<void(RpcLog&)> work) {
  // The queue keeps a copy of the log until it runs; the refusal below writes this one.
  absl::Status queued = pool.Post([log, work = std::move(work)]() mutable { work(log); });
  if (!queued.ok()) log.Done(wire::ToGrpcStatus(queued));
  return queued;
}

}  // namespace wasserwarp::service
