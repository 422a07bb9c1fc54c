// Sessions in the store's memory only (no --data_dir, no --postgres_url): nothing is kept
// beyond it, so that a restart starts with no sessions. The store's memory is the truth, so
// every read has nothing to add; the SQLite backend, which only keeps a copy, answers them so
// too.

#ifndef WASSERWARP_SERVER_SESSIONS_MEMORY_SESSION_BACKEND_H_
#define WASSERWARP_SERVER_SESSIONS_MEMORY_SESSION_BACKEND_H_

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "sessions/session_backend.h"

namespace wasserwarp::service {

class MemorySessionBackend : public SessionBackend {
 public:
  absl::StatusOr<std::vector<PersistedSession>> Load(absl::Time, absl::Duration) override {
    return std::vector<PersistedSession>();
  }
  absl::StatusOr<SessionRow> Read(const std::string&) override { return SessionRow(); }
  absl::StatusOr<std::vector<StoredRun>> ReadRuns(const std::string&, int64_t,
                                                  const std::set<int64_t>&) override {
    return std::vector<StoredRun>();
  }
  absl::StatusOr<std::optional<std::vector<SessionSummary>>> List(const std::string&,
                                                                  const std::string&, int,
                                                                  absl::Time) override {
    return std::nullopt;
  }
  absl::StatusOr<int64_t> InsertSession(const std::string&, const SessionSettings&,
                                        absl::Time) override {
    return 0;
  }
  absl::StatusOr<int64_t> InsertRun(int64_t, const std::string&, const StoredRun&) override {
    return 0;
  }
  void Dropped(int64_t) override {}
  absl::Status Delete(int64_t, const std::string&) override { return absl::OkStatus(); }
  void SaveUse(int64_t, absl::Time) override {}
  std::vector<std::string> ExpireIdle(absl::Time, const LastUses&) override { return {}; }
  absl::Status Save(const LastUses&) override { return absl::OkStatus(); }
};

}  // namespace wasserwarp::service

#endif  // WASSERWARP_SERVER_SESSIONS_MEMORY_SESSION_BACKEND_H_
