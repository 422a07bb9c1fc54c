// Validations as the API's resources, `sessions/{session}/validations/{validation}`: what the
// unary RPCs do (create, get, list, cancel) and what the streaming ones (Validate,
// WatchValidation) look up, over the session store (who may see what), the validation store
// (what is stored) and this replica's worker (what runs here).

#ifndef WASSERWARP_SERVER_RPC_VALIDATION_RESOURCES_H_
#define WASSERWARP_SERVER_RPC_VALIDATION_RESOURCES_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "jobs/validation_worker.h"
#include "ops/server_config.h"
#include "sessions/session_store.h"
#include "validations/validation_store.h"
#include "wasserwarp/v1/validation.pb.h"
#include "wasserwarp/validation_size.h"

namespace wasserwarp::service {

// A validation a caller may see, found by its name.
struct ValidationHandle {
  int64_t session_key = 0;
  std::string session_id;
  std::string id;
};

class ValidationResources {
 public:
  // Every reference must outlive this.
  ValidationResources(SessionStore& sessions, ValidationStore& validations,
                      ValidationWorker& worker, const JobLimits& jobs,
                      const ValidationLimits& limits);

  // Every refusal Validate gives comes here, with the request field at fault (field paths as in
  // Validate's request; the RPC's own request prefixes them).
  absl::StatusOr<v1::Validation> Create(const v1::ValidateRequest& request,
                                        const std::string& principal);
  absl::StatusOr<v1::Validation> Get(const std::string& name, const std::string& principal);
  absl::StatusOr<v1::ListValidationsResponse> List(const v1::ListValidationsRequest& request,
                                                   const std::string& principal);
  absl::StatusOr<v1::Validation> Cancel(const std::string& name, const std::string& principal);

  // NotFound, like an unknown one, for a validation of another principal's session.
  absl::StatusOr<ValidationHandle> Find(const std::string& name, const std::string& principal);
  // The validation as stored, with its report when `with_report`; NotFound once its session is
  // gone.
  absl::StatusOr<v1::Validation> Read(const ValidationHandle& handle, bool with_report);
  // The full report of a SUCCEEDED validation, every part included.
  absl::StatusOr<v1::ValidationReport> FullReport(const ValidationHandle& handle);
  // `signal` fires when the validation ends on this replica (ValidationWorker::Listen).
  void Listen(const ValidationHandle& handle, std::shared_ptr<ValidationEndSignal> signal) {
    worker_.Listen(handle.session_key, handle.id, std::move(signal));
  }
  // Progress of a validation running on this replica.
  std::optional<v1::ValidateProgress> LocalProgress(const ValidationHandle& handle) const;
  // Cancels the validation (CancelValidation's work) with `reason`.
  absl::StatusOr<v1::Validation> CancelWith(const ValidationHandle& handle,
                                            const absl::Status& reason);

  // From now, a Validate call that goes leaves its validation queued (the replica is stopping;
  // another one, or the next start, runs it).
  void BeginShutdown() { shutting_down_ = true; }
  bool shutting_down() const { return shutting_down_; }

  // The validations of a deleted session go with it; the job of a running one stops.
  void SessionDeleted(int64_t session_key);
  // The validations of sessions that expired; returns how many went.
  int64_t DropExpired();

 private:
  SessionStore& sessions_;
  ValidationStore& validations_;
  ValidationWorker& worker_;
  const JobLimits& jobs_;
  const ValidationLimits& limits_;
  std::atomic<bool> shutting_down_ = false;
};

// `report` as GetValidation gives it: cost matrices and HTML page announced, their values left
// out.
void LeaveOutBulkyParts(v1::ValidationReport& report);

}  // namespace wasserwarp::service

#endif  // WASSERWARP_SERVER_RPC_VALIDATION_RESOURCES_H_
