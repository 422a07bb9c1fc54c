// What a session store keeps of a session and its runs, in plain values: what the store holds
// in memory and hands its backend (session_backend.h) to keep, and what a backend reads back.

#ifndef WASSERWARP_SERVER_SESSIONS_STORED_SESSION_H_
#define WASSERWARP_SERVER_SESSIONS_STORED_SESSION_H_

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/time/time.h"
#include "wasserwarp/parameter_overrides.h"
#include "wasserwarp/run_parameters.h"
#include "wasserwarp/run_role.h"
#include "wasserwarp/run_source.h"
#include "wasserwarp/series.h"

namespace wasserwarp::service {

struct StoredRun {
  std::shared_ptr<const Series> series;
  RunRole role = RunRole::kSimulation;
  std::optional<double> weight;
  // Simulated runs only; kept with the run for the validations of a parameter study.
  SimulationInputs inputs;
  // Where the run came from, as the uploading client said (SeriesHeader.source).
  std::optional<RunSource> source;
  absl::Time commit_time;
  int64_t bytes = 0;
  // The shared database's key of the run (0 without one): runs are in the order of their keys.
  int64_t database_key = 0;
};

struct SessionSettings {
  ParameterOverrides default_parameters;
  std::map<std::string, std::string> labels;
  std::optional<absl::Duration> idle_ttl;  // unset: the server's default
  // The principal that created the session (--auth_tokens_file); "" is the
  // anonymous principal of a server without access control. Only the owner
  // sees or uses the session: to anyone else it does not exist.
  std::string owner;
};

// A session as a database holds it.
struct PersistedSession {
  // The database's key of this session; never reused, unlike ids.
  int64_t key = 0;
  std::string id;
  SessionSettings settings;  // the owner included
  absl::Time create_time;
  absl::Time last_use;
  // In commit order, each with its commit time and bytes; empty where the runs are read
  // apart from their session.
  std::vector<StoredRun> runs;
};

// A session as a listing shows it: without its runs, which it counts.
struct SessionSummary {
  PersistedSession session;
  int32_t simulation_runs = 0;
  int32_t reference_runs = 0;
  int64_t bytes = 0;
};

// The sample data bytes of a run: 8 per time and per value.
int64_t SampleBytes(int64_t times, int64_t values);
// The bytes of a run's header, held with its samples: its text (channel units included), and 8
// per parameter value.
int64_t HeaderBytes(std::string_view series_id, const std::vector<std::string>& channels,
                    const SimulationInputs& inputs = {},
                    const std::vector<std::string>& units = {});

}  // namespace wasserwarp::service

#endif  // WASSERWARP_SERVER_SESSIONS_STORED_SESSION_H_
