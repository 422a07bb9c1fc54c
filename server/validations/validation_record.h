// A validation as the store keeps it, in plain values: the request, the report and the progress
// are opaque bytes (serialized wasserwarp.v1 messages) that only the service decodes, so that
// no store backend holds proto types.

#ifndef WASSERWARP_SERVER_VALIDATIONS_VALIDATION_RECORD_H_
#define WASSERWARP_SERVER_VALIDATIONS_VALIDATION_RECORD_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "wasserwarp/run_role.h"

namespace wasserwarp::service {

// The numbers are the store's and the wire's (ValidationState).
enum class ValidationState {
  kQueued = 1,
  kRunning = 2,
  kSucceeded = 3,
  kFailed = 4,
  kCancelled = 5,
};

inline bool IsFinal(ValidationState state) {
  return state == ValidationState::kSucceeded || state == ValidationState::kFailed ||
         state == ValidationState::kCancelled;
}

// A run a validation validates: fixed at creation, so that a later upload changes nothing and
// a validation run again after its worker was lost computes exactly what it would have.
struct ValidatedRun {
  std::string series_id;
  RunRole role = RunRole::kSimulation;
  uint64_t checksum = 0;  // RunChecksum (storage/byte_encoding.h)
};

// The numbers are the store's and the wire's (ValidationEvent.Kind).
enum class ValidationEventKind {
  kCreate = 1,
  kStart = 2,
  kEnd = 3,
  kCancel = 4,
  kSessionDelete = 5,
  kSessionExpire = 6,
};

// Something that happened to a validation: the audit trail a record keeps.
struct ValidationEvent {
  ValidationEventKind kind = ValidationEventKind::kCreate;
  absl::Time time;
  std::string principal;
  std::string replica;
};

// A SUCCEEDED validation's result in the numbers that lists and filters read, so that they need
// not decode reports.
struct ValidationOutcome {
  double distance = 0.0;
  std::optional<bool> passed;
  std::optional<double> p_value;
  std::optional<double> ratio;
  std::optional<double> ratio_interval_lo;
  std::optional<double> ratio_interval_hi;
};

// What a worker stores when a validation ends.
struct ValidationResult {
  ValidationState state = ValidationState::kSucceeded;
  // FAILED and CANCELLED.
  absl::Status error;
  // SUCCEEDED: wasserwarp.v1.ValidationReport with every part, its outcome and the build that
  // computed it (wasserwarp.v1.EngineInfo).
  std::string report;
  ValidationOutcome outcome;
  std::string engine;
};

struct ValidationRecord {
  // The session instance it belongs to (SessionRef::key): never reused, unlike session ids.
  int64_t session_key = 0;
  std::string session_id;
  std::string id;
  std::string owner;
  ValidationState state = ValidationState::kQueued;
  std::string request;               // wasserwarp.v1.ValidateRequest
  std::string effective_parameters;  // wasserwarp.v1.ValidationParameters
  std::vector<ValidatedRun> runs;
  // The request's labels, by key: what filters find a record by.
  std::map<std::string, std::string> labels;
  // SHA-256 (hexadecimal) of the effective request and the runs' checksums.
  std::string request_digest;
  // wasserwarp.v1.Validation holding the runs as validated, in detail (ValidatedRun): evidence
  // that no job reads.
  std::string evidence;
  absl::Time create_time;
  std::optional<absl::Time> start_time;
  std::optional<absl::Time> end_time;
  int attempts = 0;
  // The replicas that lost it, in order: each held its lease until it expired (the replica
  // died, or stopped renewing) and another claim took it over. --max_attempts bounds them.
  std::vector<std::string> lost_replicas;
  bool cancel_requested = false;
  std::string progress;  // wasserwarp.v1.ValidateProgress; empty: none recorded
  // FAILED and CANCELLED.
  absl::Status error;
  // SUCCEEDED, where asked for: wasserwarp.v1.ValidationReport with every part.
  std::string report;
  // SUCCEEDED.
  std::optional<ValidationOutcome> outcome;
  // Once it ended: wasserwarp.v1.EngineInfo.
  std::string engine;
  // In the order they happened (Get only; lists leave them out).
  std::vector<ValidationEvent> events;
  // The worker that holds it while RUNNING, until lease_expire.
  std::string lease_owner;
  std::optional<absl::Time> lease_expire;
};

// Why a session a record belongs to is gone, or that it is not (the numbers are the store's and
// the wire's Session.State).
enum class RecordedSessionState { kActive = 1, kExpired = 2, kDeleted = 3 };

// A session as the validation store keeps it for its records: written with each validation of
// it, marked when the session expires or is deleted, and then the session's tombstone, which
// answers for it while records refer to it.
struct RecordedSession {
  int64_t key = 0;  // SessionRef::key
  std::string id;
  std::string owner;
  RecordedSessionState state = RecordedSessionState::kActive;
  absl::Time create_time;
  std::optional<absl::Time> delete_time;
  // wasserwarp.v1.Session without samples: labels, default parameters, idle TTL and runs as of
  // its latest validation.
  std::string summary;
};

}  // namespace wasserwarp::service

#endif  // WASSERWARP_SERVER_VALIDATIONS_VALIDATION_RECORD_H_
