// What a wasserwarp-server instance is allowed to hold and do. main.cc fills
// it from flags; tests fill it directly.

#ifndef WASSERWARP_SERVER_OPS_SERVER_CONFIG_H_
#define WASSERWARP_SERVER_OPS_SERVER_CONFIG_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "storage/postgres.h"
#include "wasserwarp/validation_size.h"

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
  // The longest TTL a creator may set: a month, so that a forgotten session does not hold its
  // slot and bytes for years (any value keeps every expire_time a valid Timestamp).
  absl::Duration max_session_ttl = absl::Hours(24 * 30);
  // Per principal (the caller's, call_principal.h), so that one cannot take what the others
  // need: a tenth of --max_sessions, and half of the shipped manifests' --max_total_bytes.
  int max_sessions_per_principal = 100;
  // Run data and labels of the principal's sessions, committed or in flight.
  int64_t max_bytes_per_principal = int64_t{1} << 30;
  // A session's or a validation's labels, keys and values together.
  int64_t max_label_bytes = 64 * 1024;
};

struct JobLimits {
  int max_concurrent_jobs = 2;
  // Jobs waiting for a slot; one more is RESOURCE_EXHAUSTED.
  int max_queued_jobs = 64;
  // oneTBB threads of one job; 0: every core, shared among running jobs.
  int job_threads = 0;
  // Everything one validation holds at its peak (validation_size.h). The shipped manifests
  // give a replica 4 GiB for max_concurrent_jobs = 2 jobs beside the sessions' run data.
  int64_t max_job_bytes = int64_t{1} << 30;
  // TWED cells of one job's cost matrices, and cost entries its verdict's transport solves
  // read: 1e13 cells are about an hour of one core.
  int64_t max_job_cells = 10'000'000'000'000;
  // Per principal: jobs waiting (validations queued in the store, TWED jobs in the queue), and
  // jobs running (on this replica's queue; validations across the replicas of a database).
  // Two of the shipped manifests' replicas' slots, so that a lone principal still uses more
  // than one replica while the others' work waits for at most one of its jobs each.
  int max_queued_jobs_per_principal = 16;
  int max_running_jobs_per_principal = 4;
  // A validation whose replica was lost (its lease expired) this many times is FAILED, not
  // claimed again: it is likely what kills them.
  int max_attempts = 3;
};

// Transport security (--tls_cert, --tls_key, --tls_client_ca): paths of PEM
// files. Without a certificate the server speaks plaintext.
struct TlsConfig {
  std::string cert_file;  // the server's certificate chain
  std::string key_file;   // its private key
  // Set: mutual TLS, every client must present a certificate this CA signed.
  std::string client_ca_file;
  // --tls_principal_from: with mutual TLS, where a client certificate's principal comes from,
  // in order of preference (certificate_principal.h).
  std::string principal_from = "san_uri,san_dns,cn";
  // --tls_principal_map: `identity principal` lines; set, an identity not in it is refused.
  std::string principal_map_file;
};

// --reflection: whether server reflection is served; auto: only on a loopback --listen.
enum class ReflectionMode { kAuto, kOn, kOff };

// HTTP/2 keepalive. Benches ping every 10 s to keep idle connections through
// NAT and firewalls; the server must not count those pings as abuse.
struct KeepalivePolicy {
  // Client pings closer together than this count as bad pings; a connection
  // that sends more than two closes with GOAWAY (too_many_pings).
  absl::Duration min_client_ping_interval = absl::Seconds(5);
  // The server pings an idle client this often and drops it when no answer
  // comes within the timeout.
  absl::Duration server_ping_interval = absl::Seconds(60);
  absl::Duration server_ping_timeout = absl::Seconds(20);
};

// The web view over the records (--http_*, server/http/): off without `listen`. Its bounds
// keep a browser, or anything that speaks HTTP, from holding more of the server than a few
// threads and small buffers.
struct HttpConfig {
  // --http_listen host:port; port 0 picks a free port; empty: no web view.
  std::string listen;
  // --http_public_url: where browsers reach it, normalised without a trailing slash
  // (public_url.h); records' links are this and their name. Empty: no links.
  std::string public_url;
  // --http_max_connections: requests served at once (civetweb's threads); more wait in the
  // listen backlog.
  int max_connections = 16;
  // --http_request_timeout: the longest a request may take to arrive and be answered; a slow
  // client is cut off after it.
  absl::Duration request_timeout = absl::Seconds(10);
  // --http_max_request_bytes: a request's head and body at most; the view takes GETs and
  // small forms only.
  int64_t max_request_bytes = 16 * 1024;
  // --http_session_ttl: how long a browser's sign-in lasts.
  absl::Duration session_ttl = absl::Hours(12);
  // --http_max_sessions: signed-in browsers at most; the oldest sign-in goes first.
  int max_sessions = 10000;
};

