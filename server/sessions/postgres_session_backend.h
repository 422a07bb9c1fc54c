// Sessions kept in the PostgreSQL database that replicas share (--postgres_url,
// postgres_sessions.h): the database is the truth and the store this replica's view of it. A
// use of a session reads its row and the runs the store lacks first; runs are immutable and
// sessions are replaced, not changed, so a session's row and the keys of its runs say all that
// can have changed. Writes go to the database first, which enforces the limits for every
// replica, uses are saved there for every replica's sweep, and idle sessions expire there.

#ifndef WASSERWARP_SERVER_SESSIONS_POSTGRES_SESSION_BACKEND_H_
#define WASSERWARP_SERVER_SESSIONS_POSTGRES_SESSION_BACKEND_H_

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "ops/server_config.h"
#include "sessions/postgres_sessions.h"
#include "sessions/session_backend.h"
#include "storage/postgres_pool.h"

namespace wasserwarp::service {

class PostgresSessionBackend : public SessionBackend {
 public:
  // `pool` must outlive the backend; `limits` are every replica's (they must agree). Every
  // call's transaction runs with `options`.
  PostgresSessionBackend(postgres::Pool& pool, const SessionLimits& limits,
                         postgres::TransactionOptions options = {});

  // None: sessions are read when used.
  absl::StatusOr<std::vector<PersistedSession>> Load(absl::Time now,
                                                     absl::Duration default_idle_ttl) override;
  absl::StatusOr<SessionRow> Read(const std::string& id) override;
  absl::StatusOr<std::vector<StoredRun>> ReadRuns(const std::string& id, int64_t session_key,
                                                  const std::set<int64_t>& known) override;
  absl::StatusOr<std::optional<std::vector<SessionSummary>>> List(const std::string& owner,
                                                                  const std::string& after_id,
                                                                  int limit,
                                                                  absl::Time now) override;
  absl::StatusOr<int64_t> InsertSession(const std::string& id, const SessionSettings& settings,
                                        absl::Time now) override;
  absl::StatusOr<int64_t> InsertRun(int64_t session_key, const std::string& session_id,
                                    const StoredRun& run) override;
  // This replica's view drops it; the database keeps it.
  void Dropped(int64_t session_key) override;
  absl::Status Delete(int64_t session_key, const std::string& session_id) override;
  void SaveUse(int64_t session_key, absl::Time now) override;
  // Every replica's sessions idle past their TTL and a grace for the replicas' clocks, that no
  // validation is queued or running for.
  std::vector<std::string> ExpireIdle(absl::Time now, const LastUses& last_uses) override;
  // Nothing: every write and use is saved as it happens or at the sweep.
  absl::Status Save(const LastUses& last_uses) override;

 private:
  PostgresSessions sessions_;
};

}  // namespace wasserwarp::service

#endif  // WASSERWARP_SERVER_SESSIONS_POSTGRES_SESSION_BACKEND_H_
