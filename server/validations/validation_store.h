// Where validations live between the call that creates them and the last call that reads
// them: the queue the workers claim from, under leases, and the durable record of every
// result. One interface, so that the workers, the reactors and the service do not depend on
// which database holds it (SQLite for one server; PostgreSQL, shared by replicas).
//
// A worker holds a RUNNING validation under a lease it renews; a lease that runs out (its
// worker died) makes the validation claimable again, and the next claim runs it from the start.
// Only the lease's holder may renew or finish it, so a worker that lost its lease cannot
// overwrite another's result.
//
// A record outlives its session's run data: when the session expires or is deleted, the store
// keeps its RecordedSession as a tombstone, and the record stays until it is deleted, its
// session's tombstone is purged, or its retention passes.
//
// A large validation's cost matrices are tiles (cost_tiles.h): work items of a RUNNING
// validation that every replica's workers claim, renew and finish under leases of their own,
// like validations. A finished tile keeps its TWEDs (exact float64) and the replica that
// computed it until its validation ends, which deletes them.

#ifndef WASSERWARP_SERVER_VALIDATIONS_VALIDATION_STORE_H_
#define WASSERWARP_SERVER_VALIDATIONS_VALIDATION_STORE_H_

#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "validations/validation_filter.h"
#include "validations/validation_record.h"
#include "wasserwarp/cost_tiles.h"
#include "wasserwarp/report.h"

namespace wasserwarp::service {

// What a listing selects.
struct ValidationQuery {
  // One session instance's records; unset: those of every session `owner` created records in,
  // tombstones included.
  std::optional<int64_t> session_key;
  std::string owner;
  std::optional<ValidationState> state;
  ValidationFilter filter;
  ValidationOrder order = ValidationOrder::kNewestFirst;
};

// A place in a listing's order (create time, then key): where a page ends and the next starts.
struct ValidationCursor {
  int64_t create_time_ns = 0;
  int64_t key = 0;
};

// One page of a listing.
struct ValidationPage {
  std::vector<ValidationRecord> validations;  // without their reports and events
  // Where the next page starts; unset on the last page.
  std::optional<ValidationCursor> next;
};

// How often a lease holder renews (validations and tiles alike): three renewals per lease keep
// it through a missed one; once a second at least, so that watchers on other replicas see
// progress that often, and a cancel reaches a tile within about a second.
inline absl::Duration LeaseRenewalInterval(absl::Duration lease) {
  return std::min(lease / 3, absl::Seconds(1));
}

// What a renewal tells the worker.
struct LeaseRenewal {
  bool cancel_requested = false;
};

enum class TileState { kQueued = 1, kRunning = 2, kDone = 3 };

// One tile of one validation, as the store keeps it.
struct TileRecord {
  int64_t session_key = 0;
  std::string validation_id;
  CostTile tile;
  TileState state = TileState::kQueued;
  // Claims so far, this one included: above 1, an earlier holder lost its lease.
  int attempts = 0;
  std::string lease_owner;  // the worker computing it, while kRunning
  std::optional<absl::Time> lease_expire;
  uint64_t cells_done = 0;  // kRunning: as of its last renewal; kDone: tile.cells
  // kDone: the replica (--replica_name) that computed it, and its values: tile.rows() x
  // tile.cols() row-major float64, little-endian (ReadTiles only).
  std::string replica;
  std::string values;
};

// The tiles of a validation, or of one of its matrices.
struct TileCounts {
  int64_t tiles = 0;
  int64_t done = 0;
  uint64_t cells = 0;
  // Of the done tiles, and of the running ones as of their last renewal.
  uint64_t cells_done = 0;
};

// Which tiles a claim may take: any RUNNING validation's, or only one's.
// QUEUED validations, in all and of one owner, for --max_queued_jobs and
// --max_queued_jobs_per_principal.
struct QueuedCounts {
  int64_t all = 0;
  int64_t of_owner = 0;
};

// What a claim may take: none of an owner with this many validations RUNNING under a live lease
// (--max_running_jobs_per_principal).
struct ClaimLimits {
  int max_running_per_owner = std::numeric_limits<int>::max();
};

struct TileClaimScope {
  std::optional<int64_t> session_key;
  std::string validation_id;  // with session_key
  // Only of validations another worker holds: one whose holder computes its tiles with every
  // core here gains nothing from this worker's other slots.
  bool others_only = false;
};

class ValidationStore {
 public:
  virtual ~ValidationStore() = default;