struct ServerConfig {
  // host:port; port 0 picks a free port.
  std::string listen = "127.0.0.1:50051";
  // host:port of the Prometheus /metrics endpoint (HTTP); port 0 picks a free
  // port; empty: no endpoint.
  std::string metrics_listen;
  KeepalivePolicy keepalive;
  // gRPC's 4 MiB default would cap a chunk at half a million doubles.
  int64_t max_message_bytes = int64_t{64} << 20;
  absl::Duration shutdown_grace = absl::Seconds(10);
  // How often idle sessions are swept; expired ones are invisible anyway.
  absl::Duration sweep_interval = absl::Seconds(30);
  SessionLimits sessions;
  JobLimits jobs;
  TlsConfig tls;
  HttpConfig http;
  // principal:token lines (auth_tokens.h). Empty: no access control, every
  // caller is the anonymous principal "".
  std::string auth_tokens_file;
  // --allow_unauthenticated: listen on a non-loopback address with neither tokens nor mutual
  // TLS, every caller one principal (exposure_rules.h); refused without it.
  bool allow_unauthenticated = false;
  ReflectionMode reflection = ReflectionMode::kAuto;
  // --credentials_refresh_interval: how often the token file and the TLS files are compared
  // with what is in use, and reloaded when they changed.
  absl::Duration credentials_refresh_interval = absl::Seconds(10);
  // --job_lease: a replica that stops renewing its lease on a running validation (it died)
  // loses it this long after, and another replica runs the validation again.
  absl::Duration job_lease = absl::Seconds(30);
  // --validation_retention: an ended validation record goes this long after it ended, whatever
  // its session; infinite: kept until it is deleted.
  absl::Duration validation_retention = absl::InfiniteDuration();
  // --replica_name: what the reports of tiled validations say computed their tiles; empty: the
  // host name and the port the server listens on.
  std::string replica_name;
  // --tile_min_pairs: a validation whose cost matrices hold more pairs (and more DP cells than
  // one tile) is computed in tiles that every replica on the database works on; --tile_cells:
  // the DP cells of one tile.
  int64_t tile_min_pairs = 64;
  int64_t tile_cells = int64_t{1} << 30;
  // --postgres_url: a libpq connection URI. Set, every replica on that database shares its
  // sessions, runs and validations (data_dir is not used); empty: data_dir as below.
  std::string postgres_url;
  // --postgres_pool_size: connections to it at most.
  int postgres_pool_size = 8;
  // --postgres_statement_timeout, --postgres_lock_timeout,
  // --postgres_idle_in_transaction_timeout, --postgres_keepalives_*: what every connection is
  // opened with; the password is read from --postgres_password_file at start.
  postgres::ConnectionSettings postgres_settings;
  std::string postgres_password_file;
  // --max_watch_streams, --max_watch_streams_per_principal: WatchValidation calls open at once
  // on this replica, in all and of one principal.
  int max_watch_streams = 1000;
  int max_watch_streams_per_principal = 100;
  // --call_threads: the threads unary calls and the streams' steps run on, off gRPC's, since
  // they wait on the store;
  // --max_queued_calls: calls waiting for one before the next is RESOURCE_EXHAUSTED.
  int call_threads = 16;
  int max_queued_calls = 1000;
  // The directory whose database keeps sessions and runs across restarts
  // (session_database.h). Empty: in memory only, the default of in-process
  // servers (tests, benchmarks); the server binary's --data_dir defaults to
  // ./wasserwarp-data.
  std::string data_dir;
};

// InvalidArgument naming the flag of the first out-of-range value.
absl::Status ValidateConfig(const ServerConfig& config);

// The limits every validation and TWED job is checked against before it takes a slot; the
// samples a run may have after resampling are those it may have when uploaded.
ValidationLimits ValidationLimitsFor(const SessionLimits& sessions, const JobLimits& jobs);

// Every setting as flag=value on one line, for the log at startup: limits,
// keepalive, TLS mode and file paths (never secrets).
std::string DescribeConfig(const ServerConfig& config);

}  // namespace wasserwarp::service

#endif  // WASSERWARP_SERVER_OPS_SERVER_CONFIG_H_
