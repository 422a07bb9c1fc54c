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
#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/time/time.h"
#include "ops/exposure_rules.h"
#include "ops/log_format.h"
#include "ops/server_config.h"
#include "server.h"
#include "spdlog/spdlog.h"
#include "storage/data_directory.h"
#include "storage/postgres_secrets.h"

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
ABSL_FLAG(int64_t, max_job_bytes, kDefaults.jobs.max_job_bytes,
          "bytes one validation may hold at its peak (runs, resampled runs, matrices, report), "
          "computed from the request before it starts; more is RESOURCE_EXHAUSTED");
ABSL_FLAG(int64_t, max_job_cells, kDefaults.jobs.max_job_cells,
          "TWED cells of one validation's cost matrices (and cost entries its verdict's "
          "transport solves read) at most, computed before it starts");
ABSL_FLAG(absl::Duration, max_session_ttl, kDefaults.sessions.max_session_ttl,
          "the longest idle TTL a session may ask for");
ABSL_FLAG(int, max_sessions_per_principal, kDefaults.sessions.max_sessions_per_principal,
          "sessions one principal holds at most; keep it well below --max_sessions so that one "
          "principal cannot take every session slot");
ABSL_FLAG(int64_t, max_bytes_per_principal, kDefaults.sessions.max_bytes_per_principal,
          "run data and label bytes the sessions of one principal hold at most, uploads in "
          "flight included");
ABSL_FLAG(int64_t, max_label_bytes, kDefaults.sessions.max_label_bytes,
          "bytes of the labels (keys and values) of one session at most; they count toward its "
          "--max_session_bytes and its principal's --max_bytes_per_principal");
ABSL_FLAG(int, max_queued_jobs_per_principal, kDefaults.jobs.max_queued_jobs_per_principal,
          "validations and TWED computations of one principal waiting at most; more are refused "
          "with RESOURCE_EXHAUSTED");
ABSL_FLAG(int, max_running_jobs_per_principal, kDefaults.jobs.max_running_jobs_per_principal,
          "jobs of one principal running at once: TWED computations on this replica, validations "
          "on all replicas of --postgres_url");
ABSL_FLAG(int, max_attempts, kDefaults.jobs.max_attempts,
          "a validation whose replica was lost (its --job_lease expired) this many times ends "
          "FAILED, naming those replicas, instead of being run again");
ABSL_FLAG(std::string, postgres_url, "",
          "libpq connection URI (postgresql://user@host/db?sslmode=verify-full); set, the "
          "sessions, runs and validations of every replica on it are shared and --data_dir is "
          "not used");
ABSL_FLAG(int, postgres_pool_size, kDefaults.postgres_pool_size,
          "connections to --postgres_url at most");
ABSL_FLAG(std::string, postgres_password_file, "",
          "file whose first line is the password of --postgres_url, kept off the command line "
          "(libpq's PGPASSFILE or ~/.pgpass work too); a password in the URL wins");
ABSL_FLAG(absl::Duration, postgres_statement_timeout, kDefaults.postgres_settings.statement_timeout,
          "a database statement running longer is cancelled (the call fails "
          "DEADLINE_EXCEEDED); 0: none");
ABSL_FLAG(absl::Duration, postgres_lock_timeout, kDefaults.postgres_settings.lock_timeout,
          "a database statement waiting longer for a lock fails (the call UNAVAILABLE); 0: none");
ABSL_FLAG(absl::Duration, postgres_idle_in_transaction_timeout,
          kDefaults.postgres_settings.idle_in_transaction_timeout,
          "PostgreSQL closes a connection left this long inside a transaction; 0: none");
ABSL_FLAG(absl::Duration, postgres_keepalives_idle, kDefaults.postgres_settings.keepalives_idle,
          "TCP keepalive probes start after this long without traffic on a database connection; "
          "0: no keepalives");
ABSL_FLAG(absl::Duration, postgres_keepalives_interval,
          kDefaults.postgres_settings.keepalives_interval, "time between TCP keepalive probes");
ABSL_FLAG(int, postgres_keepalives_count, kDefaults.postgres_settings.keepalives_count,
          "unanswered TCP keepalive probes before a database connection counts as lost");
ABSL_FLAG(int, max_watch_streams, kDefaults.max_watch_streams,
          "WatchValidation calls open at once on this replica");
ABSL_FLAG(int, max_watch_streams_per_principal, kDefaults.max_watch_streams_per_principal,
          "WatchValidation calls of one principal open at once on this replica");
ABSL_FLAG(
    int, call_threads, kDefaults.call_threads,
    "threads that answer unary calls and take the streams' steps, which wait on the store, off "
    "gRPC's own threads");
ABSL_FLAG(int, max_queued_calls, kDefaults.max_queued_calls,
          "calls waiting for a call thread before the next is refused RESOURCE_EXHAUSTED");
