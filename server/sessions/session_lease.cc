#include "sessions/session_lease.h"

#include <utility>

namespace wasserwarp::service {

SessionLease::SessionLease(absl::AnyInvocable<void() &&> end) : end_(std::move(end)) {}

SessionLease::SessionLease(SessionLease&& other) noexcept
    : end_(std::exchange(other.end_, nullptr)) {}

SessionLease& SessionLease::operator=(SessionLease&& other) noexcept {
  if (this != &other) {
    Reset();
    end_ = std::exchange(other.end_, nullptr);
  }
  return *this;
}

SessionLease::~SessionLease() { Reset(); }

void SessionLease::Reset() {
  if (end_ != nullptr) std::move(std::exchange(end_, nullptr))();
}

}  // namespace wasserwarp::service
