#include "validations/measured_validation_store.h"

namespace wasserwarp::service {

absl::Status MeasuredValidationStore::Insert(const ValidationRecord& record,
                                             const RecordedSession& session) {
  return Timed("Insert", [&](ValidationStore& store) { return store.Insert(record, session); });
}

absl::StatusOr<ValidationRecord> MeasuredValidationStore::Get(int64_t session_key,
                                                              std::string_view id,
                                                              bool with_report) {
  return Timed("Get",
               [&](ValidationStore& store) { return store.Get(session_key, id, with_report); });
}

absl::StatusOr<ValidationPage> MeasuredValidationStore::List(const ValidationQuery& query,
                                                             std::optional<ValidationCursor> after,
                                                             int limit) {
  return Timed("List", [&](ValidationStore& store) { return store.List(query, after, limit); });
}

absl::StatusOr<ValidationRecord> MeasuredValidationStore::RequestCancel(int64_t session_key,
                                                                        std::string_view id,
                                                                        const absl::Status& reason,
                                                                        std::string_view principal,
                                                                        absl::Time now) {
  return Timed("RequestCancel", [&](ValidationStore& store) {
    return store.RequestCancel(session_key, id, reason, principal, now);
  });
}

absl::Status MeasuredValidationStore::Delete(int64_t session_key, std::string_view id) {
  return Timed("Delete", [&](ValidationStore& store) { return store.Delete(session_key, id); });
}

absl::StatusOr<QueuedCounts> MeasuredValidationStore::CountQueued(std::string_view owner) {
  return Timed("CountQueued", [&](ValidationStore& store) { return store.CountQueued(owner); });
}

absl::StatusOr<std::optional<ValidationRecord>> MeasuredValidationStore::Claim(
    std::string_view worker, absl::Time now, absl::Duration lease, const ClaimLimits& limits) {
  return Timed("Claim",
               [&](ValidationStore& store) { return store.Claim(worker, now, lease, limits); });
}

absl::StatusOr<LeaseRenewal> MeasuredValidationStore::Renew(int64_t session_key,
                                                            std::string_view id,
                                                            std::string_view worker, absl::Time now,
                                                            absl::Duration lease,
                                                            std::string_view progress) {
  return Timed("Renew", [&](ValidationStore& store) {
    return store.Renew(session_key, id, worker, now, lease, progress);
  });
}

absl::Status MeasuredValidationStore::Finish(int64_t session_key, std::string_view id,
                                             std::string_view worker,
                                             const ValidationResult& result, absl::Time now) {
  return Timed("Finish", [&](ValidationStore& store) {
    return store.Finish(session_key, id, worker, result, now);
  });
}

absl::Status MeasuredValidationStore::Release(std::string_view worker) {
  return Timed("Release", [&](ValidationStore& store) { return store.Release(worker); });
}

absl::Status MeasuredValidationStore::InsertTiles(int64_t session_key, std::string_view id,
                                                  const std::vector<CostTile>& tiles) {
  return Timed("InsertTiles",
               [&](ValidationStore& store) { return store.InsertTiles(session_key, id, tiles); });
}

absl::StatusOr<std::optional<TileRecord>> MeasuredValidationStore::ClaimTile(
    std::string_view worker, absl::Time now, absl::Duration lease, const TileClaimScope& scope) {
  return Timed("ClaimTile",
               [&](ValidationStore& store) { return store.ClaimTile(worker, now, lease, scope); });
}

absl::StatusOr<LeaseRenewal> MeasuredValidationStore::RenewTile(
    int64_t session_key, std::string_view id, CostMatrixKind matrix, int index,
    std::string_view worker, absl::Time now, absl::Duration lease, uint64_t cells_done) {
  return Timed("RenewTile", [&](ValidationStore& store) {
    return store.RenewTile(session_key, id, matrix, index, worker, now, lease, cells_done);
  });
}

absl::Status MeasuredValidationStore::FinishTile(int64_t session_key, std::string_view id,
                                                 CostMatrixKind matrix, int index,
                                                 std::string_view worker, std::string_view replica,
                                                 std::string_view values) {
  return Timed("FinishTile", [&](ValidationStore& store) {
    return store.FinishTile(session_key, id, matrix, index, worker, replica, values);
  });
}

absl::StatusOr<TileCounts> MeasuredValidationStore::CountTiles(
    int64_t session_key, std::string_view id, std::optional<CostMatrixKind> matrix) {
  return Timed("CountTiles",
               [&](ValidationStore& store) { return store.CountTiles(session_key, id, matrix); });
}

absl::StatusOr<std::vector<TileRecord>> MeasuredValidationStore::ReadTiles(int64_t session_key,
                                                                           std::string_view id,
                                                                           CostMatrixKind matrix) {
  return Timed("ReadTiles",
               [&](ValidationStore& store) { return store.ReadTiles(session_key, id, matrix); });
}

absl::StatusOr<std::vector<TileShare>> MeasuredValidationStore::TileShares(int64_t session_key,
                                                                           std::string_view id) {
  return Timed("TileShares",
               [&](ValidationStore& store) { return store.TileShares(session_key, id); });
}

absl::Status MeasuredValidationStore::SessionGone(int64_t session_key, RecordedSessionState state,
                                                  std::string_view principal, absl::Time now) {
  return Timed("SessionGone", [&](ValidationStore& store) {
    return store.SessionGone(session_key, state, principal, now);
  });
}

absl::StatusOr<int64_t> MeasuredValidationStore::SessionsExpired(const std::set<int64_t>& live_keys,
                                                                 absl::Time now) {
  return Timed("SessionsExpired",
               [&](ValidationStore& store) { return store.SessionsExpired(live_keys, now); });
}

absl::StatusOr<std::optional<RecordedSession>> MeasuredValidationStore::FindSession(
    std::string_view id) {
  return Timed("FindSession", [&](ValidationStore& store) { return store.FindSession(id); });
}

absl::StatusOr<std::vector<RecordedSession>> MeasuredValidationStore::ListTombstones(
    std::string_view owner, std::string_view after_id, int limit) {
  return Timed("ListTombstones", [&](ValidationStore& store) {
    return store.ListTombstones(owner, after_id, limit);
  });
}

absl::Status MeasuredValidationStore::PurgeSession(int64_t session_key) {
  return Timed("PurgeSession",
               [&](ValidationStore& store) { return store.PurgeSession(session_key); });
}

absl::StatusOr<int64_t> MeasuredValidationStore::DeleteEndedBefore(absl::Time cutoff) {
  return Timed("DeleteEndedBefore",
               [&](ValidationStore& store) { return store.DeleteEndedBefore(cutoff); });
}

absl::StatusOr<ValidationStore::Counts> MeasuredValidationStore::CountAll(absl::Time now) {
  return Timed("CountAll", [&](ValidationStore& store) { return store.CountAll(now); });
}

}  // namespace wasserwarp::service