ABSL_FLAG(absl::Duration, session_sweep_interval, kDefaults.sweep_interval,
          "how often sessions idle past their TTL are deleted (expired ones are invisible "
          "meanwhile)");
ABSL_FLAG(absl::Duration, job_lease, kDefaults.job_lease,
          "A replica renews its lease on each validation it runs about every second; one that "
          "stops (it died) loses the validation this long after, and another replica runs it "
          "again from the start.");
ABSL_FLAG(absl::Duration, validation_retention, kDefaults.validation_retention,
          "an ended validation record (report, labels, events: release evidence) is deleted this "
          "long after it ended, whatever happened to its session; inf: kept until deleted "
          "(DeleteValidation, or its session's tombstone deleted)");
ABSL_FLAG(std::string, replica_name, "",
          "this replica's name in the reports of tiled validations (their \"tiles\" say how many "
          "tiles each replica computed); empty: the host name and the port of --listen");
ABSL_FLAG(int64_t, tile_min_pairs, kDefaults.tile_min_pairs,
          "a validation whose cost matrices hold more pairs than this, and more DP cells than "
          "--tile_cells, is computed in tiles, which every replica on --postgres_url (or this "
          "server's free job slots) works on");
ABSL_FLAG(int64_t, tile_cells, kDefaults.tile_cells,
          "TWED DP cells of one tile: a replica that dies loses at most the tiles it was "
          "computing; smaller tiles share the work more evenly, larger ones cost fewer database "
          "writes");
ABSL_FLAG(absl::Duration, shutdown_grace, kDefaults.shutdown_grace,
          "on SIGTERM or SIGINT, how long calls in progress may still run");
ABSL_FLAG(std::string, log_level, "info",
          "spdlog level: trace, debug, info, warn, error, critical, off");
ABSL_FLAG(std::string, log_format, "text",
          "text: spdlog lines; json: one JSON object per line (time, level, logger, thread, "
          "message)");
ABSL_FLAG(std::string, metrics_listen, kDefaults.metrics_listen,
          "host:port of the Prometheus metrics endpoint (HTTP GET /metrics); port 0 picks a free "
          "port; empty: none");
ABSL_FLAG(std::string, http_listen, "",
          "host:port of the web view over the validation records (the records, their reports and "
          "JSON, the history page); HTTPS with --tls_cert and --tls_key; port 0 picks a free port; "
          "empty: none");
ABSL_FLAG(std::string, http_public_url, "",
          "the web view's address as browsers reach it (e.g. https://wasserwarp.example.com): "
          "every answer's Validation.link and the log line of an ended validation are this, '/' "
          "and the record's name; empty: no links");
ABSL_FLAG(int, http_max_connections, kDefaults.http.max_connections,
          "web view requests served at once (one thread each); more wait in the listen backlog");
ABSL_FLAG(absl::Duration, http_request_timeout, kDefaults.http.request_timeout,
          "the longest a web view request may take to arrive and be answered");
ABSL_FLAG(int64_t, http_max_request_bytes, kDefaults.http.max_request_bytes,
          "a web view request's head and body at most, in bytes");
ABSL_FLAG(absl::Duration, http_session_ttl, kDefaults.http.session_ttl,
          "how long a browser's sign-in to the web view lasts");
ABSL_FLAG(int, http_max_sessions, kDefaults.http.max_sessions,
          "browsers signed in to the web view at most; the oldest sign-in goes first");
ABSL_FLAG(std::string, tls_cert, "",
          "PEM certificate chain of the server; with --tls_key, the server speaks TLS only");
ABSL_FLAG(std::string, tls_key, "", "PEM private key of --tls_cert");
ABSL_FLAG(std::string, tls_client_ca, "",
          "PEM CA certificates: mutual TLS, clients without a certificate one of them signed are "
          "refused");
ABSL_FLAG(std::string, auth_tokens_file, "",
          "file of principal:token lines; calls need \"authorization: Bearer TOKEN\" and see only "
          "their principal's sessions; re-read on SIGHUP and when its content changes. Empty: no "
          "access control");
ABSL_FLAG(std::string, tls_principal_from, kDefaults.tls.principal_from,
          "with --tls_client_ca, where a call's principal comes from in its client certificate: "
          "san_uri, san_dns, cn, comma-separated in order of preference");
ABSL_FLAG(std::string, tls_principal_map, "",
          "file of `identity principal` lines mapping client certificate identities to "
          "principals; an identity not in it is refused (UNAUTHENTICATED). With "
          "--auth_tokens_file too, a mapped certificate needs no token");
ABSL_FLAG(bool, allow_unauthenticated, false,
          "listen on a non-loopback --listen (or --http_listen) without --auth_tokens_file or "
          "--tls_client_ca, every caller sharing one principal; refused without it");
