// A lease on a session: keeps it from expiring while a validation of it is
// queued or running, however long that takes.

#ifndef WASSERWARP_SERVER_SESSIONS_SESSION_LEASE_H_
#define WASSERWARP_SERVER_SESSIONS_SESSION_LEASE_H_

#include "absl/functional/any_invocable.h"

namespace wasserwarp::service {

// Its end counts as a use. Deletion still removes a leased session.
// Move-only; must not outlive the store that granted it (SessionStore::Snapshot).
class SessionLease {
 public:
  SessionLease() = default;
  // `end` ends the lease in its store, once.
  explicit SessionLease(absl::AnyInvocable<void() &&> end);
  SessionLease(SessionLease&& other) noexcept;
  SessionLease& operator=(SessionLease&& other) noexcept;
  ~SessionLease();

  // Ends the lease now rather than at destruction.
  void Reset();

 private:
  absl::AnyInvocable<void() &&> end_;
};

}  // namespace wasserwarp::service

#endif  // WASSERWARP_SERVER_SESSIONS_SESSION_LEASE_H_
