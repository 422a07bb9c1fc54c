#include "sessions/principal_quota.h"

#include <string>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "wasserwarp/field_error.h"

namespace wasserwarp::service {
// The anonymous principal of a server without access control has no name to show.
std::string PrincipalName(std::string_view owner) {
  if (owner.empty()) return "the anonymous principal";
  return absl::StrCat("principal \"", absl::CEscape(absl::string_view(owner.data(), owner.size())),
                      "\"");
}

absl::Status CheckPrincipalSessions(std::string_view owner, int64_t held,
                                    const SessionLimits& limits) {
  if (held < limits.max_sessions_per_principal) return absl::OkStatus();
  return WithLimit(absl::ResourceExhaustedError(
                       absl::StrCat(PrincipalName(owner), " holds ", held,
                                    " sessions, its limit (--max_sessions_per_principal=",
                                    limits.max_sessions_per_principal, "); delete some first")),
                   "--max_sessions_per_principal");
}

absl::Status CheckPrincipalBytes(std::string_view owner, int64_t would_hold,
                                 const SessionLimits& limits) {
  if (would_hold <= limits.max_bytes_per_principal) return absl::OkStatus();
  return WithLimit(absl::ResourceExhaustedError(absl::StrCat(
                       "the sessions of ", PrincipalName(owner), " would hold ", would_hold,
                       " bytes of run data and labels, over its limit (--max_bytes_per_principal=",
                       limits.max_bytes_per_principal, ")")),
                   "--max_bytes_per_principal");
}

}  // namespace wasserwarp::service
