// The sessions a server holds in memory: their settings, owners and committed
// runs, the bytes they hold or are receiving against the limits, their leases
// and their idle expiry. Thread-safe. Writing through to disk is SessionSync's
// (session_sync.h), the periodic sweep of idle sessions SessionSweeper's
// (session_sweeper.h), and rendering for the API the wire module's.
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
#include "sessions/session_lease.h"
#include "wasserwarp/parameter_overrides.h"
#include "wasserwarp/series.h"
#include "wire/session_resource.h"

namespace wasserwarp::service {

class PostgresSessions;
class SessionSync;
struct PersistedSession;

struct StoredRun {
  std::shared_ptr<const Series> series;
  wire::RunRole role = wire::RunRole::kSimulation;
  std::optional<double> weight;
  // Simulated runs only; kept with the run for the validations of a parameter study.
  wire::SimulationInputs inputs;
  absl::Time commit_time;
  int64_t bytes = 0;
  // The shared database's key of the run (0 without one): runs are in the order of their keys.
  int64_t database_key = 0;
};

struct SessionSnapshot {
  std::string id;
  int64_t key = 0;  // SessionRef::key
  SessionLease lease;
  ParameterOverrides default_parameters;
  std::vector<StoredRun> simulation;  // in commit order
  std::vector<StoredRun> reference;
};

struct SessionSettings {
  ParameterOverrides default_parameters;
  std::map<std::string, std::string> labels;
  std::optional<absl::Duration> idle_ttl;  // unset: the server's default
  // The principal that created the session (--auth_tokens_file); "" is the
  // anonymous principal of a server without access control. Only the owner
  // sees or uses the session: to anyone else it does not exist.
  std::string owner;
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

// The sample data bytes of a run: 8 per time and per value.
int64_t SampleBytes(int64_t times, int64_t values);
// The bytes of a run's header, held with its samples: its text, and 8 per parameter value.
int64_t HeaderBytes(std::string_view series_id, const std::vector<std::string>& channels,
                    const wire::SimulationInputs& inputs = {});

class SessionStore {
 public:
  // With a `sync` (optional; it must outlive the store), every creation,
  // committed run and deletion is on disk before it is acknowledged.
  //
  // With `shared` instead (PostgreSQL, --postgres_url; it must outlive the store), the
  // database holds every replica's sessions and this store is this replica's view of them: each
  // use of a session reads the session's row and any runs it lacks first, and every write goes
  // to the database first, which enforces the limits for all replicas.
  explicit SessionStore(const SessionLimits& limits, SessionSync* sync = nullptr,
                        PostgresSessions* shared = nullptr);

  // Sessions read back from disk (SessionSync::Restore), into an empty store
  // before it serves. Each is held whatever the limits; the errors name what
  // is over a limit (it then takes nothing more until enough is deleted).
  std::vector<absl::Status> Adopt(std::vector<PersistedSession> sessions);
  // The database key and last use of every session, for SessionSync to save.
  std::vector<std::pair<int64_t, absl::Time>> LastUses() const;

  // An empty id asks for a random one. AlreadyExists for a taken id, whoever
  // owns it (ids are one namespace), ResourceExhausted at --max_sessions.
  absl::StatusOr<wire::SessionRecord> Create(std::string id, SessionSettings settings);

  // The calls below see only the sessions of `owner`: another principal's
  // session is NotFound exactly like an unknown one.

  // With its runs. NotFound when unknown or expired.
  absl::StatusOr<wire::SessionRecord> Get(std::string_view id, std::string_view owner = {});
  // At most `limit` sessions with ids after `after_id`, without their runs;
  // `more` tells whether any follow.
  absl::StatusOr<std::vector<wire::SessionRecord>> List(std::string_view after_id, int limit,
                                                        bool& more, std::string_view owner = {});
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
  // AlreadyExists for a duplicate id in the role, ResourceExhausted at
  // --max_runs_per_session.
  absl::Status CheckNewRun(const SessionRef& session, wire::RunRole role,
                           std::string_view series_id);
  // Makes a run visible; its `bytes` move from reserved to held. On error
  // the reservation stays the caller's to release.
  absl::StatusOr<wire::RunRecord> Commit(const SessionRef& session, StoredRun run);

  // Drops sessions idle longer than their TTL at `now`, unless leased;
  // returns their ids. SessionSweeper calls it periodically.
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
    int64_t reserved_bytes = 0;  // runs being uploaded
  };
  Totals totals() const;

 private:
  friend class SessionLease;

  struct Session {
    uint64_t instance = 0;
    SessionSettings settings;
    absl::Duration idle_ttl;
    absl::Time create_time;
    absl::Time last_use;
    std::vector<StoredRun> runs;
    std::set<std::pair<wire::RunRole, std::string>> run_keys;
    // With a shared database: the keys of the runs held.
    std::set<int64_t> run_database_keys;
    int64_t held_bytes = 0;
    int64_t reserved_bytes = 0;
    // Live leases: a validation may wait and run far longer than the TTL.
    int leases = 0;
    // The database's key of the session (0 without a database).
    int64_t database_key = 0;
    int64_t key() const {
      return database_key != 0 ? database_key : static_cast<int64_t>(instance);
    }
  };
  using SessionMap = std::map<std::string, Session, std::less<>>;

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
  // Drops a session; with a sync, its key waits there for deletion from disk.
  void Erase(SessionMap::iterator it) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  std::vector<std::string> ExpireIdleLocked(absl::Time now) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::Status CheckNewRunLocked(const std::string& id, const Session& session, wire::RunRole role,
                                 std::string_view series_id) const ABSL_SHARED_LOCKS_REQUIRED(mu_);
  std::string UnusedRandomId() const ABSL_SHARED_LOCKS_REQUIRED(mu_);
  // The shared database's view of session `id` into this store (session_store_shared.cc): its
  // row (a session gone there goes here too) and the runs this store lacks. OK without one.
  absl::Status Refresh(std::string_view id) ABSL_LOCKS_EXCLUDED(mu_);
  // A use of a session, saved to the shared database so that other replicas' sweeps see it.
  void SaveUse(int64_t database_key, absl::Time now);
  absl::StatusOr<std::vector<wire::SessionRecord>> ListShared(std::string_view after_id, int limit,
                                                              bool& more, std::string_view owner);
  // With a shared database: saves this replica's last uses there and deletes the sessions idle
  // there (their ids); errors are logged, and the next sweep tries again.
  std::vector<std::string> ExpireShared(absl::Time now) ABSL_LOCKS_EXCLUDED(mu_);
  // Adds `run` to `session` in the order of database keys; false when it holds it already.
  bool AddRun(Session& session, StoredRun run) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  static wire::RunRecord RecordOf(const StoredRun& run);
  static wire::SessionRecord RecordOf(const std::string& id, const Session& session,
                                      bool with_runs);

  const SessionLimits limits_;
  SessionSync* const sync_;
  PostgresSessions* const shared_;
  // Serializes creations and commits, whose database writes happen outside
  // mu_: nothing else can take an id, a session slot or a run slot while
  // one is written, and runs reach the disk in their commit order.
  absl::Mutex write_mu_ ABSL_ACQUIRED_BEFORE(mu_);
  mutable absl::Mutex mu_;
  SessionMap sessions_ ABSL_GUARDED_BY(mu_);
  uint64_t next_instance_ ABSL_GUARDED_BY(mu_) = 1;
  int64_t total_held_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t total_reserved_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace wasserwarp::service

#endif  // WASSERWARP_SERVER_SESSIONS_SESSION_STORE_H_
