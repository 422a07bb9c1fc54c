// A validation store whose every call's time goes to the service's metrics
// (wasserwarp_database_call_seconds{call}), whichever database is behind it.

#ifndef WASSERWARP_SERVER_VALIDATIONS_MEASURED_VALIDATION_STORE_H_
#define WASSERWARP_SERVER_VALIDATIONS_MEASURED_VALIDATION_STORE_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <string_view>
#include <vector>

#include "ops/metrics.h"
#include "validations/validation_store.h"

namespace wasserwarp::service {

class MeasuredValidationStore final : public ValidationStore {
 public:
  // `metrics` must outlive the store.
  MeasuredValidationStore(std::unique_ptr<ValidationStore> store, ServiceMetrics& metrics)
      : store_(std::move(store)), metrics_(metrics) {}

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
  // Runs `call` on the store and records its time as `name`.
  template <class Call>
  auto Timed(std::string_view name, Call call) {
    const absl::Time start = absl::Now();
    auto result = call(*store_);
    metrics_.DatabaseCall(name, absl::ToDoubleSeconds(absl::Now() - start));
    return result;
  }

  const std::unique_ptr<ValidationStore> store_;
  ServiceMetrics& metrics_;
};

}  // namespace wasserwarp::service

#endif  // WASSERWARP_SERVER_VALIDATIONS_MEASURED_VALIDATION_STORE_H_
