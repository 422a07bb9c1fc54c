// Which side of a validation a run is on: what the service's sessions store their runs under
// and its validations name their runs by, so that neither depends on the other for it.

#ifndef WASSERWARP_RUN_ROLE_H_
#define WASSERWARP_RUN_ROLE_H_

#include <cstdint>
#include <optional>
#include <string_view>

namespace wasserwarp {

// The numbers are what the service stores, and its API's (wasserwarp.v1.Role).
enum class RunRole { kSimulation = 1, kReference = 2 };

// "simulation" or "reference", the way errors and logs name a role.
inline std::string_view RoleName(RunRole role) {
  return role == RunRole::kSimulation ? "simulation" : "reference";
}

// The role of a stored number; std::nullopt for a number no role has.
inline std::optional<RunRole> RoleFromNumber(int64_t number) {
  switch (number) {
    case static_cast<int64_t>(RunRole::kSimulation):
      return RunRole::kSimulation;
    case static_cast<int64_t>(RunRole::kReference):
      return RunRole::kReference;
    default:
      return std::nullopt;
  }
}

}  // namespace wasserwarp

#endif  // WASSERWARP_RUN_ROLE_H_
