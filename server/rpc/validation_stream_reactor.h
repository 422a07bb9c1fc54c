// The two streams that follow a stored validation to its end: Validate (which creates it
// first, and cancels it when the call goes) and WatchValidation (which only watches, from any
// replica, at any time). Both send progress at least every 200 ms: the worker's own while it
// runs here, else what the store last recorded; then the end. The store is read when the
// validation ends (this replica's worker, or another replica's through the store's
// notifications, wakes the stream) and otherwise once a second, as often as a worker records
// progress, rather than at every progress event.
// Validate ends with the report and its chunks or the validation's error as the call's status;
// WatchValidation with the validation, then the report's chunks.
//
// One chain of steps at a time: each write or alarm, when it completes, queues the next step on
// the call pool, whose threads may wait on the store as gRPC's must not; only a cancellation can
// come in between, and it is acted on by the chain's next step (which cancels a Validate's
// validation), so that nothing but the chain touches the validation.

#ifndef WASSERWARP_SERVER_RPC_VALIDATION_STREAM_REACTOR_H_
#define WASSERWARP_SERVER_RPC_VALIDATION_STREAM_REACTOR_H_

#include <grpcpp/alarm.h>
#include <grpcpp/support/server_callback.h>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "jobs/validation_end_signal.h"
#include "ops/rpc_log.h"
#include "rpc/call_pool.h"
#include "rpc/validation_resources.h"
#include "rpc/watch_stream_slots.h"
#include "wasserwarp/v1/validation.pb.h"
#include "wire/report_chunks.h"

namespace wasserwarp::service {

// Response is v1::ValidateResponse (Validate) or v1::WatchValidationResponse (WatchValidation).
template <class Response>
class ValidationStreamReactor final : public grpc::ServerWriteReactor<Response> {
 public:
  // Validate: creates the validation `request` asks for, as `principal`; `request` lives until
  // the call is done.
  ValidationStreamReactor(grpc::CallbackServerContext* context, const v1::ValidateRequest* request,
                          const std::string& principal, ValidationResources& resources,
                          CallPool& pool);
  // WatchValidation: follows the validation `name`, holding `slot` until it goes.
  ValidationStreamReactor(grpc::CallbackServerContext* context, const std::string& name,
                          const std::string& principal, ValidationResources& resources,
                          CallPool& pool, WatchStreamSlots::Slot slot);

  void OnWriteDone(bool ok) override;
  void OnCancel() override;
  void OnDone() override;

 private:
  static constexpr bool kCreates = std::is_same_v<Response, v1::ValidateResponse>;

  // Runs `first` on the pool, the chain's first step; a full queue ends the call.
  void Start(std::function<void()> first);
  // Both first steps end here: the call ends with `handle`'s error, or follows it.
  void Follow(absl::StatusOr<ValidationHandle> handle);
  // Queues Step on the pool, holding a reference until it has run.
  void QueueStep();
  void Step();
  // Reads the store when due; sets ending_ or end_ once the validation has ended.
  void Poll(absl::Time now);
  void BeginEnding(const v1::Validation& validation);
  void Write();
  void End(const absl::Status& status);
  void Arm(absl::Time deadline);
  // The worker saw the validation end, or the call is stopping: the pending wait ends now.
  void WakeUp();
  // Ends the call with `reason` once the chain's next step runs.
  void Stop(absl::Status reason);
  // Validate: a call that goes takes its validation with it.
  void Abandon();
  void Unref();

  ValidationResources& resources_;
  CallPool& pool_;
  std::optional<WatchStreamSlots::Slot> slot_;
  RpcLog log_;
  const absl::Time call_start_;
  std::optional<ValidationHandle> handle_;
  std::shared_ptr<ValidationEndSignal> end_signal_;
  absl::Time origin_;
  bool seen_ = false;
  v1::ValidateProgress progress_;
  absl::Time next_progress_;
  absl::Time next_read_;
  // Once the validation has ended: what is still to send.
  bool ended_ = false;
  std::optional<wire::ReportStream> report_stream_;
  std::optional<v1::Validation> final_validation_;
  Response event_;

  absl::Mutex mu_;
  // gRPC's until OnDone, each pending alarm's and each queued step's: the reactor goes with the
  // last.
  int refs_ ABSL_GUARDED_BY(mu_) = 1;
  // Why the call stops (cancelled, or the stream broke); OK while it goes on.
  absl::Status stop_ ABSL_GUARDED_BY(mu_);
  bool woken_ ABSL_GUARDED_BY(mu_) = false;
  // Woken since the last read: the next step reads the store whatever the schedule.
  bool read_now_ ABSL_GUARDED_BY(mu_) = false;
  bool alarm_pending_ ABSL_GUARDED_BY(mu_) = false;
  bool finished_ ABSL_GUARDED_BY(mu_) = false;
  // Shared with WakeUp and Stop, which cancel it outside the lock: a step that arms the next
  // alarm meanwhile must not destroy the one they hold.
  std::shared_ptr<grpc::Alarm> alarm_ ABSL_GUARDED_BY(mu_);
};

}  // namespace wasserwarp::service

#endif  // WASSERWARP_SERVER_RPC_VALIDATION_STREAM_REACTOR_H_
