// The validations of one server in SQLite: `validations.db` beside the session database in
// --data_dir (it shares the directory's lock), or a private in-memory database for a server
// without one. Each write is one transaction; with a file, WAL with synchronous=FULL, so a
// stored report survives a crash. The file marks itself with SQLite's application_id and a
// format version; any other file, or a newer format, is refused with an error naming it.
//
// Tiles are rows of `validation_tiles` (sqlite_validation_tiles.cc), which go with their
// validation's row (a foreign key, enforced on this connection) and when it ends. Events and
// the sessions of records, tombstones among them, are sqlite_validation_sessions.cc's; the
// file's format and its migrations sqlite_validation_format.cc's.

#ifndef WASSERWARP_SERVER_VALIDATIONS_SQLITE_VALIDATION_STORE_H_
#define WASSERWARP_SERVER_VALIDATIONS_SQLITE_VALIDATION_STORE_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "validations/validation_store.h"

struct sqlite3;

namespace wasserwarp::service {

// "WSWV": SQLite's application_id of a wasserwarp validation database.
inline constexpr int32_t kValidationDatabaseApplicationId = 0x57535756;
// 1: the first release's; 2: records as release evidence (labels, outcome, events, tombstones);
// 3: the replicas that lost each validation. Open migrates an older file.
inline constexpr int32_t kValidationDatabaseFormatVersion = 3;

class SqliteValidationStore final : public ValidationStore {
 public:
  // `data_dir`/validations.db, created when missing; the caller holds the directory's lock.
  // An empty `data_dir`: in memory, gone with the store.
  static absl::StatusOr<std::unique_ptr<SqliteValidationStore>> Open(const std::string& data_dir);

  SqliteValidationStore(const SqliteValidationStore&) = delete;
  SqliteValidationStore& operator=(const SqliteValidationStore&) = delete;
  ~SqliteValidationStore() override;

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
  SqliteValidationStore(std::string path, sqlite3* db);
  absl::StatusOr<ValidationRecord> GetLocked(int64_t session_key, std::string_view id,
                                             bool with_report) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  // The tile half (sqlite_validation_tiles.cc). At Open: the table, and the tiles of a server
  // that stopped queued again.
  static absl::Status OpenTiles(sqlite3* db, const std::string& path);
  // The validation's key; NotFound when it is not there.
  absl::StatusOr<int64_t> KeyLocked(int64_t session_key, std::string_view id)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The validation's tiles, which its end takes along, within the caller's transaction.
  absl::Status DeleteTilesLocked(int64_t session_key, std::string_view id)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Release's part: `worker`'s running tiles queued again.
  absl::Status ReleaseTilesLocked(std::string_view worker) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const std::string path_;
  absl::Mutex mu_;
  sqlite3* const db_ ABSL_GUARDED_BY(mu_);
};

}  // namespace wasserwarp::service

#endif  // WASSERWARP_SERVER_VALIDATIONS_SQLITE_VALIDATION_STORE_H_
