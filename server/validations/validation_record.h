// A validation as the store keeps it, in plain values: the request, the report and the progress
// are opaque bytes (serialized wasserwarp.v1 messages) that only the service decodes, so that
// no store backend holds proto types.

#ifndef WASSERWARP_SERVER_VALIDATIONS_VALIDATION_RECORD_H_
#define WASSERWARP_SERVER_VALIDATIONS_VALIDATION_RECORD_H_

#include <cstdint>
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
  absl::Time create_time;
  std::optional<absl::Time> start_time;
  std::optional<absl::Time> end_time;
  int attempts = 0;
  bool cancel_requested = false;
  std::string progress;  // wasserwarp.v1.ValidateProgress; empty: none recorded
  // FAILED and CANCELLED.
  absl::Status error;
  // SUCCEEDED, where asked for: wasserwarp.v1.ValidationReport with every part.
  std::string report;
  // The worker that holds it while RUNNING, until lease_expire.
  std::string lease_owner;
  std::optional<absl::Time> lease_expire;
};

}  // namespace wasserwarp::service

#endif  // WASSERWARP_SERVER_VALIDATIONS_VALIDATION_RECORD_H_
