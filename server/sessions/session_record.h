// A session and its runs as the session store returns them, in plain values: what the RPC
// handlers render (rpc/session_proto.h), so that neither the store nor its backends hold proto
// types.

#ifndef WASSERWARP_SERVER_SESSIONS_SESSION_RECORD_H_
#define WASSERWARP_SERVER_SESSIONS_SESSION_RECORD_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "wasserwarp/parameter_overrides.h"
#include "wasserwarp/run_parameters.h"
#include "wasserwarp/run_role.h"
#include "wasserwarp/run_source.h"

namespace wasserwarp::service {

// A committed run, without its samples.
struct RunRecord {
  std::string series_id;
  RunRole role = RunRole::kSimulation;
  int64_t samples = 0;
  std::vector<std::string> channels;
  std::optional<double> weight;
  SimulationInputs inputs;
  std::optional<RunSource> source;
  absl::Time commit_time;
  // Parallel to channels; empty when the run has no units.
  std::vector<std::string> units;
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

}  // namespace wasserwarp::service

#endif  // WASSERWARP_SERVER_SESSIONS_SESSION_RECORD_H_
