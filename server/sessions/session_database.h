// The sessions of a server on disk (--data_dir): one SQLite database that
// holds every session's settings and committed runs, so that a restarted
// server, even one killed with SIGKILL, holds what it acknowledged.
//
// The file is `sessions.db` in the data directory, in WAL mode with
// synchronous=FULL: a write returns only once it is on disk. Each committed
// run is one transaction, so a run is either whole on disk or absent. The
// database marks itself with SQLite's application_id and a format version
// (user_version and the meta table); any other SQLite file, a newer format,
// a damaged file or a run whose checksum does not match its samples is
// refused with an error naming the file, never guessed at.

#ifndef WASSERWARP_SERVER_SESSIONS_SESSION_DATABASE_H_
#define WASSERWARP_SERVER_SESSIONS_SESSION_DATABASE_H_

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "sessions/stored_session.h"

struct sqlite3;

namespace wasserwarp::service {

// "WSWP": SQLite's application_id of a wasserwarp session database.
inline constexpr int32_t kSessionDatabaseApplicationId = 0x57535750;
// Raised whenever what is stored changes meaning; a server refuses newer formats.
inline constexpr int32_t kSessionDatabaseFormatVersion = 1;

// Thread-safe; writes happen one at a time.
class SessionDatabase {
 public:
  // Opens `data_dir`/sessions.db, creating the directory and an empty
  // database when missing. FailedPrecondition when the directory is in use
  // by another server or the file is not a wasserwarp session database (or
  // has a newer format); DataLoss when it is damaged. Every error names the
  // path.
  static absl::StatusOr<std::unique_ptr<SessionDatabase>> Open(const std::string& data_dir);

  SessionDatabase(const SessionDatabase&) = delete;
  SessionDatabase& operator=(const SessionDatabase&) = delete;
  ~SessionDatabase();

  // The database file.
  const std::string& path() const { return path_; }

  // Every session still live at `now`, with its runs; `default_idle_ttl`
  // applies to sessions that set no TTL of their own. Expired sessions, and
  // sessions whose deletion did not finish (an older session of the same
  // id), are deleted. DataLoss, naming the session and run, when a stored
  // run does not match its checksum.
  absl::StatusOr<std::vector<PersistedSession>> Load(absl::Time now,
                                                     absl::Duration default_idle_ttl);

  // A new session, last used at its creation; returns its key.
  absl::StatusOr<int64_t> InsertSession(const std::string& id, const SessionSettings& settings,
                                        absl::Time create_time);
  // `run` (with its commit time, which becomes the session's last use) in
  // one transaction. NotFound when the session's row is gone.
  absl::Status InsertRun(int64_t session_key, const StoredRun& run);
  // The sessions with these keys and their runs, in one transaction.
  absl::Status DeleteSessions(const std::vector<int64_t>& keys);
  // Later last-use times of sessions; an earlier time than the stored one
  // is ignored.
  absl::Status SaveLastUse(const std::vector<std::pair<int64_t, absl::Time>>& last_use);

 private:
  SessionDatabase(std::string path, sqlite3* db, int lock_fd);
  absl::Status DeleteLocked(const std::vector<int64_t>& keys) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const std::string path_;
  absl::Mutex mu_;
  sqlite3* const db_ ABSL_GUARDED_BY(mu_);
  // Holds an exclusive flock on the directory's LOCK file while open.
  const int lock_fd_;
};

}  // namespace wasserwarp::service

#endif  // WASSERWARP_SERVER_SESSIONS_SESSION_DATABASE_H_