  // A new QUEUED validation with its events (its creation), and `session` as it is now (kept,
  // replacing what was kept of it); AlreadyExists when its id is taken in its session.
  virtual absl::Status Insert(const ValidationRecord& record, const RecordedSession& session) = 0;
  // With its events. NotFound when the session instance holds no such validation.
  virtual absl::StatusOr<ValidationRecord> Get(int64_t session_key, std::string_view id,
                                               bool with_report) = 0;
  // At most `limit` validations that `query` selects, after `after` in its order (unset: from
  // the first).
  virtual absl::StatusOr<ValidationPage> List(const ValidationQuery& query,
                                              std::optional<ValidationCursor> after, int limit) = 0;
  // QUEUED: CANCELLED now, with `reason`. RUNNING: marked, so that its worker stops at its next
  // renewal (the worker on this replica is told at once by the caller). Either way a CANCEL
  // event of `principal`. Ended: unchanged. Returns the validation as it is afterwards.
  virtual absl::StatusOr<ValidationRecord> RequestCancel(int64_t session_key, std::string_view id,
                                                         const absl::Status& reason,
                                                         std::string_view principal,
                                                         absl::Time now) = 0;
  // Removes an ended validation, and its session's tombstone when it was the tombstone's last.
  // NotFound when it is not there; FailedPrecondition while it is QUEUED or RUNNING.
  virtual absl::Status Delete(int64_t session_key, std::string_view id) = 0;
  virtual absl::StatusOr<QueuedCounts> CountQueued(std::string_view owner) = 0;

  // A validation that is QUEUED or RUNNING under a lease expired at `now`, now RUNNING under
  // `worker`'s lease until now + `lease`, started now (a START event of `worker`), with one more
  // attempt; unset when there is none. A RUNNING one's lease holder joins its lost_replicas.
  // Fair between owners: of the owners under `limits` with
  // such validations, the one with the fewest RUNNING under live leases, ties to the one whose
  // last start is the oldest (never started first), then the oldest validation; that owner's
  // oldest. An owner with one validation thus waits for at most one running validation of each
  // other owner.
  virtual absl::StatusOr<std::optional<ValidationRecord>> Claim(std::string_view worker,
                                                                absl::Time now,
                                                                absl::Duration lease,
                                                                const ClaimLimits& limits) = 0;
  // Extends `worker`'s lease and records `progress`. Aborted when the lease is no longer
  // `worker`'s (it expired and another worker claimed it, or the validation was deleted).
  virtual absl::StatusOr<LeaseRenewal> Renew(int64_t session_key, std::string_view id,
                                             std::string_view worker, absl::Time now,
                                             absl::Duration lease, std::string_view progress) = 0;
  // Ends `worker`'s validation with `result` (an END event); its tiles go. Aborted when the
  // lease is no longer `worker`'s.
  virtual absl::Status Finish(int64_t session_key, std::string_view id, std::string_view worker,
                              const ValidationResult& result, absl::Time now) = 0;
  // Hands `worker`'s RUNNING validations and tiles back to the queue (a replica shutting
  // down); they keep their attempt counts.
  virtual absl::Status Release(std::string_view worker) = 0;

