#include "sessions/session_sweeper.h"

#include "spdlog/spdlog.h"

namespace wasserwarp::service {

SessionSweeper::SessionSweeper(SessionStore& store, SessionSync* sync)
    : store_(store), sync_(sync) {}

std::vector<std::string> SessionSweeper::Sweep(absl::Time now) {
  std::vector<std::string> expired = store_.ExpireIdle(now);
  for (const std::string& id : expired) spdlog::info("session sessions/{} expired", id);
  Save();
  return expired;
}

void SessionSweeper::Save() {
  if (sync_ == nullptr) return;
  if (absl::Status status = sync_->Sync(store_); !status.ok()) {
    spdlog::error("saving sessions: {}", std::string(status.message()));
  }
}

}  // namespace wasserwarp::service
