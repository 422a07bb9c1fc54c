// A lease on a session: keeps it from expiring while a validation of it is
// queued or running, however long that takes.

#ifndef WASSERWARP_SERVER_SESSIONS_SESSION_LEASE_H_
#define WASSERWARP_SERVER_SESSIONS_SESSION_LEASE_H_

#include <cstdint>
#include <string>

namespace wasserwarp::service {

class SessionStore;

// Its end counts as a use. Deletion still removes a leased session.
// Move-only; must not outlive its store.
class SessionLease {
 public:
  SessionLease() = default;
  SessionLease(SessionLease&& other) noexcept;
  SessionLease& operator=(SessionLease&& other) noexcept;
  ~SessionLease();

  // Ends the lease now rather than at destruction.
  void Reset();

 private:
  friend class SessionStore;
  SessionLease(SessionStore* store, std::string id, uint64_t instance);

  SessionStore* store_ = nullptr;
  std::string id_;
  uint64_t instance_ = 0;
};

}  // namespace wasserwarp::service

#endif  // WASSERWARP_SERVER_SESSIONS_SESSION_LEASE_H_