  // The tiles of a RUNNING validation, kQueued. Tiles it has already (the same matrix and
  // index: a validation run again after its worker was lost plans the same tiles) stay as they
  // are, done ones included, so that only the work in flight is lost; InvalidArgument when
  // such a tile's bounds differ. NotFound when the validation is not there.
  virtual absl::Status InsertTiles(int64_t session_key, std::string_view id,
                                   const std::vector<CostTile>& tiles) = 0;
  // The first tile in `scope` that is kQueued, or kRunning under a lease expired at `now`, of
  // a RUNNING validation without a cancel request (oldest validation first, then matrix, then
  // index): now kRunning under `worker`'s lease until now + `lease`, with one more attempt.
  // Unset when there is none.
  virtual absl::StatusOr<std::optional<TileRecord>> ClaimTile(std::string_view worker,
                                                              absl::Time now, absl::Duration lease,
                                                              const TileClaimScope& scope) = 0;
  // Extends `worker`'s lease on the tile and records `cells_done`. Aborted when the tile is
  // not `worker`'s any more or is gone (its validation ended or was deleted);
  // cancel_requested when its validation is to stop.
  virtual absl::StatusOr<LeaseRenewal> RenewTile(int64_t session_key, std::string_view id,
                                                 CostMatrixKind matrix, int index,
                                                 std::string_view worker, absl::Time now,
                                                 absl::Duration lease, uint64_t cells_done) = 0;
  // kDone with `values`, computed by `replica`. Aborted when the tile is not `worker`'s
  // (another worker holds it, or it is done already), so that no tile counts twice.
  virtual absl::Status FinishTile(int64_t session_key, std::string_view id, CostMatrixKind matrix,
                                  int index, std::string_view worker, std::string_view replica,
                                  std::string_view values) = 0;
  // The validation's tiles; of `matrix` only, when set.
  virtual absl::StatusOr<TileCounts> CountTiles(int64_t session_key, std::string_view id,
                                                std::optional<CostMatrixKind> matrix) = 0;
  // The tiles of `matrix`, by index, with their values.
  virtual absl::StatusOr<std::vector<TileRecord>> ReadTiles(int64_t session_key,
                                                            std::string_view id,
                                                            CostMatrixKind matrix) = 0;
  // Of the validation's done tiles, how many each replica computed, by replica name.
  virtual absl::StatusOr<std::vector<TileShare>> TileShares(int64_t session_key,
                                                            std::string_view id) = 0;

  // Sessions as their records keep them.
  //
  // The session instance is gone (`state`: deleted by `principal`, or expired) at `now`: its
  // kept session becomes a tombstone, and each of its records gets the event. Nothing to do for
  // a session without records.
  virtual absl::Status SessionGone(int64_t session_key, RecordedSessionState state,
                                   std::string_view principal, absl::Time now) = 0;
  // Sessions that expired since the last call: those kept as active whose instances are not in
  // `live_keys` (the sessions this server holds, read after `now`), except those with a record
  // created at `now` or later, which may be newer than `live_keys`; where sessions are shared,
  // those the shared database no longer holds, whatever `live_keys` says. Returns how many
  // became tombstones.
  virtual absl::StatusOr<int64_t> SessionsExpired(const std::set<int64_t>& live_keys,
                                                  absl::Time now) = 0;
  // The newest kept session with `id`, tombstone or not; unset when there is none.
  virtual absl::StatusOr<std::optional<RecordedSession>> FindSession(std::string_view id) = 0;
  // At most `limit` tombstones of `owner` with ids after `after_id`, in id order.
  virtual absl::StatusOr<std::vector<RecordedSession>> ListTombstones(std::string_view owner,
                                                                      std::string_view after_id,
                                                                      int limit) = 0;
  // Removes a tombstone and every record of its session; NotFound when there is none.
  virtual absl::Status PurgeSession(int64_t session_key) = 0;
  // Removes the records that ended before `cutoff` (--validation_retention), and tombstones
  // left without records; returns how many records went.
  virtual absl::StatusOr<int64_t> DeleteEndedBefore(absl::Time cutoff) = 0;

  // For monitoring: validations by state, and leases held by anyone.
  struct Counts {
    int64_t by_state[6] = {};
    int64_t leases_held = 0;
  };
  virtual absl::StatusOr<Counts> CountAll(absl::Time now) = 0;
};

}  // namespace wasserwarp::service

#endif  // WASSERWARP_SERVER_VALIDATIONS_VALIDATION_STORE_H_
