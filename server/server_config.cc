#include "server_config.h"

#include <cstdint>
#include <limits>

#include "absl/strings/str_cat.h"

namespace wasserwarp::service {
namespace {

absl::Status AtLeast(const char* flag, int64_t value, int64_t minimum) {
  if (value >= minimum) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat("--", flag, " must be at least ", minimum, ", got ", value));
}

}  // namespace

absl::Status ValidateConfig(const ServerConfig& config) {
  const SessionLimits& s = config.sessions;
  const JobLimits& j = config.jobs;
  for (const absl::Status& status : {
           AtLeast("max_sessions", s.max_sessions, 1),
           AtLeast("max_runs_per_session", s.max_runs_per_session, 1),
           AtLeast("max_samples_per_run", s.max_samples_per_run, 1),
           AtLeast("max_session_bytes", s.max_session_bytes, 1),
           AtLeast("max_total_bytes", s.max_total_bytes, 1),
           AtLeast("max_concurrent_jobs", j.max_concurrent_jobs, 1),
           AtLeast("max_queued_jobs", j.max_queued_jobs, 0),
           AtLeast("job_threads", j.job_threads, 0),
           AtLeast("max_message_bytes", config.max_message_bytes, 1024),
       }) {
    if (!status.ok()) return status;
  }
  if (config.max_message_bytes > std::numeric_limits<int>::max()) {
    return absl::InvalidArgumentError(absl::StrCat("--max_message_bytes must be at most ",
                                                   std::numeric_limits<int>::max(), ", got ",
                                                   config.max_message_bytes));
  }
  if (s.session_idle_ttl <= absl::ZeroDuration()) {
    return absl::InvalidArgumentError(absl::StrCat("--session_idle_ttl must be positive, got ",
                                                   absl::FormatDuration(s.session_idle_ttl)));
  }
  if (config.shutdown_grace < absl::ZeroDuration()) {
    return absl::InvalidArgumentError(absl::StrCat("--shutdown_grace must not be negative, got ",
                                                   absl::FormatDuration(config.shutdown_grace)));
  }
  if (config.sweep_interval <= absl::ZeroDuration()) {
    return absl::InvalidArgumentError("sweep interval must be positive");
  }
  return absl::OkStatus();
}

}  // namespace wasserwarp::service
