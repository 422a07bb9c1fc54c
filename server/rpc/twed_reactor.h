// ComputeTwed: the TWED of two runs sent inline, computed as a job.

#ifndef WASSERWARP_SERVER_RPC_TWED_REACTOR_H_
#define WASSERWARP_SERVER_RPC_TWED_REACTOR_H_

#include <grpcpp/support/server_callback.h>

#include <cstdint>
#include <optional>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "jobs/job_queue.h"
#include "ops/rpc_log.h"
#include "ops/server_config.h"
#include "sessions/session_store.h"
#include "wasserwarp/cancellation.h"
#include "wasserwarp/series.h"
#include "wasserwarp/v1/validation.pb.h"
#include "wasserwarp/validation.h"
#include "wasserwarp/validation_size.h"

namespace wasserwarp::service {

// Finish is the last thing anyone does with the reactor before OnDone
// deletes it: the job or the drop calls it, never both.
class TwedReactor final : public grpc::ServerUnaryReactor {
 public:
  TwedReactor(grpc::CallbackServerContext* context, const v1::ComputeTwedRequest* request,
              v1::ComputeTwedResponse* response, const ValidationLimits& limits, JobQueue& jobs,
              SessionStore& sessions, const std::string& principal);

  void OnCancel() override;
  void OnDone() override;

 private:
  // Reads and checks the request, before the job takes a slot.
  absl::Status Prepare(const v1::ComputeTwedRequest& request, const ValidationLimits& limits);
  JobOutcome Run(const CancellationToken& cancel);
  void Complete(const absl::Status& status);

  v1::ComputeTwedResponse* const response_;
  JobQueue& jobs_;
  SessionStore& sessions_;
  const std::string principal_;
  // What the call holds from its start to Complete (SessionStore::ReserveJob): the request, and
  // the runs twice (parsed, then prepared).
  int64_t reserved_bytes_ = 0;
  // Set before the job is submitted, then the job's alone.
  ValidationOptions options_;
  Series a_;
  Series b_;
  uint64_t cells_total_ = 0;
  RpcLog log_;
  absl::Mutex mu_;
  std::optional<uint64_t> job_id_ ABSL_GUARDED_BY(mu_);
};

}  // namespace wasserwarp::service

#endif  // WASSERWARP_SERVER_RPC_TWED_REACTOR_H_
