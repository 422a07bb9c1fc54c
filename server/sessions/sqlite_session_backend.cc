#include "sessions/sqlite_session_backend.h"

#include <algorithm>
#include <utility>

namespace wasserwarp::service {

SqliteSessionBackend::SqliteSessionBackend(SessionDatabase& database) : database_(database) {}

absl::StatusOr<std::vector<PersistedSession>> SqliteSessionBackend::Load(
    absl::Time now, absl::Duration default_idle_ttl) {
  absl::StatusOr<std::vector<PersistedSession>> sessions = database_.Load(now, default_idle_ttl);
  if (!sessions.ok()) return sessions;
  absl::MutexLock lock(&mu_);
  for (const PersistedSession& session : *sessions) {
    saved_last_use_[session.key] = session.last_use;
  }
  return sessions;
}

absl::StatusOr<int64_t> SqliteSessionBackend::InsertSession(const std::string& id,
                                                            const SessionSettings& settings,
                                                            absl::Time now) {
  absl::StatusOr<int64_t> key = database_.InsertSession(id, settings, now);
  if (!key.ok()) return key;
  absl::MutexLock lock(&mu_);
  saved_last_use_[*key] = now;
  return key;
}

absl::StatusOr<int64_t> SqliteSessionBackend::InsertRun(int64_t session_key, const std::string&,
                                                        const StoredRun& run) {
  if (absl::Status status = database_.InsertRun(session_key, run); !status.ok()) return status;
  absl::MutexLock lock(&mu_);
  const auto it = saved_last_use_.find(session_key);
  if (it != saved_last_use_.end()) it->second = std::max(it->second, run.commit_time);
  return 0;
}

void SqliteSessionBackend::Dropped(int64_t session_key) {
  absl::MutexLock lock(&mu_);
  dropped_keys_.push_back(session_key);
  saved_last_use_.erase(session_key);
}

absl::Status SqliteSessionBackend::Delete(int64_t, const std::string&) {
  // Acknowledged once off the disk, as a commit is once on it.
  return DeleteDropped();
}

absl::Status SqliteSessionBackend::Save(const LastUses& last_uses) {
  absl::Status status = DeleteDropped();
  LastUses changed;
  {
    absl::MutexLock lock(&mu_);
    for (const auto& [key, last_use] : last_uses) {
      const auto it = saved_last_use_.find(key);
      if (it != saved_last_use_.end() && it->second != last_use) {
        changed.emplace_back(key, last_use);
      }
    }
  }
  if (changed.empty()) return status;
  if (absl::Status saved = database_.SaveLastUse(changed); !saved.ok()) {
    status.Update(saved);
    return status;
  }
  absl::MutexLock lock(&mu_);
  for (const auto& [key, last_use] : changed) {
    // A session dropped meanwhile stays dropped.
    const auto it = saved_last_use_.find(key);
    if (it != saved_last_use_.end()) it->second = std::max(it->second, last_use);
  }
  return status;
}

absl::Status SqliteSessionBackend::DeleteDropped() {
  std::vector<int64_t> keys;
  {
    absl::MutexLock lock(&mu_);
    keys.swap(dropped_keys_);
  }
  absl::Status status = database_.DeleteSessions(keys);
  if (!status.ok()) {
    absl::MutexLock lock(&mu_);
    dropped_keys_.insert(dropped_keys_.end(), keys.begin(), keys.end());
  }
  return status;
}

}  // namespace wasserwarp::service
