// The durable side of a session store (--data_dir): what the store writes
// through to the database before acknowledging it, and what is saved later,
// at each sweep and at shutdown: the sessions dropped since (expired ones)
// and the last-use times that changed. Losing the later part to a crash is
// harmless: a dropped session is expired on disk too, and a session's expiry
// comes at most one sweep interval early. Thread-safe.

#ifndef WASSERWARP_SERVER_SESSIONS_SESSION_SYNC_H_
#define WASSERWARP_SERVER_SESSIONS_SESSION_SYNC_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "sessions/session_database.h"
#include "sessions/session_store.h"

namespace wasserwarp::service {

class SessionSync {
 public:
  // `database` must outlive the sync, which must outlive its store.
  explicit SessionSync(SessionDatabase& database);

  // The database's sessions into `store`, an empty one that writes through
  // this sync, before it serves; the errors name what is over a limit
  // (SessionStore::Adopt).
  std::vector<absl::Status> Restore(std::vector<PersistedSession> sessions, SessionStore& store);
  // Deletes the sessions dropped since the last call from the database and
  // saves the last uses of `store` that changed.
  absl::Status Sync(const SessionStore& store) ABSL_LOCKS_EXCLUDED(mu_);

  // The store's writes, each on disk when it returns.
  absl::StatusOr<int64_t> InsertSession(const std::string& id, const SessionSettings& settings,
                                        absl::Time create_time) ABSL_LOCKS_EXCLUDED(mu_);
  // Also the session's last use on disk.
  absl::Status InsertRun(int64_t session_key, const StoredRun& run) ABSL_LOCKS_EXCLUDED(mu_);
  // A session the store dropped; it leaves the disk at the next
  // DeleteDropped or Sync. Called under the store's lock, so it takes only
  // its own.
  void Dropped(int64_t session_key) ABSL_LOCKS_EXCLUDED(mu_);
  // Deletes the dropped sessions from the database; those it cannot delete
  // stay for the next call.
  absl::Status DeleteDropped() ABSL_LOCKS_EXCLUDED(mu_);

 private:
  SessionDatabase& database_;
  absl::Mutex mu_;
  std::vector<int64_t> dropped_keys_ ABSL_GUARDED_BY(mu_);
  // The last use the database holds of each stored session, by key.
  std::map<int64_t, absl::Time> saved_last_use_ ABSL_GUARDED_BY(mu_);
};

}  // namespace wasserwarp::service

#endif  // WASSERWARP_SERVER_SESSIONS_SESSION_SYNC_H_
