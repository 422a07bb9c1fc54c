// Validate: a session's runs validated as a job, with progress events at
// least every 250 ms, then the report and the chunks of its bulky parts.

#ifndef WASSERWARP_SERVER_VALIDATE_REACTOR_H_
#define WASSERWARP_SERVER_VALIDATE_REACTOR_H_

#include <grpcpp/alarm.h>
#include <grpcpp/support/server_callback.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "job_queue.h"
#include "rpc_log.h"
#include "session_store.h"
#include "validation_job.h"
#include "wasserwarp/cancellation.h"
#include "wasserwarp/v1/validation.pb.h"
#include "wasserwarp/validation.h"
#include "wasserwarp/validation_size.h"
#include "wire/report_chunks.h"

namespace wasserwarp::service {

// Three parties hold the reactor: gRPC until OnDone, the job until it
// completes or is dropped, and a pending progress alarm; it deletes itself
// when the last lets go. Every gRPC operation starts outside the lock, after
// the state change that decided it.
class ValidateReactor final : public grpc::ServerWriteReactor<v1::ValidateResponse> {
 public:
  // `principal` is the caller's (call_principal.h): only its own sessions exist for it.
  ValidateReactor(grpc::CallbackServerContext* context, const v1::ValidateRequest& request,
                  const std::string& principal, SessionStore& store, JobQueue& jobs,
                  const ValidationLimits& limits);

  void OnWriteDone(bool ok) override;
  void OnCancel() override;
  void OnDone() override;

 private:
  struct Action {
    enum Kind { kNone, kWrite, kWriteAndFinish, kFinish, kArmAlarm };
    Kind kind = kNone;
    grpc::Status status;
  };

  // Builds and submits the job; an error ends the call before any event.
  absl::Status Start(const v1::ValidateRequest& request, const std::string& principal);
  JobOutcome Run(const CancellationToken& cancel);
  void Complete(absl::Status status);
  void OnAlarm();

  Action NextAction(bool alarm_fired) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void Execute(const Action& action);
  void CancelJob();
  void Unref();

  SessionStore& store_;
  JobQueue& jobs_;
  const ValidationLimits& limits_;
  const absl::Time start_time_;
  // Set before the job is submitted, then the job's alone. Its lease keeps
  // the session alive while the job waits and runs.
  SessionSnapshot snapshot_;
  ValidationJob job_;

  absl::Mutex mu_;
  int refs_ ABSL_GUARDED_BY(mu_) = 1;
  RpcLog log_ ABSL_GUARDED_BY(mu_);
  std::optional<uint64_t> job_id_ ABSL_GUARDED_BY(mu_);
  bool cancelled_ ABSL_GUARDED_BY(mu_) = false;
  v1::ValidateProgress progress_ ABSL_GUARDED_BY(mu_);
  std::optional<absl::Status> result_ ABSL_GUARDED_BY(mu_);
  bool write_in_flight_ ABSL_GUARDED_BY(mu_) = false;
  bool stream_broken_ ABSL_GUARDED_BY(mu_) = false;
  bool finished_ ABSL_GUARDED_BY(mu_) = false;
  absl::Time next_progress_ ABSL_GUARDED_BY(mu_);
  // One alarm per wait: an alarm cannot be re-armed from its own callback.
  std::unique_ptr<grpc::Alarm> alarm_ ABSL_GUARDED_BY(mu_);
  bool alarm_pending_ ABSL_GUARDED_BY(mu_) = false;
  // The message of the write in flight: progress, the report or a chunk.
  v1::ValidateResponse event_;
  // Filled by the job before it sets result_.
  wire::ReportStream report_stream_;
};

}  // namespace wasserwarp::service

#endif  // WASSERWARP_SERVER_VALIDATE_REACTOR_H_
