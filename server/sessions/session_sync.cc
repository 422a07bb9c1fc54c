#include "sessions/session_sync.h"

#include <algorithm>
#include <utility>

namespace wasserwarp::service {

SessionSync::SessionSync(SessionDatabase& database) : database_(database) {}

std::vector<absl::Status> SessionSync::Restore(std::vector<PersistedSession> sessions,
                                               SessionStore& store) {
  {
    absl::MutexLock lock(&mu_);
    for (const PersistedSession& session : sessions) {
      saved_last_use_[session.key] = session.last_use;
    }
  }
  return store.Adopt(std::move(sessions));
}

absl::Status SessionSync::Sync(const SessionStore& store) {
  absl::Status status = DeleteDropped();
  // Read before taking mu_: the store calls Dropped under its own lock.
  const std::vector<std::pair<int64_t, absl::Time>> last_uses = store.LastUses();
  std::vector<std::pair<int64_t, absl::Time>> changed;
  {
    absl::MutexLock lock(&mu_);
    for (const auto& [key, last_use] : last_uses) {
      const auto it = saved_last_use_.find(key);
      if (it != saved_last_use_.end() && it->second != last_use)
        changed.emplace_back(key, last_use);
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

absl::StatusOr<int64_t> SessionSync::InsertSession(const std::string& id,
                                                   const SessionSettings& settings,
                                                   absl::Time create_time) {
  absl::StatusOr<int64_t> key = database_.InsertSession(id, settings, create_time);
  if (!key.ok()) return key;
  absl::MutexLock lock(&mu_);
  saved_last_use_[*key] = create_time;
  return key;
}

absl::Status SessionSync::InsertRun(int64_t session_key, const StoredRun& run) {
  if (absl::Status status = database_.InsertRun(session_key, run); !status.ok()) return status;
  absl::MutexLock lock(&mu_);
  const auto it = saved_last_use_.find(session_key);
  if (it != saved_last_use_.end()) it->second = std::max(it->second, run.commit_time);
  return absl::OkStatus();
}

void SessionSync::Dropped(int64_t session_key) {
  absl::MutexLock lock(&mu_);
  dropped_keys_.push_back(session_key);
  saved_last_use_.erase(session_key);
}

absl::Status SessionSync::DeleteDropped() {
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
