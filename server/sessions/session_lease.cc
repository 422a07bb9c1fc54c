#include "sessions/session_lease.h"

#include <utility>

#include "sessions/session_store.h"

namespace wasserwarp::service {

SessionLease::SessionLease(SessionStore* store, std::string id, uint64_t instance)
    : store_(store), id_(std::move(id)), instance_(instance) {}

SessionLease::SessionLease(SessionLease&& other) noexcept
    : store_(std::exchange(other.store_, nullptr)),
      id_(std::move(other.id_)),
      instance_(other.instance_) {}

SessionLease& SessionLease::operator=(SessionLease&& other) noexcept {
  if (this != &other) {
    Reset();
    store_ = std::exchange(other.store_, nullptr);
    id_ = std::move(other.id_);
    instance_ = other.instance_;
  }
  return *this;
}

SessionLease::~SessionLease() { Reset(); }

void SessionLease::Reset() {
  if (store_ != nullptr) std::exchange(store_, nullptr)->EndLease(id_, instance_);
}

}  // namespace wasserwarp::service
