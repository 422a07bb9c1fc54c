#include "ops/server_config.h"

#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ops/certificate_principal.h"
#include "ops/exposure_rules.h"
#include "ops/public_url.h"
#include "storage/postgres.h"
#include "storage/postgres_secrets.h"

namespace wasserwarp::service {
namespace {

absl::Status AtLeast(const char* flag, int64_t value, int64_t minimum) {
  if (value >= minimum) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat("--", flag, " must be at least ", minimum, ", got ", value));
}

// A TTL past this would put expire_time near year 10000, the end of Timestamp's range, within
// the service's lifetime.
constexpr absl::Duration kLongestSessionTtl = absl::Hours(24 * 36525);

std::string TlsMode(const TlsConfig& tls) {
  if (tls.cert_file.empty()) return "plaintext";
  return tls.client_ca_file.empty() ? "tls" : "mutual_tls";
}

// The web view's bounds are checked even when it is off, so that turning it on finds no
// surprise.
absl::Status ValidateHttpConfig(const HttpConfig& http) {
  for (const absl::Status& status : {
           AtLeast("http_max_connections", http.max_connections, 1),
           AtLeast("http_max_request_bytes", http.max_request_bytes, 1024),
           AtLeast("http_max_sessions", http.max_sessions, 1),
       }) {
    if (!status.ok()) return status;
  }
  if (http.max_connections > 1024) {
    return absl::InvalidArgumentError(
        absl::StrCat("--http_max_connections must be at most 1024 (one thread each), got ",
                     http.max_connections));
  }
  if (http.max_request_bytes > (int64_t{1} << 20)) {
    return absl::InvalidArgumentError(
        absl::StrCat("--http_max_request_bytes must be at most 1048576 (the view takes GETs and "
                     "small forms), got ",
                     http.max_request_bytes));
  }
  for (const auto& [flag, duration] : {std::pair{"http_request_timeout", http.request_timeout},
                                       std::pair{"http_session_ttl", http.session_ttl}}) {
    if (duration <= absl::ZeroDuration() || duration == absl::InfiniteDuration()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--", flag, " must be positive and finite, got ", absl::FormatDuration(duration)));
    }
  }
  if (!http.public_url.empty()) {
    if (absl::StatusOr<std::string> url = NormalizePublicUrl(http.public_url); !url.ok()) {
      return url.status();
    }
  }
  return absl::OkStatus();
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
           AtLeast("max_job_bytes", j.max_job_bytes, 1),
           AtLeast("max_job_cells", j.max_job_cells, 1),
           AtLeast("max_message_bytes", config.max_message_bytes, 1024),
           AtLeast("max_sessions_per_principal", s.max_sessions_per_principal, 1),
           AtLeast("max_bytes_per_principal", s.max_bytes_per_principal, 1),
           AtLeast("max_label_bytes", s.max_label_bytes, 0),
           AtLeast("max_queued_jobs_per_principal", j.max_queued_jobs_per_principal, 0),
           AtLeast("max_running_jobs_per_principal", j.max_running_jobs_per_principal, 1),
           AtLeast("max_attempts", j.max_attempts, 1),
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
  if (s.max_session_ttl <= absl::ZeroDuration() || s.max_session_ttl > kLongestSessionTtl) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--max_session_ttl must be positive and at most ", absl::FormatDuration(kLongestSessionTtl),
        ", got ", absl::FormatDuration(s.max_session_ttl)));
  }
  if (s.session_idle_ttl > s.max_session_ttl) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--session_idle_ttl ", absl::FormatDuration(s.session_idle_ttl),
        " is longer than --max_session_ttl ", absl::FormatDuration(s.max_session_ttl)));
  }
  if (config.shutdown_grace < absl::ZeroDuration()) {
    return absl::InvalidArgumentError(absl::StrCat("--shutdown_grace must not be negative, got ",
                                                   absl::FormatDuration(config.shutdown_grace)));
  }
  const TlsConfig& tls = config.tls;
  if (tls.cert_file.empty() != tls.key_file.empty()) {
    return absl::InvalidArgumentError(tls.cert_file.empty() ? "--tls_key needs --tls_cert"
                                                            : "--tls_cert needs --tls_key");
  }
  if (!tls.client_ca_file.empty() && tls.cert_file.empty()) {
    return absl::InvalidArgumentError("--tls_client_ca needs --tls_cert and --tls_key");
  }
  if (absl::Status status = ParsePrincipalSources(tls.principal_from).status(); !status.ok()) {
    return status;
  }
  if (!tls.principal_map_file.empty() && tls.client_ca_file.empty()) {
    return absl::InvalidArgumentError(
        "--tls_principal_map needs --tls_client_ca: principals come from client certificates");
  }
  if (config.credentials_refresh_interval < absl::Seconds(1)) {
    return absl::InvalidArgumentError(
        absl::StrCat("--credentials_refresh_interval must be at least 1s, got ",
                     absl::FormatDuration(config.credentials_refresh_interval)));
  }
  if (config.sweep_interval <= absl::ZeroDuration()) {
    return absl::InvalidArgumentError("--session_sweep_interval must be positive");
  }
  if (config.postgres_pool_size < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("--postgres_pool_size must be at least 1, got ", config.postgres_pool_size));
  }
  const postgres::ConnectionSettings& pg = config.postgres_settings;
  for (const auto& [flag, value] :
       {std::pair{"--postgres_statement_timeout", pg.statement_timeout},
        std::pair{"--postgres_lock_timeout", pg.lock_timeout},
        std::pair{"--postgres_idle_in_transaction_timeout", pg.idle_in_transaction_timeout},
        std::pair{"--postgres_keepalives_idle", pg.keepalives_idle}}) {
    if (value < absl::ZeroDuration()) {
      return absl::InvalidArgumentError(
          absl::StrCat(flag, " must not be negative (0: none), got ", absl::FormatDuration(value)));
    }
  }
  if (pg.keepalives_interval < absl::Seconds(1) || pg.keepalives_count < 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--postgres_keepalives_interval must be at least 1s and --postgres_keepalives_count at "
        "least 1, got ",
        absl::FormatDuration(pg.keepalives_interval), " and ", pg.keepalives_count));
  }
  if (config.max_watch_streams < 1 || config.max_watch_streams_per_principal < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("--max_watch_streams and --max_watch_streams_per_principal must be at least "
                     "1, got ",
                     config.max_watch_streams, " and ", config.max_watch_streams_per_principal));
  }
  if (config.call_threads < 1 || config.call_threads > 1024 || config.max_queued_calls < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("--call_threads must be 1 to 1024 and --max_queued_calls at least 1, got ",
                     config.call_threads, " and ", config.max_queued_calls));
  }
  if (config.tile_min_pairs < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("--tile_min_pairs must be at least 0, got ", config.tile_min_pairs));
  }
  if (config.tile_cells < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("--tile_cells must be at least 1, got ", config.tile_cells));
  }
  if (config.validation_retention <= absl::ZeroDuration()) {
    return absl::InvalidArgumentError(
        absl::StrCat("--validation_retention must be positive (or inf: kept until deleted), got ",
                     absl::FormatDuration(config.validation_retention)));
  }
  if (absl::Status status = ValidateHttpConfig(config.http); !status.ok()) return status;
  if (absl::Status status = CheckExposure(config); !status.ok()) return status;
  if (config.job_lease < absl::Seconds(1)) {
    return absl::InvalidArgumentError(
        absl::StrCat("--job_lease must be at least 1s (renewed about every second), got ",
                     absl::FormatDuration(config.job_lease)));
  }
  return absl::OkStatus();
}

