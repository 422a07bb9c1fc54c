// The sessions and runs of every replica in one PostgreSQL database (--postgres_url): what a
// replica's session store reads on each use of a session, so that a session created, filled or
// deleted through one replica is the same through every other, and the writes that enforce the
// limits for all replicas at once (--max_sessions, --max_runs_per_session, the byte limits), in
// the transaction that commits. A run is one transaction: whole or absent.

#ifndef WASSERWARP_SERVER_SESSIONS_POSTGRES_SESSIONS_H_
#define WASSERWARP_SERVER_SESSIONS_POSTGRES_SESSIONS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "ops/server_config.h"
#include "sessions/stored_session.h"
#include "storage/postgres_pool.h"

namespace wasserwarp::service {

class PostgresSessions {
 public:
  // The pg_advisory_xact_lock keys ("WSWS", "WSWB") that make --max_sessions (creations) and
  // --max_total_bytes (commits) exact for every replica together. Each is taken after the
  // transaction's own rows are written and held only for the count that checks the limit and
  // the COMMIT, so that replicas write their rows, a run's samples above all, side by side.
  static constexpr int64_t kCreateLock = 0x57535753;
  static constexpr int64_t kCommitLock = 0x57535742;

  // `pool` must outlive this; `limits` are every replica's (they must agree). Every call's
  // transaction runs with `options`.
  PostgresSessions(postgres::Pool& pool, const SessionLimits& limits,
                   postgres::TransactionOptions options = {});

  // A new session's key. AlreadyExists for a taken id; ResourceExhausted naming --max_sessions
  // when every replica together holds that many live sessions.
  absl::StatusOr<int64_t> InsertSession(const std::string& id, const SessionSettings& settings,
                                        absl::Time now);
  // The session of `id` without its runs, if there is one.
  absl::StatusOr<std::optional<PersistedSession>> FindSession(const std::string& id);
  // The keys of the session's runs, ascending.
  absl::StatusOr<std::vector<int64_t>> RunKeys(int64_t session_key);
  // The runs with these keys (their database_key), with their samples, checked against their
  // checksums (DataLoss naming the run otherwise).
  absl::StatusOr<std::vector<StoredRun>> LoadRuns(const std::string& session_id,
                                                  const std::vector<int64_t>& run_keys);
  // The run's key. NotFound when the session is gone, AlreadyExists for a taken id in the role,
  // ResourceExhausted naming the flag of a limit the commit would pass.
  absl::StatusOr<int64_t> InsertRun(int64_t session_key, const std::string& session_id,
                                    const StoredRun& run);
  // NotFound when it is gone already (another replica deleted it).
  absl::Status DeleteSession(int64_t session_key, const std::string& session_id);
  // Later last uses; earlier ones than stored are ignored.
  absl::Status SaveLastUse(const std::vector<std::pair<int64_t, absl::Time>>& last_uses);
  // Deletes the sessions idle past their TTL and `grace` at `now` that no validation is queued
  // or running for; returns their ids. Each row goes once, whichever replica sweeps.
  absl::StatusOr<std::vector<std::string>> ExpireIdle(absl::Time now, absl::Duration grace);
  // At most `limit` live sessions of `owner` with ids after `after_id`, in id order.
  absl::StatusOr<std::vector<SessionSummary>> List(const std::string& owner,
                                                   const std::string& after_id, int limit,
                                                   absl::Time now);

 private:
  postgres::Pool& pool_;
  const SessionLimits limits_;
  const postgres::TransactionOptions options_;
};

}  // namespace wasserwarp::service

#endif  // WASSERWARP_SERVER_SESSIONS_POSTGRES_SESSIONS_H_
