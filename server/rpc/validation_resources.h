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
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "jobs/validation_worker.h"
#include "ops/server_config.h"
#include "sessions/session_store.h"
#include "validations/validation_store.h"
#include "wasserwarp/v1/validation.pb.h"
#include "wasserwarp/validation_size.h"

namespace wasserwarp::service {

// The pages of ListSessions, ListValidations and the web view's lists: kDefaultPageSize items
// unless the caller asks for another size, and never more than kMaxPageSize.
inline constexpr int kDefaultPageSize = 50;
inline constexpr int kMaxPageSize = 1000;

// A validation a caller may see, found by its name.
struct ValidationHandle {
  int64_t session_key = 0;
  std::string session_id;
  std::string id;
  // Who found it.
  std::string principal;
};

class ValidationResources {
 public:
  // Every reference must outlive this. Ended records go `retention` after they ended
  // (--validation_retention; infinite: kept until deleted). Every Validation answered carries
  // its link under `public_url` (--http_public_url, normalised; empty: none).
  ValidationResources(SessionStore& sessions, ValidationStore& validations,
                      ValidationWorker& worker, const JobLimits& jobs,
                      const ValidationLimits& limits,
                      absl::Duration retention = absl::InfiniteDuration(),
                      std::string public_url = "");

  // Every refusal Validate gives comes here, with the request field at fault (field paths as in
  // Validate's request; the RPC's own request prefixes them).
  absl::StatusOr<v1::Validation> Create(const v1::ValidateRequest& request,
                                        const std::string& principal);
  absl::StatusOr<v1::Validation> Get(const std::string& name, const std::string& principal);
  absl::StatusOr<v1::ListValidationsResponse> List(const v1::ListValidationsRequest& request,
                                                   const std::string& principal);
  absl::StatusOr<v1::Validation> Cancel(const std::string& name, const std::string& principal);
  // DeleteValidation: an ended record goes; FailedPrecondition while it is queued or running.
  absl::Status Delete(const std::string& name, const std::string& principal);

  // NotFound, like an unknown one, for a validation of another principal's session. A
  // tombstone's validations are found too.
  absl::StatusOr<ValidationHandle> Find(const std::string& name, const std::string& principal);
  // The validation as stored, with its report when `with_report`; NotFound once its session is
  // gone.
  absl::StatusOr<v1::Validation> Read(const ValidationHandle& handle, bool with_report);
  // The validation as stored with its full report, every part included, when it SUCCEEDED:
  // one read of the record where Read and FullReport would take two.
  absl::StatusOr<v1::Validation> ReadWithFullReport(const ValidationHandle& handle);
  // The full report of a SUCCEEDED validation, every part included.
  absl::StatusOr<v1::ValidationReport> FullReport(const ValidationHandle& handle);
  // `signal` fires when the validation ends on this replica (ValidationWorker::Listen).
  void Listen(const ValidationHandle& handle, std::shared_ptr<ValidationEndSignal> signal) {
    worker_.Listen(handle.session_key, handle.id, std::move(signal));
  }
  // Progress of a validation running on this replica.
  std::optional<v1::ValidateProgress> LocalProgress(const ValidationHandle& handle) const;
  // Cancels the validation (CancelValidation's work) with `reason`, on behalf of the principal
  // who found it.
  absl::StatusOr<v1::Validation> CancelWith(const ValidationHandle& handle,
                                            const absl::Status& reason);

  // From now, a Validate call that goes leaves its validation queued (the replica is stopping;
  // another one, or the next start, runs it).
  void BeginShutdown() { shutting_down_ = true; }
  bool shutting_down() const { return shutting_down_; }

  // Sessions as their records keep them.
  //
  // Session `session_key` is about to be deleted by `principal`: its records stay, their
  // session kept as a tombstone (state DELETED); the job of a running one stops.
  void SessionDeleting(int64_t session_key, const std::string& session_id,
                       const std::string& principal);
  // `principal`'s tombstone of session `session_id` (expired or deleted, with records), unset
  // when there is none.
  absl::StatusOr<std::optional<RecordedSession>> Tombstone(const std::string& session_id,
                                                           const std::string& principal);
  // At most `limit` of `principal`'s tombstones with ids after `after_id`, in id order.
  absl::StatusOr<std::vector<RecordedSession>> Tombstones(const std::string& principal,
                                                          const std::string& after_id, int limit);
  // AlreadyExists when a tombstone, anyone's, keeps `session_id`: ids are one namespace.
  absl::Status CheckIdFree(const std::string& session_id);
  // Deleting a tombstone: it goes with every record of it.
  absl::Status PurgeTombstone(const RecordedSession& tombstone);
  // At each sweep: the sessions that expired become tombstones, and records past their
  // retention go; returns how many records went.
  int64_t Sweep();

 private:
  // Read, the report's bulky parts kept.
  absl::StatusOr<v1::Validation> ReadStored(const ValidationHandle& handle, bool with_report);

  SessionStore& sessions_;
  ValidationStore& validations_;
  ValidationWorker& worker_;
  const JobLimits& jobs_;
  const ValidationLimits& limits_;
  const absl::Duration retention_;
  const std::string public_url_;
  std::atomic<bool> shutting_down_ = false;

  // The record as every answer gives it: its fields and its link.
  v1::Validation Answer(const ValidationRecord& record) const;

  // The key of `principal`'s session `session_id`, live or a tombstone; NotFound otherwise.
  absl::StatusOr<int64_t> SessionKey(const std::string& session_id, const std::string& principal);
};

// `report` as GetValidation gives it: cost matrices and HTML page announced, their values left
// out.
void LeaveOutBulkyParts(v1::ValidationReport& report);

}  // namespace wasserwarp::service

#endif  // WASSERWARP_SERVER_RPC_VALIDATION_RESOURCES_H_
