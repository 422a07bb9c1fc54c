// What a wasserwarp-server instance is allowed to hold and do. main.cc fills
// it from flags; tests fill it directly.

#ifndef WASSERWARP_SERVER_SERVER_CONFIG_H_
#define WASSERWARP_SERVER_SERVER_CONFIG_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/time/time.h"

namespace wasserwarp::service {

// Limits on what sessions hold. Each is reported by its flag name when hit,
// so an operator knows which one to raise.
struct SessionLimits {
  int max_sessions = 1000;
  int max_runs_per_session = 10000;
  int64_t max_samples_per_run = 1'000'000;
  // Run data (times and values, 8 bytes each, and header text), committed or
  // in flight.
  int64_t max_session_bytes = int64_t{1} << 30;
  int64_t max_total_bytes = int64_t{4} << 30;
  // A session's TTL when its creator sets none.
  absl::Duration session_idle_ttl = absl::Hours(24);
};

struct JobLimits {
  int max_concurrent_jobs = 2;
  // Jobs waiting for a slot; one more is RESOURCE_EXHAUSTED.
  int max_queued_jobs = 64;
  // oneTBB threads of one job; 0: every core, shared among running jobs.
  int job_threads = 0;
};

struct ServerConfig {
  // host:port; port 0 picks a free port.
  std::string listen = "127.0.0.1:50051";
  // gRPC's 4 MiB default would cap a chunk at half a million doubles.
  int64_t max_message_bytes = int64_t{64} << 20;
  absl::Duration shutdown_grace = absl::Seconds(10);
  // How often idle sessions are swept; expired ones are invisible anyway.
  absl::Duration sweep_interval = absl::Seconds(30);
  SessionLimits sessions;
  JobLimits jobs;
};

// InvalidArgument naming the flag of the first out-of-range value.
absl::Status ValidateConfig(const ServerConfig& config);

}  // namespace wasserwarp::service

#endif  // WASSERWARP_SERVER_SERVER_CONFIG_H_
