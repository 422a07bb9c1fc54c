// Sessions kept in a data directory's SQLite database (--data_dir, session_database.h): the
// store writes its creations, committed runs and deletions through to the database before it
// acknowledges them, and saves the rest later, at each sweep and at shutdown: the sessions
// dropped since (expired ones) and the last-use times that changed. Losing the later part to a
// crash is harmless: a dropped session is expired on disk too, and a session's expiry comes at
// most one sweep interval early. The store's memory is the truth, as it is without a database,
// so reads are answered as the memory backend answers them; the database restores it at start.

#ifndef WASSERWARP_SERVER_SESSIONS_SQLITE_SESSION_BACKEND_H_
#define WASSERWARP_SERVER_SESSIONS_SQLITE_SESSION_BACKEND_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "sessions/memory_session_backend.h"
#include "sessions/session_database.h"

namespace wasserwarp::service {

class SqliteSessionBackend : public MemorySessionBackend {
 public:
  // `database` must outlive the backend.
  explicit SqliteSessionBackend(SessionDatabase& database);

  absl::StatusOr<std::vector<PersistedSession>> Load(absl::Time now,
                                                     absl::Duration default_idle_ttl) override
      ABSL_LOCKS_EXCLUDED(mu_);
  absl::StatusOr<int64_t> InsertSession(const std::string& id, const SessionSettings& settings,
                                        absl::Time now) override ABSL_LOCKS_EXCLUDED(mu_);
  // Also the session's last use on disk. Runs have no key: their order is the order of commits.
  absl::StatusOr<int64_t> InsertRun(int64_t session_key, const std::string& session_id,
                                    const StoredRun& run) override ABSL_LOCKS_EXCLUDED(mu_);
  // The session leaves the disk at the next Delete or Save.
  void Dropped(int64_t session_key) override ABSL_LOCKS_EXCLUDED(mu_);
  // Deletes every session dropped since the last call from the database; those it cannot
  // delete stay for the next call.
  absl::Status Delete(int64_t session_key, const std::string& session_id) override
      ABSL_LOCKS_EXCLUDED(mu_);
  // Deletes the sessions dropped since the last call and saves the last uses that changed.
  absl::Status Save(const LastUses& last_uses) override ABSL_LOCKS_EXCLUDED(mu_);

 private:
  absl::Status DeleteDropped() ABSL_LOCKS_EXCLUDED(mu_);

  SessionDatabase& database_;
  absl::Mutex mu_;
  std::vector<int64_t> dropped_keys_ ABSL_GUARDED_BY(mu_);
  // The last use the database holds of each stored session, by key.
  std::map<int64_t, absl::Time> saved_last_use_ ABSL_GUARDED_BY(mu_);
};

}  // namespace wasserwarp::service

#endif  // WASSERWARP_SERVER_SESSIONS_SQLITE_SESSION_BACKEND_H_