ABSL_FLAG(std::string, reflection, "auto",
          "gRPC server reflection: on, off, or auto (on only when --listen is a loopback "
          "address)");
ABSL_FLAG(absl::Duration, credentials_refresh_interval, kDefaults.credentials_refresh_interval,
          "how often --auth_tokens_file and the --tls_* files are compared with what is in use "
          "and reloaded when their content changed (a bad new file keeps the old credentials)");
ABSL_FLAG(std::string, data_dir, "./wasserwarp-data",
          "directory whose sessions.db keeps sessions and committed runs across restarts (created "
          "if missing; one server per directory); empty: in memory only");

namespace {

absl::StatusOr<wasserwarp::service::ServerConfig> ConfigFromFlags() {
  wasserwarp::service::ServerConfig config;
  absl::StatusOr<wasserwarp::service::ReflectionMode> reflection =
      wasserwarp::service::ParseReflectionMode(absl::GetFlag(FLAGS_reflection));
  if (!reflection.ok()) return reflection.status();
  config.reflection = *reflection;
  config.allow_unauthenticated = absl::GetFlag(FLAGS_allow_unauthenticated);
  config.credentials_refresh_interval = absl::GetFlag(FLAGS_credentials_refresh_interval);
  config.tls.principal_from = absl::GetFlag(FLAGS_tls_principal_from);
  config.tls.principal_map_file = absl::GetFlag(FLAGS_tls_principal_map);
  config.listen = absl::GetFlag(FLAGS_listen);
  config.metrics_listen = absl::GetFlag(FLAGS_metrics_listen);
  config.max_message_bytes = absl::GetFlag(FLAGS_max_message_bytes);
  config.shutdown_grace = absl::GetFlag(FLAGS_shutdown_grace);
  config.job_lease = absl::GetFlag(FLAGS_job_lease);
  config.validation_retention = absl::GetFlag(FLAGS_validation_retention);
  config.replica_name = absl::GetFlag(FLAGS_replica_name);
  config.tile_min_pairs = absl::GetFlag(FLAGS_tile_min_pairs);
  config.tile_cells = absl::GetFlag(FLAGS_tile_cells);
  config.sweep_interval = absl::GetFlag(FLAGS_session_sweep_interval);
  config.postgres_url = absl::GetFlag(FLAGS_postgres_url);
  config.postgres_pool_size = absl::GetFlag(FLAGS_postgres_pool_size);
  config.postgres_password_file = absl::GetFlag(FLAGS_postgres_password_file);
  config.postgres_settings.statement_timeout = absl::GetFlag(FLAGS_postgres_statement_timeout);
  config.postgres_settings.lock_timeout = absl::GetFlag(FLAGS_postgres_lock_timeout);
  config.postgres_settings.idle_in_transaction_timeout =
      absl::GetFlag(FLAGS_postgres_idle_in_transaction_timeout);
  config.postgres_settings.keepalives_idle = absl::GetFlag(FLAGS_postgres_keepalives_idle);
  config.postgres_settings.keepalives_interval = absl::GetFlag(FLAGS_postgres_keepalives_interval);
  config.postgres_settings.keepalives_count = absl::GetFlag(FLAGS_postgres_keepalives_count);
  config.max_watch_streams = absl::GetFlag(FLAGS_max_watch_streams);
  config.max_watch_streams_per_principal = absl::GetFlag(FLAGS_max_watch_streams_per_principal);
  config.call_threads = absl::GetFlag(FLAGS_call_threads);
  config.max_queued_calls = absl::GetFlag(FLAGS_max_queued_calls);
  config.sessions.max_sessions = absl::GetFlag(FLAGS_max_sessions);
  config.sessions.max_runs_per_session = absl::GetFlag(FLAGS_max_runs_per_session);
  config.sessions.max_samples_per_run = absl::GetFlag(FLAGS_max_samples_per_run);
  config.sessions.max_session_bytes = absl::GetFlag(FLAGS_max_session_bytes);
  config.sessions.max_total_bytes = absl::GetFlag(FLAGS_max_total_bytes);
  config.sessions.session_idle_ttl = absl::GetFlag(FLAGS_session_idle_ttl);
  config.jobs.max_concurrent_jobs = absl::GetFlag(FLAGS_max_concurrent_jobs);
  config.jobs.max_queued_jobs = absl::GetFlag(FLAGS_max_queued_jobs);
  config.jobs.job_threads = absl::GetFlag(FLAGS_job_threads);
  config.jobs.max_job_bytes = absl::GetFlag(FLAGS_max_job_bytes);
  config.jobs.max_job_cells = absl::GetFlag(FLAGS_max_job_cells);
  config.sessions.max_session_ttl = absl::GetFlag(FLAGS_max_session_ttl);
  config.sessions.max_sessions_per_principal = absl::GetFlag(FLAGS_max_sessions_per_principal);
  config.sessions.max_bytes_per_principal = absl::GetFlag(FLAGS_max_bytes_per_principal);
  config.sessions.max_label_bytes = absl::GetFlag(FLAGS_max_label_bytes);
  config.jobs.max_queued_jobs_per_principal = absl::GetFlag(FLAGS_max_queued_jobs_per_principal);
  config.jobs.max_running_jobs_per_principal = absl::GetFlag(FLAGS_max_running_jobs_per_principal);
  config.jobs.max_attempts = absl::GetFlag(FLAGS_max_attempts);
  config.http.listen = absl::GetFlag(FLAGS_http_listen);
  config.http.public_url = absl::GetFlag(FLAGS_http_public_url);
  config.http.max_connections = absl::GetFlag(FLAGS_http_max_connections);
  config.http.request_timeout = absl::GetFlag(FLAGS_http_request_timeout);
  config.http.max_request_bytes = absl::GetFlag(FLAGS_http_max_request_bytes);
  config.http.session_ttl = absl::GetFlag(FLAGS_http_session_ttl);
  config.http.max_sessions = absl::GetFlag(FLAGS_http_max_sessions);
  config.tls.cert_file = absl::GetFlag(FLAGS_tls_cert);
  config.tls.key_file = absl::GetFlag(FLAGS_tls_key);
  config.tls.client_ca_file = absl::GetFlag(FLAGS_tls_client_ca);
  config.auth_tokens_file = absl::GetFlag(FLAGS_auth_tokens_file);
  config.data_dir = absl::GetFlag(FLAGS_data_dir);
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
  const absl::StatusOr<wasserwarp::service::LogFormat> log_format =
      wasserwarp::service::ParseLogFormat(absl::GetFlag(FLAGS_log_format));
  const absl::StatusOr<spdlog::level::level_enum> log_level =
      wasserwarp::service::ParseLogLevel(absl::GetFlag(FLAGS_log_level));
  for (const absl::Status& status : {log_format.status(), log_level.status()}) {
    if (!status.ok()) {
      std::fprintf(stderr, "wasserwarp-server: %s\n", std::string(status.message()).c_str());
      return 2;
    }
  }
  // stdout carries only the address line that scripts wait for.
  wasserwarp::service::InstallStderrLogger("wasserwarp-server", *log_format, *log_level);
  wasserwarp::service::KeepNewFilesPrivate();

  // Blocked before any thread starts, so every thread inherits the mask and
  // the signals wait for sigwait below instead of interrupting a handler.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGHUP);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  const absl::StatusOr<wasserwarp::service::ServerConfig> flags = ConfigFromFlags();
  if (!flags.ok()) {
    std::fprintf(stderr, "wasserwarp-server: %s\n", std::string(flags.status().message()).c_str());
    return 2;
  }
  const wasserwarp::service::ServerConfig& config = *flags;
  // Anyone on the host can read a process's command line (/proc/PID/cmdline).
  if (wasserwarp::service::postgres::RedactedUrl(config.postgres_url) != config.postgres_url) {
    spdlog::warn(
        "--postgres_url holds a password, which every user of this host can read from the "
        "command line; use --postgres_password_file or libpq's PGPASSFILE instead");
  }
  spdlog::info("configuration: {}", wasserwarp::service::DescribeConfig(config));
  auto server = wasserwarp::service::ValidationServer::Start(config);
  if (!server.ok()) {
    std::fprintf(stderr, "wasserwarp-server: %s\n", std::string(server.status().message()).c_str());
    return 2;
  }
  std::printf("listening on %s\n", (*server)->address().c_str());
  std::fflush(stdout);
  spdlog::info("listening on {}", (*server)->address());
  if (!config.metrics_listen.empty()) {
    spdlog::info("metrics on http://{}/metrics", (*server)->metrics_address());
  }
  if (!config.http.listen.empty()) {
    spdlog::info("web view on {}://{}/", config.tls.cert_file.empty() ? "http" : "https",
                 (*server)->http_address());
  }

  int signal_number = 0;
  // SIGHUP reloads the tokens here, on the main thread, so no code runs in a
  // signal handler; SIGTERM and SIGINT end the loop.
  while (sigwait(&signals, &signal_number) == 0 && signal_number == SIGHUP) {
    if (config.auth_tokens_file.empty()) {
      spdlog::info("received SIGHUP: no --auth_tokens_file to reload");
      continue;
    }
    spdlog::info("received SIGHUP: reloading {}", config.auth_tokens_file);
    // Logged either way; a bad file keeps the tokens in use.
    (*server)->ReloadAuthTokens().IgnoreError();
  }
  spdlog::info("received signal {}", signal_number);
  (*server)->Shutdown(config.shutdown_grace);
  return 0;
}
