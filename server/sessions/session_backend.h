// Where a session store (session_store.h) keeps its sessions and runs beyond its own memory. One
// interface, so that the store does not depend on which backend it has: none (memory only,
// memory_session_backend.h), a data directory's SQLite database that the store writes through to
// and restores from (--data_dir, sqlite_session_backend.h), or the PostgreSQL database that
// replicas share (--postgres_url, postgres_session_backend.h).
//
// The store's memory is the truth for the memory and SQLite backends, which answer the reads
// below with nothing to do. In PostgreSQL the database is the truth and the store this
// replica's view of it: the store reads a session's row and the runs it lacks before each use,
// writes go to the database first, which enforces the limits for every replica at once, and the
// database expires idle sessions for all of them.

#ifndef WASSERWARP_SERVER_SESSIONS_SESSION_BACKEND_H_
#define WASSERWARP_SERVER_SESSIONS_SESSION_BACKEND_H_

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "sessions/stored_session.h"

namespace wasserwarp::service {

// The last use of sessions, by their keys.
using LastUses = std::vector<std::pair<int64_t, absl::Time>>;

// What a backend holds of one session, read before each use of it.
struct SessionRow {
  // False where the store's memory is the truth: there is nothing to read, and no session.
  bool authoritative = false;
  // The session without its runs; unset when it is gone (deleted, or expired and swept,
  // through some replica).
  std::optional<PersistedSession> session;
};

// Thread-safe. Every method but Dropped is called outside the store's lock.
class SessionBackend {
 public:
  virtual ~SessionBackend() = default;

  // The sessions kept from before, live at `now` with their runs, for an empty store before it
  // serves; `default_idle_ttl` applies to sessions that set none.
  virtual absl::StatusOr<std::vector<PersistedSession>> Load(absl::Time now,
                                                             absl::Duration default_idle_ttl) = 0;

  // Reads, before a use.
  virtual absl::StatusOr<SessionRow> Read(const std::string& id) = 0;
  // The runs of the session with `session_key` whose keys are not in `known`, in key order.
  virtual absl::StatusOr<std::vector<StoredRun>> ReadRuns(const std::string& id,
                                                          int64_t session_key,
                                                          const std::set<int64_t>& known) = 0;
  // At most `limit` live sessions of `owner` with ids after `after_id`, in id order;
  // std::nullopt where the store's memory holds every session and lists them itself.
  virtual absl::StatusOr<std::optional<std::vector<SessionSummary>>> List(
      const std::string& owner, const std::string& after_id, int limit, absl::Time now) = 0;

  // Writes, each kept when it returns: the store acknowledges them after.
  //
  // A new session's key, 0 where sessions have none. AlreadyExists for a taken id and
  // ResourceExhausted naming --max_sessions where the backend enforces the limits.
  virtual absl::StatusOr<int64_t> InsertSession(const std::string& id,
                                                const SessionSettings& settings,
                                                absl::Time now) = 0;
  // The run's key, 0 where runs have none (they are then in the order they are committed).
  // NotFound when the session is gone; AlreadyExists and ResourceExhausted as InsertSession.
  virtual absl::StatusOr<int64_t> InsertRun(int64_t session_key, const std::string& session_id,
                                            const StoredRun& run) = 0;
  // The store dropped the session (deleted, expired, or gone from the backend). Called under
  // the store's lock, so it takes only its own.
  virtual void Dropped(int64_t session_key) = 0;
  // A deletion the store dropped already. NotFound when it was gone (another replica deleted
  // it first).
  virtual absl::Status Delete(int64_t session_key, const std::string& session_id) = 0;

  // A use of a session at `now`. Errors are logged: the next sweep saves it.
  virtual void SaveUse(int64_t session_key, absl::Time now) = 0;
  // At each sweep, before the store's own: the sessions the backend expired at `now` (their
  // ids), after saving the store's `last_uses`. Errors are logged: the next sweep tries again.
  virtual std::vector<std::string> ExpireIdle(absl::Time now, const LastUses& last_uses) = 0;
  // After each sweep and at shutdown: what only the store's memory holds, so that a restart
  // counts idle time from the last uses.
  virtual absl::Status Save(const LastUses& last_uses) = 0;
};

}  // namespace wasserwarp::service

#endif  // WASSERWARP_SERVER_SESSIONS_SESSION_BACKEND_H_
