// wasserwarp-server: the validation service over gRPC.

#include <pthread.h>
#include <signal.h>

#include <cstdint>
#include <cstdio>
#include <string>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/flags/usage_config.h"
#include "absl/strings/match.h"
#include "absl/time/time.h"
#include "server.h"
#include "server_config.h"
#include "spdlog/sinks/stdout_color_sinks.h"
#include "spdlog/spdlog.h"

namespace {

const wasserwarp::service::ServerConfig kDefaults;

}  // namespace

ABSL_FLAG(std::string, listen, kDefaults.listen,
          "host:port to listen on; port 0 picks a free port");
ABSL_FLAG(int, max_sessions, kDefaults.sessions.max_sessions, "sessions held at most");
ABSL_FLAG(int, max_runs_per_session, kDefaults.sessions.max_runs_per_session,
          "runs one session holds at most");
ABSL_FLAG(int64_t, max_samples_per_run, kDefaults.sessions.max_samples_per_run,
          "samples of one run at most (uploads and ComputeTwed)");
ABSL_FLAG(int64_t, max_session_bytes, kDefaults.sessions.max_session_bytes,
          "run data bytes (samples and header text) one session holds at most, uploads in flight "
          "included");
ABSL_FLAG(int64_t, max_total_bytes, kDefaults.sessions.max_total_bytes,
          "run data bytes (samples and header text) all sessions hold at most, uploads in flight "
          "included");
ABSL_FLAG(int64_t, max_message_bytes, kDefaults.max_message_bytes,
          "largest message received, in bytes");
ABSL_FLAG(absl::Duration, session_idle_ttl, kDefaults.sessions.session_idle_ttl,
          "a session expires this long after its last use, unless it sets its own TTL");
ABSL_FLAG(int, max_concurrent_jobs, kDefaults.jobs.max_concurrent_jobs,
          "validations and TWED computations running at once");
ABSL_FLAG(int, max_queued_jobs, kDefaults.jobs.max_queued_jobs,
          "jobs waiting for a slot at most; more are refused with RESOURCE_EXHAUSTED");
ABSL_FLAG(int, job_threads, kDefaults.jobs.job_threads,
          "threads of one job; 0: every core, shared among running jobs");
ABSL_FLAG(absl::Duration, shutdown_grace, kDefaults.shutdown_grace,
          "on SIGTERM or SIGINT, how long calls in progress may still run");
ABSL_FLAG(std::string, log_level, "info", "spdlog level: trace, debug, info, warn, error, off");

namespace {

wasserwarp::service::ServerConfig ConfigFromFlags() {
  wasserwarp::service::ServerConfig config;
  config.listen = absl::GetFlag(FLAGS_listen);
  config.max_message_bytes = absl::GetFlag(FLAGS_max_message_bytes);
  config.shutdown_grace = absl::GetFlag(FLAGS_shutdown_grace);
  config.sessions.max_sessions = absl::GetFlag(FLAGS_max_sessions);
  config.sessions.max_runs_per_session = absl::GetFlag(FLAGS_max_runs_per_session);
  config.sessions.max_samples_per_run = absl::GetFlag(FLAGS_max_samples_per_run);
  config.sessions.max_session_bytes = absl::GetFlag(FLAGS_max_session_bytes);
  config.sessions.max_total_bytes = absl::GetFlag(FLAGS_max_total_bytes);
  config.sessions.session_idle_ttl = absl::GetFlag(FLAGS_session_idle_ttl);
  config.jobs.max_concurrent_jobs = absl::GetFlag(FLAGS_max_concurrent_jobs);
  config.jobs.max_queued_jobs = absl::GetFlag(FLAGS_max_queued_jobs);
  config.jobs.job_threads = absl::GetFlag(FLAGS_job_threads);
  return config;
}

}  // namespace

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage("wasserwarp-server [--listen HOST:PORT] [limits]");
  // Abseil's --help lists only flags of a file named after the program.
  absl::FlagsUsageConfig usage;
  usage.contains_help_flags = [](absl::string_view path) {
    return absl::EndsWith(path, "server/main.cc");
  };
  usage.contains_helpshort_flags = usage.contains_help_flags;
  absl::SetFlagsUsageConfig(usage);
  absl::ParseCommandLine(argc, argv);
  // stdout carries only the address line that scripts wait for.
  spdlog::set_default_logger(spdlog::stderr_color_mt("wasserwarp-server"));
  const std::string level_name = absl::GetFlag(FLAGS_log_level);
  const spdlog::level::level_enum level = spdlog::level::from_str(level_name);
  // from_str answers "off" for names it does not know.
  if (level == spdlog::level::off && level_name != "off") {
    std::fprintf(stderr, "wasserwarp-server: unknown --log_level \"%s\"\n", level_name.c_str());
    return 2;
  }
  spdlog::set_level(level);

  // Blocked before any thread starts, so every thread inherits the mask and
  // the signals wait for sigwait below instead of interrupting a handler.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  const wasserwarp::service::ServerConfig config = ConfigFromFlags();
  auto server = wasserwarp::service::ValidationServer::Start(config);
  if (!server.ok()) {
    std::fprintf(stderr, "wasserwarp-server: %s\n", std::string(server.status().message()).c_str());
    return 2;
  }
  std::printf("listening on %s\n", (*server)->address().c_str());
  std::fflush(stdout);
  spdlog::info("listening on {}", (*server)->address());

  int signal_number = 0;
  sigwait(&signals, &signal_number);
  spdlog::info("received signal {}", signal_number);
  (*server)->Shutdown(config.shutdown_grace);
  return 0;
}
