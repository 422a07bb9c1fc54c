// What one principal (call_principal.h) may hold of a server's or a fleet's sessions, so that one
// cannot take the slots and bytes every other needs: the refusals of --max_sessions_per_principal
// and --max_bytes_per_principal, one wording for the in-process store and PostgreSQL's.

#ifndef WASSERWARP_SERVER_SESSIONS_PRINCIPAL_QUOTA_H_
#define WASSERWARP_SERVER_SESSIONS_PRINCIPAL_QUOTA_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "ops/server_config.h"

namespace wasserwarp::service {

// How refusals and logs name `owner`: quoted and escaped, or "the anonymous principal".
std::string PrincipalName(std::string_view owner);

// ResourceExhausted naming --max_sessions_per_principal when `owner` holds `held` sessions, at
// or over the limit; Ok below it.
absl::Status CheckPrincipalSessions(std::string_view owner, int64_t held,
                                    const SessionLimits& limits);
// ResourceExhausted naming --max_bytes_per_principal when `owner`'s sessions would hold
// `would_hold` bytes (run data and labels), over the limit; Ok otherwise.
absl::Status CheckPrincipalBytes(std::string_view owner, int64_t would_hold,
                                 const SessionLimits& limits);

}  // namespace wasserwarp::service

#endif  // WASSERWARP_SERVER_SESSIONS_PRINCIPAL_QUOTA_H_
