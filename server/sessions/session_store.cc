// Over 500 lines for one reason: the store's books (the bytes held and reserved, per session and
// in total, the leases and the run keys) change in nearly every method under the same two locks,
// and stay right only when those methods are read side by side.

#include "sessions/session_store.h"

#include <algorithm>
#include <map>
#include <string>
#include <utility>

#include "absl/random/random.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/string_view.h"
#include "sessions/label_bound.h"
#include "sessions/memory_session_backend.h"
#include "sessions/principal_quota.h"
#include "wasserwarp/field_error.h"
#include "wasserwarp/user_text.h"
#include "wire/resource_names.h"
#include "wire/status_to_grpc.h"

namespace wasserwarp::service {
namespace {

absl::string_view View(std::string_view s) { return absl::string_view(s.data(), s.size()); }

absl::Status NotFound(std::string_view id) {
  const std::string name = wire::SessionName(View(id));
  return wire::WithResourceInfo(absl::NotFoundError(absl::StrCat("session ", name, " not found")),
                                "wasserwarp.v1.Session", name);
}

}  // namespace

SessionStore::SessionStore(const SessionLimits& limits)
    : SessionStore(limits, std::make_unique<MemorySessionBackend>()) {}

SessionStore::SessionStore(const SessionLimits& limits, std::unique_ptr<SessionBackend> backend)
    : limits_(limits), backend_(std::move(backend)) {}

absl::StatusOr<std::vector<absl::Status>> SessionStore::Restore(absl::Time now) {
  absl::StatusOr<std::vector<PersistedSession>> sessions =
      backend_->Load(now, limits_.session_idle_ttl);
  if (!sessions.ok()) return sessions.status();
  return Adopt(*std::move(sessions));
}

absl::Status SessionStore::Save() { return backend_->Save(GetLastUses()); }

std::vector<absl::Status> SessionStore::Adopt(std::vector<PersistedSession> sessions) {
  absl::MutexLock lock(&mu_);
  std::vector<absl::Status> over_limits;
  for (PersistedSession& stored : sessions) {
    Session session;
    session.instance = next_instance_++;
    session.database_key = stored.key;
    session.idle_ttl = stored.settings.idle_ttl.value_or(limits_.session_idle_ttl);
    session.label_bytes = LabelBytes(stored.settings.labels);
    session.settings = std::move(stored.settings);
    session.create_time = stored.create_time;
    session.last_use = stored.last_use;
    const std::string name = wire::SessionName(stored.id);
    for (StoredRun& run : stored.runs) {
      if (static_cast<int64_t>(run.series->samples()) > limits_.max_samples_per_run) {
        over_limits.push_back(absl::ResourceExhaustedError(
            absl::StrCat("session ", name, ", ", View(RoleName(run.role)), " run \"",
                         run.series->id, "\": ", run.series->samples(),
                         " samples, over --max_samples_per_run=", limits_.max_samples_per_run)));
      }
      session.run_keys.emplace(run.role, run.series->id);
      session.held_bytes += run.bytes;
      session.runs.push_back(std::move(run));
    }
    if (static_cast<int64_t>(session.runs.size()) > limits_.max_runs_per_session) {
      over_limits.push_back(absl::ResourceExhaustedError(
          absl::StrCat("session ", name, " holds ", session.runs.size(),
                       " runs, over --max_runs_per_session=", limits_.max_runs_per_session)));
    }
    if (session.held_bytes > limits_.max_session_bytes) {
      over_limits.push_back(absl::ResourceExhaustedError(
          absl::StrCat("session ", name, " holds ", session.held_bytes,
                       " bytes, over --max_session_bytes=", limits_.max_session_bytes)));
    }
    total_held_ += session.held_bytes;
    sessions_.emplace(std::move(stored.id), std::move(session));
  }
  if (static_cast<int64_t>(sessions_.size()) > limits_.max_sessions) {
    over_limits.push_back(absl::ResourceExhaustedError(
        absl::StrCat("the server holds ", sessions_.size(),
                     " sessions, over --max_sessions=", limits_.max_sessions)));
  }
  if (total_held_ > limits_.max_total_bytes) {
    over_limits.push_back(absl::ResourceExhaustedError(
        absl::StrCat("the server holds ", total_held_,
                     " bytes, over --max_total_bytes=", limits_.max_total_bytes)));
  }
  return over_limits;
}

LastUses SessionStore::GetLastUses() const {
  absl::MutexLock lock(&mu_);
  LastUses last_uses;
  last_uses.reserve(sessions_.size());
  for (const auto& [id, session] : sessions_) {
    last_uses.emplace_back(session.database_key, session.last_use);
  }
  return last_uses;
}

absl::StatusOr<SessionRecord> SessionStore::Create(std::string id, SessionSettings settings) {
  if (!id.empty()) {
    if (absl::Status status = Refresh(id); !status.ok()) return status;
  }
  absl::MutexLock write_lock(&write_mu_);
  const absl::Time now = absl::Now();
  {
    absl::MutexLock lock(&mu_);
    if (id.empty()) {
      id = UnusedRandomId();
    } else if (FindLive(id, now) != nullptr) {
      return absl::AlreadyExistsError(
          absl::StrCat("session ", wire::SessionName(id), " already exists"));
    }
    if (static_cast<int64_t>(sessions_.size()) >= limits_.max_sessions) {
      ExpireIdleLocked(now);
    }
    if (static_cast<int64_t>(sessions_.size()) >= limits_.max_sessions) {
      return WithLimit(absl::ResourceExhaustedError(absl::StrCat(
                           "the server holds ", sessions_.size(),
                           " sessions, its limit (--max_sessions=", limits_.max_sessions, ")")),
                       "--max_sessions");
    }
    const PrincipalUse use = UseOf(settings.owner, now);
    if (absl::Status status = CheckPrincipalSessions(settings.owner, use.sessions, limits_);
        !status.ok()) {
      return status;
    }
    if (absl::Status status =
            CheckPrincipalBytes(settings.owner, use.bytes + LabelBytes(settings.labels), limits_);
        !status.ok()) {
      return status;
    }
  }
  // Under write_mu_ the id stays free and the slot stays open meanwhile.
  absl::StatusOr<int64_t> database_key = backend_->InsertSession(id, settings, now);
  if (!database_key.ok()) return database_key.status();
  absl::MutexLock lock(&mu_);
  Session session;
  session.instance = next_instance_++;
  session.idle_ttl = settings.idle_ttl.value_or(limits_.session_idle_ttl);
  session.label_bytes = LabelBytes(settings.labels);
  session.settings = std::move(settings);
  session.create_time = now;
  session.last_use = now;
  session.database_key = *database_key;
  const auto [it, inserted] = sessions_.emplace(std::move(id), std::move(session));
  return RecordOf(it->first, it->second, /*with_runs=*/true);
}

absl::StatusOr<SessionRecord> SessionStore::Get(std::string_view id, std::string_view owner) {
  if (absl::Status status = Refresh(id); !status.ok()) return status;
  absl::MutexLock lock(&mu_);
  const Session* session = FindOwned(id, owner, absl::Now());
  if (session == nullptr) return NotFound(id);
  return RecordOf(std::string(id), *session, /*with_runs=*/true);
}

absl::StatusOr<std::vector<SessionRecord>> SessionStore::List(std::string_view after_id, int limit,
                                                              bool& more, std::string_view owner) {
  const absl::Time now = absl::Now();
  // One more than a page tells whether another follows.
  absl::StatusOr<std::optional<std::vector<SessionSummary>>> rows =
      backend_->List(std::string(owner), std::string(after_id), limit + 1, now);
  if (!rows.ok()) return rows.status();
  std::vector<SessionRecord> page;
  if (rows->has_value()) {
    more = static_cast<int>((*rows)->size()) > limit;
    if (more) (*rows)->resize(static_cast<size_t>(limit));
    page.reserve((*rows)->size());
    for (const SessionSummary& row : **rows) page.push_back(RecordOf(row));
    return page;
  }
  absl::MutexLock lock(&mu_);
  more = false;
  auto it = after_id.empty() ? sessions_.begin() : sessions_.upper_bound(after_id);
  while (it != sessions_.end()) {
    if (Expired(it->second, now)) {
      Erase(it++);
      continue;
    }
    if (it->second.settings.owner != owner) {
      ++it;
      continue;
    }
    if (static_cast<int>(page.size()) == limit) {
      more = true;
      break;
    }
    page.push_back(RecordOf(it->first, it->second, /*with_runs=*/false));
    ++it;
  }
  return page;
}

absl::Status SessionStore::Delete(std::string_view id, std::string_view owner) {
  if (absl::Status status = Refresh(id); !status.ok()) return status;
  int64_t database_key = 0;
  {
    absl::MutexLock lock(&mu_);
    const Session* session = FindOwned(id, owner, absl::Now());
    if (session == nullptr) return NotFound(id);
    database_key = session->database_key;
    Erase(sessions_.find(id));
  }
  absl::Status status = backend_->Delete(database_key, std::string(id));
  // Another replica deleted it first: gone all the same.
  return absl::IsNotFound(status) ? NotFound(id) : status;
}

absl::StatusOr<SessionRef> SessionStore::Open(std::string_view id, std::string_view owner) {
  if (absl::Status status = Refresh(id); !status.ok()) return status;
  const absl::Time now = absl::Now();
  SessionRef ref;
  {
    absl::MutexLock lock(&mu_);
    Session* session = FindOwned(id, owner, now);
    if (session == nullptr) return NotFound(id);
    session->last_use = now;
    ref = SessionRef{std::string(id), session->instance, session->key()};
  }
  backend_->SaveUse(ref.key, now);
  return ref;
}

absl::StatusOr<SessionSnapshot> SessionStore::Snapshot(std::string_view id,
                                                       std::string_view owner) {
  if (absl::Status status = Refresh(id); !status.ok()) return status;
  const absl::Time now = absl::Now();
  absl::MutexLock lock(&mu_);
  Session* session = FindOwned(id, owner, now);
  if (session == nullptr) return NotFound(id);
  session->last_use = now;
  ++session->leases;
  SessionSnapshot snapshot;
  snapshot.id = std::string(id);
  snapshot.key = session->key();
  snapshot.lease = SessionLease(
      [this, id = snapshot.id, instance = session->instance] { EndLease(id, instance); });
  snapshot.default_parameters = session->settings.default_parameters;
  for (const StoredRun& run : session->runs) {
    (run.role == RunRole::kSimulation ? snapshot.simulation : snapshot.reference).push_back(run);
  }
  return snapshot;
}

void SessionStore::Touch(std::string_view id) {
  const absl::Time now = absl::Now();
  absl::MutexLock lock(&mu_);
  if (Session* session = FindLive(id, now)) session->last_use = now;
}

absl::Status SessionStore::Reserve(const SessionRef& ref, int64_t bytes) {
  const absl::Time now = absl::Now();
  absl::MutexLock lock(&mu_);
  Session* session = FindInstance(ref, now);
  if (session == nullptr) return NotFound(ref.id);
  const int64_t session_bytes = session->bytes() + bytes;
  if (session_bytes > limits_.max_session_bytes) {
    return WithLimit(absl::ResourceExhaustedError(absl::StrCat(
                         "session ", wire::SessionName(ref.id), " would hold ", session_bytes,
                         " bytes of run data and labels, over its limit (--max_session_bytes=",
                         limits_.max_session_bytes, ")")),
                     "--max_session_bytes");
  }
  if (absl::Status status = CheckPrincipalBytes(
          session->settings.owner, UseOf(session->settings.owner, now).bytes + bytes, limits_);
      !status.ok()) {
    return status;
  }
  if (absl::Status status = CheckTotalLocked(bytes); !status.ok()) return status;
  session->reserved_bytes += bytes;
  total_reserved_ += bytes;
  session->last_use = now;
  return absl::OkStatus();
}

absl::Status SessionStore::CheckTotalLocked(int64_t bytes) const {
  const int64_t total_bytes = total_held_ + total_reserved_ + bytes;
  if (total_bytes <= limits_.max_total_bytes) return absl::OkStatus();
  return WithLimit(absl::ResourceExhaustedError(
                       absl::StrCat("the server would hold ", total_bytes,
                                    " bytes of run data and jobs' inputs, over its limit "
                                    "(--max_total_bytes=",
                                    limits_.max_total_bytes, ")")),
                   "--max_total_bytes");
}

absl::Status SessionStore::ReserveJob(std::string_view owner, int64_t bytes) {
  absl::MutexLock lock(&mu_);
  if (absl::Status status =
          CheckPrincipalBytes(owner, UseOf(owner, absl::Now()).bytes + bytes, limits_);
      !status.ok()) {
    return status;
  }
  if (absl::Status status = CheckTotalLocked(bytes); !status.ok()) return status;
  total_reserved_ += bytes;
  const auto it = job_bytes_.find(owner);
  if (it == job_bytes_.end()) {
    job_bytes_.emplace(std::string(owner), bytes);
  } else {
    it->second += bytes;
  }
  return absl::OkStatus();
}

void SessionStore::ReleaseJob(std::string_view owner, int64_t bytes) {
  absl::MutexLock lock(&mu_);
  total_reserved_ -= bytes;
  const auto it = job_bytes_.find(owner);
  if (it != job_bytes_.end() && (it->second -= bytes) == 0) job_bytes_.erase(it);
}

void SessionStore::Release(const SessionRef& ref, int64_t bytes) {
  absl::MutexLock lock(&mu_);
  total_reserved_ -= bytes;
  // A deleted session took its reservations with it; only the total still counts them.
  const auto it = sessions_.find(ref.id);
  if (it != sessions_.end() && it->second.instance == ref.instance) {
    it->second.reserved_bytes -= bytes;
  }
}

absl::Status SessionStore::CheckNewRun(const SessionRef& ref, RunRole role,
                                       std::string_view series_id) {
  absl::MutexLock lock(&mu_);
  const Session* session = FindInstance(ref, absl::Now());
  if (session == nullptr) return NotFound(ref.id);
  return CheckNewRunLocked(ref.id, *session, role, series_id);
}

absl::StatusOr<RunRecord> SessionStore::Commit(const SessionRef& ref, StoredRun run) {
  absl::MutexLock write_lock(&write_mu_);
  int64_t database_key = 0;
  {
    absl::MutexLock lock(&mu_);
    const Session* session = FindInstance(ref, absl::Now());
    if (session == nullptr) return NotFound(ref.id);
    if (absl::Status status = CheckNewRunLocked(ref.id, *session, run.role, run.series->id);
        !status.ok()) {
      return status;
    }
    database_key = session->database_key;
  }
  run.commit_time = absl::Now();
  // The caller acknowledges the run only after this returns, so an
  // acknowledged run is in the backend.
  absl::StatusOr<int64_t> run_key = backend_->InsertRun(database_key, ref.id, run);
  if (absl::IsNotFound(run_key.status())) {
    // Deleted meanwhile, maybe through another replica: gone here too.
    absl::MutexLock lock(&mu_);
    if (FindInstance(ref, absl::Now()) != nullptr) Erase(sessions_.find(ref.id));
  }
  if (!run_key.ok()) return run_key.status();
  run.database_key = *run_key;
  absl::MutexLock lock(&mu_);
  Session* session = FindInstance(ref, absl::Now());
  // Deleted or expired meanwhile: its rows, this run's included, leave the
  // database with its key.
  if (session == nullptr) return NotFound(ref.id);
  session->reserved_bytes -= run.bytes;
  total_reserved_ -= run.bytes;
  session->last_use = std::max(session->last_use, run.commit_time);
  const RunRecord record = RecordOf(run);
  AddRun(*session, std::move(run));
  return record;
}

void SessionStore::EndLease(const std::string& id, uint64_t instance) {
  const absl::Time now = absl::Now();
  int64_t database_key = 0;
  {
    absl::MutexLock lock(&mu_);
    // A deleted session took its leases with it; a reused id is another instance.
    const auto it = sessions_.find(id);
    if (it == sessions_.end() || it->second.instance != instance) return;
    --it->second.leases;
    // The TTL runs from the end of the validation, not from its start.
    it->second.last_use = now;
    database_key = it->second.database_key;
  }
  // Also for the other replicas' sweeps.
  backend_->SaveUse(database_key, now);
}

std::vector<std::string> SessionStore::ExpireIdle(absl::Time now) {
  std::vector<std::string> expired = backend_->ExpireIdle(now, GetLastUses());
  absl::MutexLock lock(&mu_);
  for (const std::string& id : expired) {
    if (auto it = sessions_.find(id); it != sessions_.end()) Erase(it);
  }
  std::vector<std::string> local = ExpireIdleLocked(now);
  expired.insert(expired.end(), local.begin(), local.end());
  return expired;
}

int64_t SessionStore::total_bytes() const {
  absl::MutexLock lock(&mu_);
  return total_held_ + total_reserved_;
}

std::set<int64_t> SessionStore::Keys() const {
  absl::MutexLock lock(&mu_);
  std::set<int64_t> keys;
  for (const auto& [id, session] : sessions_) keys.insert(session.key());
  return keys;
}

SessionStore::Totals SessionStore::totals() const {
  absl::MutexLock lock(&mu_);
  Totals totals;
  totals.sessions = static_cast<int64_t>(sessions_.size());
  for (const auto& [id, session] : sessions_) {
    totals.runs += static_cast<int64_t>(session.runs.size());
  }
  totals.held_bytes = total_held_;
  totals.reserved_bytes = total_reserved_;
  return totals;
}

std::vector<std::string> SessionStore::ExpireIdleLocked(absl::Time now) {
  std::vector<std::string> expired;
  for (auto it = sessions_.begin(); it != sessions_.end();) {
    if (Expired(it->second, now)) {
      expired.push_back(it->first);
      Erase(it++);
    } else {
      ++it;
    }
  }
  return expired;
}

SessionStore::PrincipalUse SessionStore::UseOf(std::string_view owner, absl::Time now) const {
  PrincipalUse use;
  if (const auto it = job_bytes_.find(owner); it != job_bytes_.end()) use.bytes = it->second;
  for (const auto& [id, session] : sessions_) {
    if (session.settings.owner != owner || Expired(session, now)) continue;
    ++use.sessions;
    use.bytes += session.bytes();
  }
  return use;
}

bool SessionStore::Expired(const Session& session, absl::Time now) {
  return session.leases == 0 && session.last_use + session.idle_ttl <= now;
}

SessionStore::Session* SessionStore::FindLive(std::string_view id, absl::Time now) {
  const auto it = sessions_.find(id);
  if (it == sessions_.end()) return nullptr;
  if (Expired(it->second, now)) {
    Erase(it);
    return nullptr;
  }
  return &it->second;
}

SessionStore::Session* SessionStore::FindOwned(std::string_view id, std::string_view owner,
                                               absl::Time now) {
  Session* session = FindLive(id, now);
  return session != nullptr && session->settings.owner == owner ? session : nullptr;
}

SessionStore::Session* SessionStore::FindInstance(const SessionRef& ref, absl::Time now) {
  Session* session = FindLive(ref.id, now);
  return session != nullptr && session->instance == ref.instance ? session : nullptr;
}

void SessionStore::Erase(SessionMap::iterator it) {
  total_held_ -= it->second.held_bytes;
  backend_->Dropped(it->second.database_key);
  sessions_.erase(it);
}

absl::Status SessionStore::CheckNewRunLocked(const std::string& id, const Session& session,
                                             RunRole role, std::string_view series_id) const {
  if (session.run_keys.contains(std::pair(role, std::string(series_id)))) {
    return absl::AlreadyExistsError(absl::StrCat("session ", wire::SessionName(id),
                                                 " already holds ", View(RoleName(role)), " run ",
                                                 QuotedText(View(series_id))));
  }
  if (static_cast<int64_t>(session.runs.size()) >= limits_.max_runs_per_session) {
    return WithLimit(
        absl::ResourceExhaustedError(absl::StrCat(
            "session ", wire::SessionName(id), " holds ", session.runs.size(),
            " runs, its limit (--max_runs_per_session=", limits_.max_runs_per_session, ")")),
        "--max_runs_per_session");
  }
  return absl::OkStatus();
}

std::string SessionStore::UnusedRandomId() const {
  absl::BitGen gen;
  while (true) {
    std::string id = absl::StrFormat("%016x", absl::Uniform<uint64_t>(gen));
    if (!sessions_.contains(id)) return id;
  }
}

absl::Status SessionStore::Refresh(std::string_view id) {
  const std::string session_id(id);
  absl::StatusOr<SessionRow> row = backend_->Read(session_id);
  if (!row.ok()) return row.status();
  if (!row->authoritative) return absl::OkStatus();
  int64_t database_key = 0;
  std::set<int64_t> known;
  {
    absl::MutexLock lock(&mu_);
    auto it = sessions_.find(id);
    if (!row->session.has_value()) {
      // Deleted, or expired and swept, through some replica.
      if (it != sessions_.end()) Erase(it);
      return absl::OkStatus();
    }
    const PersistedSession& stored = *row->session;
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
      session.label_bytes = LabelBytes(stored.settings.labels);
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
  absl::StatusOr<std::vector<StoredRun>> runs = backend_->ReadRuns(session_id, database_key, known);
  if (!runs.ok()) return runs.status();
  if (runs->empty()) return absl::OkStatus();
  absl::MutexLock lock(&mu_);
  auto it = sessions_.find(id);
  // Gone or replaced meanwhile: the next use reads it again.
  if (it == sessions_.end() || it->second.database_key != database_key) return absl::OkStatus();
  for (StoredRun& run : *runs) AddRun(it->second, std::move(run));
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

RunRecord SessionStore::RecordOf(const StoredRun& run) {
  RunRecord record;
  record.series_id = run.series->id;
  record.role = run.role;
  record.samples = static_cast<int64_t>(run.series->samples());
  record.channels = run.series->channels;
  record.weight = run.weight;
  record.inputs = run.inputs;
  record.source = run.source;
  record.commit_time = run.commit_time;
  record.units = run.series->units;
  return record;
}

SessionRecord SessionStore::RecordOf(const std::string& id, const Session& session,
                                     bool with_runs) {
  SessionRecord record;
  record.id = id;
  record.labels = session.settings.labels;
  record.default_parameters = session.settings.default_parameters;
  record.idle_ttl = session.idle_ttl;
  record.create_time = session.create_time;
  record.expire_time = session.last_use + session.idle_ttl;
  for (const StoredRun& run : session.runs) {
    ++(run.role == RunRole::kSimulation ? record.simulation_run_count : record.reference_run_count);
    if (with_runs) record.runs.push_back(RecordOf(run));
  }
  record.bytes_held = session.held_bytes;
  return record;
}

SessionRecord SessionStore::RecordOf(const SessionSummary& summary) const {
  SessionRecord record;
  record.id = summary.session.id;
  record.labels = summary.session.settings.labels;
  record.default_parameters = summary.session.settings.default_parameters;
  record.idle_ttl = summary.session.settings.idle_ttl.value_or(limits_.session_idle_ttl);
  record.create_time = summary.session.create_time;
  record.expire_time = summary.session.last_use + record.idle_ttl;
  record.simulation_run_count = summary.simulation_runs;
  record.reference_run_count = summary.reference_runs;
  record.bytes_held = summary.bytes;
  return record;
}

}  // namespace wasserwarp::service
