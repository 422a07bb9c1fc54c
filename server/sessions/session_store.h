// The sessions a server holds in memory: their settings, owners and committed
// runs, the bytes they hold or are receiving against the limits, their leases
// and their idle expiry. Thread-safe. Where they are kept beyond memory is its
// backend's (session_backend.h), the periodic sweep of idle sessions
// SessionSweeper's (session_sweeper.h), and rendering for the API the RPC
// handlers' (rpc/session_proto.h).
//
// Runs are immutable once committed and shared by pointer, so a snapshot for
// a validation copies no sample data and later uploads or deletion do not
// disturb a validation in progress.

#ifndef WASSERWARP_SERVER_SESSIONS_SESSION_STORE_H_
#define WASSERWARP_SERVER_SESSIONS_SESSION_STORE_H_

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "ops/server_config.h"
#include "sessions/session_backend.h"
#include "sessions/session_lease.h"
#include "sessions/session_record.h"
#include "sessions/stored_session.h"
#include "wasserwarp/parameter_overrides.h"
#include "wasserwarp/run_role.h"
#include "wasserwarp/series.h"

namespace wasserwarp::service {

struct SessionSnapshot {
  std::string id;
  int64_t key = 0;  // SessionRef::key
  SessionLease lease;
  ParameterOverrides default_parameters;
  std::vector<StoredRun> simulation;  // in commit order
  std::vector<StoredRun> reference;
};

// One instance of a session: ids can be reused after a deletion, so uploads
// hold the instance they started on.
struct SessionRef {
  std::string id;
  uint64_t instance = 0;
  // Never reused, also across restarts with a database (its key there): what validations
  // are stored under.
  int64_t key = 0;
};

class SessionStore {
 public:
  // Sessions in memory only.
  explicit SessionStore(const SessionLimits& limits);
  // Sessions kept in `backend` too: every creation, committed run and deletion is there before
  // it is acknowledged.
  SessionStore(const SessionLimits& limits, std::unique_ptr<SessionBackend> backend);

  // The sessions the backend kept from before, into an empty store before it serves. Each is
  // held whatever the limits; the statuses name what is over a limit (it then takes nothing
  // more until enough is deleted).
  absl::StatusOr<std::vector<absl::Status>> Restore(absl::Time now);
  // Saves what only memory holds in the backend (SessionBackend::Save): after each sweep, and
  // at shutdown.
  absl::Status Save();

  // An empty id asks for a random one. AlreadyExists for a taken id, whoever
  // owns it (ids are one namespace), ResourceExhausted at --max_sessions, and at
  // --max_sessions_per_principal or --max_bytes_per_principal of its owner.
  absl::StatusOr<SessionRecord> Create(std::string id, SessionSettings settings);

  // The calls below see only the sessions of `owner`: another principal's
  // session is NotFound exactly like an unknown one.

  // With its runs. NotFound when unknown or expired.
  absl::StatusOr<SessionRecord> Get(std::string_view id, std::string_view owner = {});
  // At most `limit` sessions with ids after `after_id`, without their runs;
  // `more` tells whether any follow.
  absl::StatusOr<std::vector<SessionRecord>> List(std::string_view after_id, int limit, bool& more,
                                                  std::string_view owner = {});
  absl::Status Delete(std::string_view id, std::string_view owner = {});

  // Uses of a session: each resets its idle TTL. The snapshot's lease keeps
  // the session from expiring until it ends.
  absl::StatusOr<SessionRef> Open(std::string_view id, std::string_view owner = {});
  absl::StatusOr<SessionSnapshot> Snapshot(std::string_view id, std::string_view owner = {});
  void Touch(std::string_view id);

  // In-flight upload accounting, so a growing run is refused before it is
  // held rather than after.
  absl::Status Reserve(const SessionRef& session, int64_t bytes);
  void Release(const SessionRef& session, int64_t bytes);
  // Memory a job of `owner` holds while it waits and runs outside any session (a ComputeTwed's
  // request and runs), counted with run data toward --max_bytes_per_principal and
  // --max_total_bytes; ResourceExhausted naming the limit it would pass.
  absl::Status ReserveJob(std::string_view owner, int64_t bytes);
  void ReleaseJob(std::string_view owner, int64_t bytes);
  // AlreadyExists for a duplicate id in the role, ResourceExhausted at
  // --max_runs_per_session.
  absl::Status CheckNewRun(const SessionRef& session, RunRole role, std::string_view series_id);
  // Makes a run visible; its `bytes` move from reserved to held. On error
  // the reservation stays the caller's to release.
  absl::StatusOr<RunRecord> Commit(const SessionRef& session, StoredRun run);

  // Drops sessions idle longer than their TTL at `now`, unless leased, and those the backend
  // expired; returns their ids. SessionSweeper calls it periodically.
  std::vector<std::string> ExpireIdle(absl::Time now);

  int64_t total_bytes() const;
  // SessionRef::key of every session held, expired or not.
  std::set<int64_t> Keys() const;

