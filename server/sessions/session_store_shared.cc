// SessionStore's side of a shared database (--postgres_url): how this replica's view of a
// session follows what every replica wrote. Runs are immutable and sessions are replaced, not
// changed, so a session's row and the keys of its runs say all that can have changed.

#include <spdlog/spdlog.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "sessions/postgres_sessions.h"
#include "sessions/session_store.h"

namespace wasserwarp::service {
namespace {

// Replicas' clocks may differ by this much: a session expires this long after its TTL ran out
// by the sweeping replica's clock, so that a use another replica just saved still counts.
constexpr absl::Duration kClockSkewGrace = absl::Seconds(5);

}  // namespace

absl::Status SessionStore::Refresh(std::string_view id) {
  if (shared_ == nullptr) return absl::OkStatus();
  const std::string session_id(id);
  absl::StatusOr<std::optional<SharedSession>> row = shared_->FindSession(session_id);
  if (!row.ok()) return row.status();
  int64_t database_key = 0;
  std::set<int64_t> known;
  {
    absl::MutexLock lock(&mu_);
    auto it = sessions_.find(id);
    if (!row->has_value()) {
      // Deleted, or expired and swept, through some replica.
      if (it != sessions_.end()) Erase(it);
      return absl::OkStatus();
    }
    const SharedSession& stored = **row;
    if (it != sessions_.end() && it->second.database_key != stored.key) {
      // Replaced by a new session of the same id.
      Erase(it);
      it = sessions_.end();
    }
    if (it == sessions_.end()) {
      Session session;
      session.instance = next_instance_++;
      session.database_key = stored.key;
      session.idle_ttl = stored.settings.idle_ttl.value_or(limits_.session_idle_ttl);
      session.settings = stored.settings;
      session.create_time = stored.create_time;
      session.last_use = stored.last_use;
      it = sessions_.emplace(session_id, std::move(session)).first;
    } else {
      it->second.last_use = std::max(it->second.last_use, stored.last_use);
    }
    database_key = stored.key;
    known = it->second.run_database_keys;
  }
  absl::StatusOr<std::vector<int64_t>> keys = shared_->RunKeys(database_key);
  if (!keys.ok()) return keys.status();
  std::vector<int64_t> missing;
  for (int64_t key : *keys) {
    if (!known.contains(key)) missing.push_back(key);
  }
  if (missing.empty()) return absl::OkStatus();
  absl::StatusOr<std::vector<SharedRun>> runs = shared_->LoadRuns(session_id, missing);
  if (!runs.ok()) return runs.status();
  absl::MutexLock lock(&mu_);
  auto it = sessions_.find(id);
  // Gone or replaced meanwhile: the next use reads it again.
  if (it == sessions_.end() || it->second.database_key != database_key) return absl::OkStatus();
  for (SharedRun& shared : *runs) {
    shared.run.database_key = shared.key;
    AddRun(it->second, std::move(shared.run));
  }
  return absl::OkStatus();
}

bool SessionStore::AddRun(Session& session, StoredRun run) {
  if (run.database_key != 0 && !session.run_database_keys.insert(run.database_key).second) {
    return false;
  }
  session.run_keys.emplace(run.role, run.series->id);
  session.held_bytes += run.bytes;
  total_held_ += run.bytes;
  // Commit order is the order of keys; a run committed through another replica may come in
  // after a later one committed here.
  auto position = run.database_key == 0
                      ? session.runs.end()
                      : std::upper_bound(session.runs.begin(), session.runs.end(), run.database_key,
                                         [](int64_t key, const StoredRun& held) {
                                           return key < held.database_key;
                                         });
  session.runs.insert(position, std::move(run));
  return true;
}

void SessionStore::SaveUse(int64_t database_key, absl::Time now) {
  if (shared_ == nullptr) return;
  if (absl::Status status = shared_->SaveLastUse({{database_key, now}}); !status.ok()) {
    // The next sweep saves it with the others.
    spdlog::warn("a session's last use was not saved: {}", status.ToString());
  }
}

std::vector<std::string> SessionStore::ExpireShared(absl::Time now) {
  if (shared_ == nullptr) return {};
  if (absl::Status status = shared_->SaveLastUse(LastUses()); !status.ok()) {
    spdlog::warn("sessions' last uses were not saved: {}", status.ToString());
    return {};
  }
  absl::StatusOr<std::vector<std::string>> expired = shared_->ExpireIdle(now, kClockSkewGrace);
  if (!expired.ok()) {
    spdlog::warn("idle sessions were not expired: {}", expired.status().ToString());
    return {};
  }
  return *std::move(expired);
}

absl::StatusOr<std::vector<wire::SessionRecord>> SessionStore::ListShared(std::string_view after_id,
                                                                          int limit, bool& more,
                                                                          std::string_view owner) {
  const absl::Time now = absl::Now();
  // One more than a page tells whether another follows.
  absl::StatusOr<std::vector<SharedSessionSummary>> rows =
      shared_->List(std::string(owner), std::string(after_id), limit + 1, now);
  if (!rows.ok()) return rows.status();
  more = static_cast<int>(rows->size()) > limit;
  if (more) rows->resize(static_cast<size_t>(limit));
  std::vector<wire::SessionRecord> page;
  page.reserve(rows->size());
  for (const SharedSessionSummary& row : *rows) {
    wire::SessionRecord record;
    record.id = row.session.id;
    record.labels = row.session.settings.labels;
    record.default_parameters = row.session.settings.default_parameters;
    record.idle_ttl = row.session.settings.idle_ttl.value_or(limits_.session_idle_ttl);
    record.create_time = row.session.create_time;
    record.expire_time = row.session.last_use + record.idle_ttl;
    record.simulation_run_count = row.simulation_runs;
    record.reference_run_count = row.reference_runs;
    record.bytes_held = row.bytes;
    page.push_back(std::move(record));
  }
  return page;
}

}  // namespace wasserwarp::service