ValidationLimits ValidationLimitsFor(const SessionLimits& sessions, const JobLimits& jobs) {
  ValidationLimits limits;
  limits.samples_per_run = {static_cast<uint64_t>(sessions.max_samples_per_run),
                            "--max_samples_per_run"};
  limits.dp_cells = {static_cast<uint64_t>(jobs.max_job_cells), "--max_job_cells"};
  limits.bytes = {static_cast<uint64_t>(jobs.max_job_bytes), "--max_job_bytes"};
  limits.threads = jobs.job_threads;
  // The report as a proto and as the bytes gRPC serialises it into.
  limits.report_copies = 2;
  return limits;
}

std::string DescribeConfig(const ServerConfig& config) {
  const SessionLimits& s = config.sessions;
  const JobLimits& j = config.jobs;
  const KeepalivePolicy& k = config.keepalive;
  const auto text = [](const std::string& value) { return value.empty() ? "-" : value; };
  std::vector<std::string> settings = {
      absl::StrCat("listen=", config.listen),
      absl::StrCat("tls=", TlsMode(config.tls)),
      absl::StrCat("tls_cert=", text(config.tls.cert_file)),
      absl::StrCat("tls_key=", text(config.tls.key_file)),
      absl::StrCat("tls_client_ca=", text(config.tls.client_ca_file)),
      absl::StrCat("auth_tokens_file=", text(config.auth_tokens_file)),
      absl::StrCat("tls_principal_from=", config.tls.principal_from),
      absl::StrCat("tls_principal_map=", text(config.tls.principal_map_file)),
      absl::StrCat("allow_unauthenticated=", config.allow_unauthenticated ? "true" : "false"),
      absl::StrCat("reflection=", ReflectionModeName(config.reflection)),
      absl::StrCat("credentials_refresh_interval=",
                   absl::FormatDuration(config.credentials_refresh_interval)),
      absl::StrCat("metrics_listen=", text(config.metrics_listen)),
      absl::StrCat("http_listen=", text(config.http.listen)),
      absl::StrCat("http_public_url=", text(config.http.public_url)),
      absl::StrCat("http_max_connections=", config.http.max_connections),
      absl::StrCat("http_request_timeout=", absl::FormatDuration(config.http.request_timeout)),
      absl::StrCat("http_max_request_bytes=", config.http.max_request_bytes),
      absl::StrCat("http_session_ttl=", absl::FormatDuration(config.http.session_ttl)),
      absl::StrCat("http_max_sessions=", config.http.max_sessions),
      absl::StrCat("data_dir=", text(config.data_dir)),
      absl::StrCat("postgres_url=", text(postgres::RedactedUrl(config.postgres_url))),
      absl::StrCat("postgres_pool_size=", config.postgres_pool_size),
      absl::StrCat("postgres_password_file=", text(config.postgres_password_file)),
      absl::StrCat("postgres_statement_timeout=",
                   absl::FormatDuration(config.postgres_settings.statement_timeout)),
      absl::StrCat("postgres_lock_timeout=",
                   absl::FormatDuration(config.postgres_settings.lock_timeout)),
      absl::StrCat("postgres_idle_in_transaction_timeout=",
                   absl::FormatDuration(config.postgres_settings.idle_in_transaction_timeout)),
      absl::StrCat("postgres_keepalives_idle=",
                   absl::FormatDuration(config.postgres_settings.keepalives_idle)),
      absl::StrCat("postgres_keepalives_interval=",
                   absl::FormatDuration(config.postgres_settings.keepalives_interval)),
      absl::StrCat("postgres_keepalives_count=", config.postgres_settings.keepalives_count),
      absl::StrCat("max_watch_streams=", config.max_watch_streams),
      absl::StrCat("max_watch_streams_per_principal=", config.max_watch_streams_per_principal),
      absl::StrCat("call_threads=", config.call_threads),
      absl::StrCat("max_queued_calls=", config.max_queued_calls),
      absl::StrCat("max_sessions=", s.max_sessions),
      absl::StrCat("max_runs_per_session=", s.max_runs_per_session),
      absl::StrCat("max_samples_per_run=", s.max_samples_per_run),
      absl::StrCat("max_session_bytes=", s.max_session_bytes),
      absl::StrCat("max_total_bytes=", s.max_total_bytes),
      absl::StrCat("max_message_bytes=", config.max_message_bytes),
      absl::StrCat("session_idle_ttl=", absl::FormatDuration(s.session_idle_ttl)),
      absl::StrCat("max_concurrent_jobs=", j.max_concurrent_jobs),
      absl::StrCat("max_queued_jobs=", j.max_queued_jobs),
      absl::StrCat("job_threads=", j.job_threads),
      absl::StrCat("max_job_bytes=", j.max_job_bytes),
      absl::StrCat("max_job_cells=", j.max_job_cells),
      absl::StrCat("max_session_ttl=", absl::FormatDuration(s.max_session_ttl)),
      absl::StrCat("max_sessions_per_principal=", s.max_sessions_per_principal),
      absl::StrCat("max_bytes_per_principal=", s.max_bytes_per_principal),
      absl::StrCat("max_label_bytes=", s.max_label_bytes),
      absl::StrCat("max_queued_jobs_per_principal=", j.max_queued_jobs_per_principal),
      absl::StrCat("max_running_jobs_per_principal=", j.max_running_jobs_per_principal),
      absl::StrCat("max_attempts=", j.max_attempts),
      absl::StrCat("shutdown_grace=", absl::FormatDuration(config.shutdown_grace)),
      absl::StrCat("job_lease=", absl::FormatDuration(config.job_lease)),
      absl::StrCat("validation_retention=", absl::FormatDuration(config.validation_retention)),
      absl::StrCat("replica_name=", text(config.replica_name)),
      absl::StrCat("tile_min_pairs=", config.tile_min_pairs),
      absl::StrCat("tile_cells=", config.tile_cells),
      absl::StrCat("session_sweep_interval=", absl::FormatDuration(config.sweep_interval)),
      absl::StrCat("keepalive_min_client_ping_interval=",
                   absl::FormatDuration(k.min_client_ping_interval)),
      absl::StrCat("keepalive_server_ping_interval=", absl::FormatDuration(k.server_ping_interval)),
      absl::StrCat("keepalive_server_ping_timeout=", absl::FormatDuration(k.server_ping_timeout)),
  };
  return absl::StrJoin(settings, " ");
}

}  // namespace wasserwarp::service
