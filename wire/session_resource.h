// A session and its runs as the service holds and shows them, in plain values: what the
// session store returns and the wire module renders (session_proto.h), so that neither the
// store nor its database holds proto types.

#ifndef WASSERWARP_WIRE_SESSION_RESOURCE_H_
#define WASSERWARP_WIRE_SESSION_RESOURCE_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/time/time.h"
#include "wasserwarp/parameter_overrides.h"

namespace wasserwarp::wire {

// Which side of a validation a run is on.
enum class RunRole { kSimulation, kReference };

// "simulation" or "reference", the way errors and logs name a role.
inline std::string_view RoleName(RunRole role) {
  return role == RunRole::kSimulation ? "simulation" : "reference";
}

// What a simulated run was simulated with, for parameter studies: runs with the same
// parameters form a design point, and runs of different points with the same trial were
// driven by the same random inputs (common random numbers). Empty for reference runs.
struct SimulationInputs {
  // Ordered by name: the order they are stored and shown in, whatever order they came in.
  std::map<std::string, double> parameters;
  // Empty: none named.
  std::string trial;
};

// A committed run, without its samples.
struct RunRecord {
  std::string series_id;
  RunRole role = RunRole::kSimulation;
  int64_t samples = 0;
  std::vector<std::string> channels;
  std::optional<double> weight;
  SimulationInputs inputs;
  absl::Time commit_time;
};

// A session: its settings, its idle expiry and what it holds.
struct SessionRecord {
  std::string id;
  std::map<std::string, std::string> labels;
  ParameterOverrides default_parameters;
  absl::Duration idle_ttl;
  absl::Time create_time;
  absl::Time expire_time;
  // In commit order; empty where a listing leaves the runs out.
  std::vector<RunRecord> runs;
  int32_t simulation_run_count = 0;
  int32_t reference_run_count = 0;
  int64_t bytes_held = 0;
};

}  // namespace wasserwarp::wire

#endif  // WASSERWARP_WIRE_SESSION_RESOURCE_H_
