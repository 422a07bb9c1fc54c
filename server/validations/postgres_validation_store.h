// The validations of several servers sharing one PostgreSQL (--postgres_url): the
// `validations` table of postgres_schema.cc, through a Pool. Every replica claims from the same
// queue; a claim locks the row it takes and skips rows another replica's claim holds (FOR
// UPDATE SKIP LOCKED), so two replicas never claim the same validation within a lease. Times
// are integer nanoseconds since the Unix epoch (absl::ToUnixNanos), as in the SQLite store.
//
// Errors are the layer's (postgres::PostgresError): Unavailable when the database cannot be
// reached within the pool's wait, and the transactions that may be run again are
// (postgres::RunTransaction); each one's body is written so that a run again after a COMMIT
// whose answer was lost leaves the database as one run would. The one exception is Claim: an
// attempt whose COMMIT was lost leaves a lease nobody renews, which expires and is claimed
// again, so the validation is delayed by one lease, never run twice at once. ClaimTile is the
// same exception for a tile. FinishTile run again finds the tile done already; it is OK when
// the tile is done with this call's replica and values (what its own lost COMMIT stored, or,
// at worst, what another worker of the same replica stored after this one's lease ran out:
// the same TWEDs, counted once either way), Aborted otherwise.
//
// Tiles are rows of `validation_tiles` (schema migration 2), claimed like validations (FOR
// UPDATE SKIP LOCKED on the tile's row alone, so that replicas claim the tiles of one
// validation side by side). They go with their validation (ON DELETE CASCADE) and when it ends.
//
// The database must have been migrated (postgres::Migrate). Validations belong to rows of
// `sessions` (a foreign key): Insert of a validation whose session instance is not there is
// NotFound, and deleting a session deletes its validations (ON DELETE CASCADE).

#ifndef WASSERWARP_SERVER_VALIDATIONS_POSTGRES_VALIDATION_STORE_H_
#define WASSERWARP_SERVER_VALIDATIONS_POSTGRES_VALIDATION_STORE_H_

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "storage/postgres_pool.h"
#include "validations/validation_store.h"

namespace wasserwarp::service {

// The channel on which the store announces, in the transaction that ends a validation, that it
// ended (NOTIFY, delivered when it commits), so that the streams of every replica that follow
// it wake at once (postgres::Listener); the payload is ValidationEndPayload's.
inline constexpr char kValidationEndChannel[] = "wasserwarp_validation_end";
std::string ValidationEndPayload(int64_t session_key, std::string_view id);
// The session key and validation id of a payload; unset for one the store does not write.
std::optional<std::pair<int64_t, std::string>> ParseValidationEndPayload(std::string_view payload);

class PostgresValidationStore final : public ValidationStore {
 public:
  // `pool` must outlive the store. `options` for every transaction (how long to wait for a
  // connection, how often to try).
  explicit PostgresValidationStore(postgres::Pool& pool, postgres::TransactionOptions options = {});

  PostgresValidationStore(const PostgresValidationStore&) = delete;
  PostgresValidationStore& operator=(const PostgresValidationStore&) = delete;
  ~PostgresValidationStore() override = default;

  absl::Status Insert(const ValidationRecord& record, const RecordedSession& session) override;
  absl::StatusOr<ValidationRecord> Get(int64_t session_key, std::string_view id,
                                       bool with_report) override;
  absl::StatusOr<ValidationPage> List(const ValidationQuery& query,
                                      std::optional<ValidationCursor> after, int limit) override;
  absl::StatusOr<ValidationRecord> RequestCancel(int64_t session_key, std::string_view id,
                                                 const absl::Status& reason,
                                                 std::string_view principal,
                                                 absl::Time now) override;
  absl::Status Delete(int64_t session_key, std::string_view id) override;
  absl::StatusOr<QueuedCounts> CountQueued(std::string_view owner) override;
  absl::StatusOr<std::optional<ValidationRecord>> Claim(std::string_view worker, absl::Time now,
                                                        absl::Duration lease,
                                                        const ClaimLimits& limits) override;
  absl::StatusOr<LeaseRenewal> Renew(int64_t session_key, std::string_view id,
                                     std::string_view worker, absl::Time now, absl::Duration lease,
                                     std::string_view progress) override;
  absl::Status Finish(int64_t session_key, std::string_view id, std::string_view worker,
                      const ValidationResult& result, absl::Time now) override;
  absl::Status Release(std::string_view worker) override;
  absl::Status InsertTiles(int64_t session_key, std::string_view id,
                           const std::vector<CostTile>& tiles) override;
  absl::StatusOr<std::optional<TileRecord>> ClaimTile(std::string_view worker, absl::Time now,
                                                      absl::Duration lease,
                                                      const TileClaimScope& scope) override;
  absl::StatusOr<LeaseRenewal> RenewTile(int64_t session_key, std::string_view id,
                                         CostMatrixKind matrix, int index, std::string_view worker,
                                         absl::Time now, absl::Duration lease,
                                         uint64_t cells_done) override;
  absl::Status FinishTile(int64_t session_key, std::string_view id, CostMatrixKind matrix,
                          int index, std::string_view worker, std::string_view replica,
                          std::string_view values) override;
  absl::StatusOr<TileCounts> CountTiles(int64_t session_key, std::string_view id,
                                        std::optional<CostMatrixKind> matrix) override;
  absl::StatusOr<std::vector<TileRecord>> ReadTiles(int64_t session_key, std::string_view id,
                                                    CostMatrixKind matrix) override;
  absl::StatusOr<std::vector<TileShare>> TileShares(int64_t session_key,
                                                    std::string_view id) override;
  absl::Status SessionGone(int64_t session_key, RecordedSessionState state,
                           std::string_view principal, absl::Time now) override;
  absl::StatusOr<int64_t> SessionsExpired(const std::set<int64_t>& live_keys,
                                          absl::Time now) override;
  absl::StatusOr<std::optional<RecordedSession>> FindSession(std::string_view id) override;
  absl::StatusOr<std::vector<RecordedSession>> ListTombstones(std::string_view owner,
                                                              std::string_view after_id,
                                                              int limit) override;
  absl::Status PurgeSession(int64_t session_key) override;
  absl::StatusOr<int64_t> DeleteEndedBefore(absl::Time cutoff) override;
  absl::StatusOr<Counts> CountAll(absl::Time now) override;

 private:
  postgres::Pool& pool_;
  const postgres::TransactionOptions options_;
};

}  // namespace wasserwarp::service

#endif  // WASSERWARP_SERVER_VALIDATIONS_POSTGRES_VALIDATION_STORE_H_