  // What the store holds in memory, for monitoring: expired sessions count
  // until they are dropped.
  struct Totals {
    int64_t sessions = 0;
    int64_t runs = 0;
    int64_t held_bytes = 0;      // committed runs
    int64_t reserved_bytes = 0;  // runs being uploaded, and jobs' inputs (ReserveJob)
  };
  Totals totals() const;

 private:
  struct Session {
    uint64_t instance = 0;
    SessionSettings settings;
    absl::Duration idle_ttl;
    absl::Time create_time;
    absl::Time last_use;
    std::vector<StoredRun> runs;
    std::set<std::pair<RunRole, std::string>> run_keys;
    // The backend's keys of the runs held, where runs have keys.
    std::set<int64_t> run_database_keys;
    int64_t held_bytes = 0;
    int64_t reserved_bytes = 0;
    // Of its labels' keys and values, counted with its run data against the byte limits.
    int64_t label_bytes = 0;
    int64_t bytes() const { return held_bytes + reserved_bytes + label_bytes; }
    // Live leases: a validation may wait and run far longer than the TTL.
    int leases = 0;
    // The backend's key of the session (0 where sessions have none).
    int64_t database_key = 0;
    int64_t key() const {
      return database_key != 0 ? database_key : static_cast<int64_t>(instance);
    }
  };
  using SessionMap = std::map<std::string, Session, std::less<>>;

  // What the live sessions of one principal hold. Counted when asked, not kept in books of its
  // own: --max_sessions bounds the walk, and no method can then forget to update them.
  struct PrincipalUse {
    int64_t sessions = 0;
    int64_t bytes = 0;  // Session::bytes(), and ReserveJob's
  };
  PrincipalUse UseOf(std::string_view owner, absl::Time now) const ABSL_SHARED_LOCKS_REQUIRED(mu_);
  // ResourceExhausted naming --max_total_bytes when `bytes` more would pass it.
  absl::Status CheckTotalLocked(int64_t bytes) const ABSL_SHARED_LOCKS_REQUIRED(mu_);
  void EndLease(const std::string& id, uint64_t instance);
  static bool Expired(const Session& session, absl::Time now);
  // Expired sessions are dropped on the way, so that lookups never depend
  // on when the last sweep ran.
  Session* FindLive(std::string_view id, absl::Time now) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // FindLive, and nullptr for a session `owner` does not own.
  Session* FindOwned(std::string_view id, std::string_view owner, absl::Time now)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  Session* FindInstance(const SessionRef& session, absl::Time now)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Drops a session, and tells the backend.
  void Erase(SessionMap::iterator it) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  std::vector<std::string> ExpireIdleLocked(absl::Time now) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::Status CheckNewRunLocked(const std::string& id, const Session& session, RunRole role,
                                 std::string_view series_id) const ABSL_SHARED_LOCKS_REQUIRED(mu_);
  std::string UnusedRandomId() const ABSL_SHARED_LOCKS_REQUIRED(mu_);
  // Held whatever the limits; the statuses name what is over one.
  std::vector<absl::Status> Adopt(std::vector<PersistedSession> sessions) ABSL_LOCKS_EXCLUDED(mu_);
  // The database key and last use of every session, for the backend to save.
  LastUses GetLastUses() const ABSL_LOCKS_EXCLUDED(mu_);
  // What the backend holds of session `id` that this store may lack (SessionBackend::Read):
  // its row (a session gone there goes here too) and the runs this store lacks.
  absl::Status Refresh(std::string_view id) ABSL_LOCKS_EXCLUDED(mu_);
  // Adds `run` to `session` in the order of database keys; false when it holds it already.
  bool AddRun(Session& session, StoredRun run) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  static RunRecord RecordOf(const StoredRun& run);
  static SessionRecord RecordOf(const std::string& id, const Session& session, bool with_runs);
  SessionRecord RecordOf(const SessionSummary& summary) const;

  const SessionLimits limits_;
  const std::unique_ptr<SessionBackend> backend_;
  // Serializes creations and commits, whose database writes happen outside
  // mu_: nothing else can take an id, a session slot or a run slot while
  // one is written, and runs reach the disk in their commit order.
  absl::Mutex write_mu_ ABSL_ACQUIRED_BEFORE(mu_);
  mutable absl::Mutex mu_;
  SessionMap sessions_ ABSL_GUARDED_BY(mu_);
  uint64_t next_instance_ ABSL_GUARDED_BY(mu_) = 1;
  int64_t total_held_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t total_reserved_ ABSL_GUARDED_BY(mu_) = 0;
  // ReserveJob's, by owner (also in total_reserved_).
  std::map<std::string, int64_t, std::less<>> job_bytes_ ABSL_GUARDED_BY(mu_);
};

}  // namespace wasserwarp::service

#endif  // WASSERWARP_SERVER_SESSIONS_SESSION_STORE_H_
