// Where validations live between the call that creates them and the last call that reads
// them: the queue the workers claim from, under leases, and the durable record of every
// result. One interface, so that the workers, the reactors and the service do not depend on
// which database holds it (SQLite for one server; PostgreSQL, shared by replicas).
//
// A worker holds a RUNNING validation under a lease it renews; a lease that runs out (its
// worker died) makes the validation claimable again, and the next claim runs it from the start.
// Only the lease's holder may renew or finish it, so a worker that lost its lease cannot
// overwrite another's result.

#ifndef WASSERWARP_SERVER_VALIDATION_STORE_H_
#define WASSERWARP_SERVER_VALIDATION_STORE_H_

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "validation_record.h"

namespace wasserwarp::service {

// One page of a listing, newest first.
struct ValidationPage {
  std::vector<ValidationRecord> validations;  // without their reports
  // Where the next page starts; unset on the last page.
  std::optional<int64_t> next_key;
};

// What a renewal tells the worker.
struct LeaseRenewal {
  bool cancel_requested = false;
};

class ValidationStore {
 public:
  virtual ~ValidationStore() = default;

  // A new QUEUED validation; AlreadyExists when its id is taken in its session.
  virtual absl::Status Insert(const ValidationRecord& record) = 0;
  // NotFound when the session instance holds no such validation.
  virtual absl::StatusOr<ValidationRecord> Get(int64_t session_key, std::string_view id,
                                               bool with_report) = 0;
  // At most `limit` validations of the session created before the one at `before_key`
  // (unset: from the newest), in `state` when set.
  virtual absl::StatusOr<ValidationPage> List(int64_t session_key,
                                              std::optional<ValidationState> state,
                                              std::optional<int64_t> before_key, int limit) = 0;
  // QUEUED: CANCELLED now, with `reason`. RUNNING: marked, so that its worker stops at its next
  // renewal (the worker on this replica is told at once by the caller). Ended: unchanged.
  // Returns the validation as it is afterwards.
  virtual absl::StatusOr<ValidationRecord> RequestCancel(int64_t session_key, std::string_view id,
                                                         const absl::Status& reason,
                                                         absl::Time now) = 0;
  // QUEUED validations, for the --max_queued_jobs limit.
  virtual absl::StatusOr<int64_t> CountQueued() = 0;

  // The oldest validation that is QUEUED or RUNNING under a lease expired at `now`, now RUNNING
  // under `worker`'s lease until now + `lease`, started now, with one more attempt; unset when
  // there is none.
  virtual absl::StatusOr<std::optional<ValidationRecord>> Claim(std::string_view worker,
                                                                absl::Time now,
                                                                absl::Duration lease) = 0;
  // Extends `worker`'s lease and records `progress`. Aborted when the lease is no longer
  // `worker`'s (it expired and another worker claimed it, or the validation was deleted).
  virtual absl::StatusOr<LeaseRenewal> Renew(int64_t session_key, std::string_view id,
                                             std::string_view worker, absl::Time now,
                                             absl::Duration lease, std::string_view progress) = 0;
  // Ends `worker`'s validation: SUCCEEDED with `report`, or FAILED or CANCELLED with `error`.
  // Aborted when the lease is no longer `worker`'s.
  virtual absl::Status Finish(int64_t session_key, std::string_view id, std::string_view worker,
                              ValidationState state, const absl::Status& error,
                              std::string_view report, absl::Time now) = 0;
  // Hands `worker`'s RUNNING validations back to the queue (a replica shutting down); they
  // keep their attempt counts.
  virtual absl::Status Release(std::string_view worker) = 0;

  // Removes every validation of the session instance (the session was deleted).
  virtual absl::Status DeleteSession(int64_t session_key) = 0;
  // Removes the validations of every session instance not in `live_keys` (sessions that
  // expired); returns how many went.
  virtual absl::StatusOr<int64_t> DeleteAllBut(const std::set<int64_t>& live_keys) = 0;

  // For monitoring: validations by state, and leases held by anyone.
  struct Counts {
    int64_t by_state[6] = {};
    int64_t leases_held = 0;
  };
  virtual absl::StatusOr<Counts> CountAll(absl::Time now) = 0;
};

}  // namespace wasserwarp::service

#endif  // WASSERWARP_SERVER_VALIDATION_STORE_H_
