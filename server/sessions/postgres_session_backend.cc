#include "sessions/postgres_session_backend.h"

#include <spdlog/spdlog.h>

#include <utility>

namespace wasserwarp::service {
namespace {

// Replicas' clocks may differ by this much: a session expires this long after its TTL ran out
// by the sweeping replica's clock, so that a use another replica just saved still counts.
constexpr absl::Duration kClockSkewGrace = absl::Seconds(5);

}  // namespace

PostgresSessionBackend::PostgresSessionBackend(postgres::Pool& pool, const SessionLimits& limits,
                                               postgres::TransactionOptions options)
    : sessions_(pool, limits, std::move(options)) {}

absl::StatusOr<std::vector<PersistedSession>> PostgresSessionBackend::Load(absl::Time,
                                                                           absl::Duration) {
  return std::vector<PersistedSession>();
}

absl::StatusOr<SessionRow> PostgresSessionBackend::Read(const std::string& id) {
  absl::StatusOr<std::optional<PersistedSession>> session = sessions_.FindSession(id);
  if (!session.ok()) return session.status();
  return SessionRow{.authoritative = true, .session = *std::move(session)};
}

absl::StatusOr<std::vector<StoredRun>> PostgresSessionBackend::ReadRuns(
    const std::string& id, int64_t session_key, const std::set<int64_t>& known) {
  absl::StatusOr<std::vector<int64_t>> keys = sessions_.RunKeys(session_key);
  if (!keys.ok()) return keys.status();
  std::vector<int64_t> missing;
  for (int64_t key : *keys) {
    if (!known.contains(key)) missing.push_back(key);
  }
  if (missing.empty()) return std::vector<StoredRun>();
  return sessions_.LoadRuns(id, missing);
}

absl::StatusOr<std::optional<std::vector<SessionSummary>>> PostgresSessionBackend::List(
    const std::string& owner, const std::string& after_id, int limit, absl::Time now) {
  absl::StatusOr<std::vector<SessionSummary>> page = sessions_.List(owner, after_id, limit, now);
  if (!page.ok()) return page.status();
  return *std::move(page);
}

absl::StatusOr<int64_t> PostgresSessionBackend::InsertSession(const std::string& id,
                                                              const SessionSettings& settings,
                                                              absl::Time now) {
  return sessions_.InsertSession(id, settings, now);
}

absl::StatusOr<int64_t> PostgresSessionBackend::InsertRun(int64_t session_key,
                                                          const std::string& session_id,
                                                          const StoredRun& run) {
  return sessions_.InsertRun(session_key, session_id, run);
}

void PostgresSessionBackend::Dropped(int64_t) {}

absl::Status PostgresSessionBackend::Delete(int64_t session_key, const std::string& session_id) {
  return sessions_.DeleteSession(session_key, session_id);
}

void PostgresSessionBackend::SaveUse(int64_t session_key, absl::Time now) {
  if (absl::Status status = sessions_.SaveLastUse({{session_key, now}}); !status.ok()) {
    // The next sweep saves it with the others.
    spdlog::warn("a session's last use was not saved: {}", status.ToString());
  }
}

std::vector<std::string> PostgresSessionBackend::ExpireIdle(absl::Time now,
                                                            const LastUses& last_uses) {
  if (absl::Status status = sessions_.SaveLastUse(last_uses); !status.ok()) {
    spdlog::warn("sessions' last uses were not saved: {}", status.ToString());
    return {};
  }
  absl::StatusOr<std::vector<std::string>> expired = sessions_.ExpireIdle(now, kClockSkewGrace);
  if (!expired.ok()) {
    spdlog::warn("idle sessions were not expired: {}", expired.status().ToString());
    return {};
  }
  return *std::move(expired);
}

absl::Status PostgresSessionBackend::Save(const LastUses&) { return absl::OkStatus(); }

}  // namespace wasserwarp::service
