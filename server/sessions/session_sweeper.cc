#include "sessions/session_sweeper.h"

#include "spdlog/spdlog.h"

namespace wasserwarp::service {

SessionSweeper::SessionSweeper(SessionStore& store) : store_(store) {}

std::vector<std::string> SessionSweeper::Sweep(absl::Time now) {
  std::vector<std::string> expired = store_.ExpireIdle(now);
  for (const std::string& id : expired) spdlog::info("session sessions/{} expired", id);
  Save();
  return expired;
}

void SessionSweeper::Save() {
  if (absl::Status status = store_.Save(); !status.ok()) {
    spdlog::error("saving sessions: {}", std::string(status.message()));
  }
}

}  // namespace wasserwarp::service
