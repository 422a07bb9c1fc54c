#include "server.h"

#include <grpc/grpc.h>
#include <grpcpp/ext/proto_server_reflection_plugin.h>
#include <grpcpp/health_check_service_interface.h>
#include <grpcpp/security/server_credentials.h>
#include <grpcpp/server_builder.h>
#include <unistd.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "absl/random/random.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "ops/exposure_rules.h"
#include "ops/health_descriptors.h"
#include "ops/heap_trim.h"
#include "ops/metrics_interceptor.h"
#include "ops/public_url.h"
#include "ops/reflection_service.h"
#include "ops/server_credentials.h"
#include "ops/undecodable_request.h"
#include "sessions/memory_session_backend.h"
#include "sessions/postgres_session_backend.h"
#include "sessions/sqlite_session_backend.h"
#include "spdlog/spdlog.h"
#include "storage/postgres_listener.h"
#include "storage/postgres_schema.h"
#include "storage/postgres_secrets.h"
#include "validations/measured_validation_store.h"
#include "validations/postgres_validation_store.h"
#include "validations/sqlite_validation_store.h"

namespace wasserwarp::service {
namespace {

constexpr char kServiceName[] = "wasserwarp.v1.ValidationService";

// How often freed heap memory goes back to the system (heap_trim.h).
constexpr absl::Duration kHeapTrimInterval = absl::Seconds(5);

// Pings closer together than KeepalivePolicy::min_client_ping_interval that a connection may
// send before the server closes it with GOAWAY (too_many_pings); gRPC's default.
constexpr int kMaxPingStrikes = 2;

// The host part of host:port, brackets of an IPv6 literal included.
std::string HostOf(const std::string& listen) {
  const size_t colon = listen.rfind(':');
  return colon == std::string::npos ? listen : listen.substr(0, colon);
}

int Milliseconds(absl::Duration duration) {
  return static_cast<int>(absl::ToInt64Milliseconds(duration));
}

// The metrics see every job, then so does the caller's observer.
JobQueue::Observer ObserveJobs(ServiceMetrics* metrics, JobQueue::Observer observer) {
  if (metrics == nullptr) return observer;
  return [metrics, observer = std::move(observer)](const JobStats& stats) {
    metrics->JobEnded(stats);
    if (observer) observer(stats);
  };
}

// How long a starting server waits for PostgreSQL before it gives up: a database that starts
// beside it (docker compose, a Kubernetes pod) gets this long.
constexpr absl::Duration kPostgresStartWait = absl::Seconds(30);

// How often the database is checked for the health service while no notification comes.
constexpr absl::Duration kDatabaseCheckInterval = absl::Seconds(2);

// How the service's calls use the database: a call that cannot open a connection within 1 s
// (the database is down, or restarting) is UNAVAILABLE soon rather than held, so that its
// client retries with its own backoff; a second attempt covers a pooled connection that broke
// since its last use. A call that finds every connection lent waits its turn for up to 10 s:
// the database answers, the call pool's threads (more than the connections) and its bounded
// queue already limit how many wait, and each statement is bounded by
// --postgres_statement_timeout.
postgres::TransactionOptions PostgresCallOptions() {
  postgres::TransactionOptions options;
  options.acquire_wait = absl::Seconds(1);
  options.busy_wait = absl::Seconds(10);
  options.max_attempts = 2;
  return options;
}

// A pool on config.postgres_url with the schema up to date; FailedPrecondition naming the
// database when it is another application's or of a newer schema.
absl::StatusOr<std::unique_ptr<postgres::Pool>> OpenPostgres(const ServerConfig& config) {
  postgres::ConnectionSettings settings = config.postgres_settings;
  if (!config.postgres_password_file.empty()) {
    absl::StatusOr<std::string> password =
        postgres::ReadPasswordFile(config.postgres_password_file);
    if (!password.ok()) return password.status();
    settings.password = *std::move(password);
  }
  auto pool = std::make_unique<postgres::Pool>(config.postgres_url, config.postgres_pool_size,
                                               std::move(settings));
  absl::StatusOr<postgres::PooledConnection> connection = pool->Acquire(kPostgresStartWait);
  if (!connection.ok()) return connection.status();
  // A migration may rewrite a large table, or wait for another replica's: neither timeout
  // applies to it, and its connection is closed after rather than lent without them.
  if (absl::Status status = (*connection)
                                ->Exec("SELECT set_config('statement_timeout', '0', false), "
                                       "set_config('lock_timeout', '0', false)",
                                       "preparing to migrate")
                                .status();
      !status.ok()) {
    return status;
  }
  const absl::Status migrated = postgres::Migrate(**connection);
  connection->Discard();
  if (!migrated.ok()) return migrated;
  spdlog::info("sessions, runs and validations are shared in PostgreSQL {}", pool->redacted_url());
  return pool;
}

// Where the sessions are kept: PostgreSQL (`pool`), else SQLite (`database`), else nowhere.
std::unique_ptr<SessionBackend> SessionBackendFor(const SessionLimits& limits,
                                                  SessionDatabase* database, postgres::Pool* pool) {
  if (pool != nullptr) {
    return std::make_unique<PostgresSessionBackend>(*pool, limits, PostgresCallOptions());
  }
  if (database != nullptr) return std::make_unique<SqliteSessionBackend>(*database);
  return std::make_unique<MemorySessionBackend>();
}

// Unique among replicas, and among the lifetimes of one: host, process and a random part.
std::string WorkerName() {
  char host[256] = {};
  gethostname(host, sizeof(host) - 1);
  absl::BitGen gen;
  return absl::StrFormat("%s/%d/%08x", host, getpid(), absl::Uniform<uint32_t>(gen));
}

// --replica_name, or the host name and the port bound.
std::string ReplicaName(const ServerConfig& config, int port) {
  if (!config.replica_name.empty()) return config.replica_name;
  char host[256] = {};
  gethostname(host, sizeof(host) - 1);
  return absl::StrCat(host, ":", port);
}

}  // namespace

absl::StatusOr<std::unique_ptr<ValidationServer>> ValidationServer::Start(
    const ServerConfig& given, JobQueue::Observer job_observer) {
  if (absl::Status status = ValidateConfig(given); !status.ok()) return status;
  // Links are the public URL and a name, so the URL is kept without its trailing slash.
  ServerConfig config = given;
  if (!config.http.public_url.empty()) {
    absl::StatusOr<std::string> url = NormalizePublicUrl(config.http.public_url);
    if (!url.ok()) return url.status();
    config.http.public_url = *std::move(url);
  }
  std::unique_ptr<TlsFiles> tls_files;
  if (!config.tls.cert_file.empty()) {
    absl::StatusOr<std::unique_ptr<TlsFiles>> opened = TlsFiles::Open(config.tls);
    if (!opened.ok()) return opened.status();
    tls_files = *std::move(opened);
  }
  const std::shared_ptr<grpc::ServerCredentials> credentials =
      ServerCredentialsFor(tls_files.get(), config.credentials_refresh_interval);
  std::unique_ptr<AuthTokens> tokens;
  if (!config.auth_tokens_file.empty()) {
    absl::StatusOr<std::unique_ptr<AuthTokens>> loaded = AuthTokens::Load(config.auth_tokens_file);
    if (!loaded.ok()) return loaded.status();
    tokens = *std::move(loaded);
    if (std::optional<std::string> warning = TokenFilePermissionWarning(config.auth_tokens_file)) {
      spdlog::warn("{}", *warning);
    }
  }
  std::unique_ptr<CertificatePrincipals> certificates;
  if (!config.tls.client_ca_file.empty()) {
    absl::StatusOr<std::unique_ptr<CertificatePrincipals>> made =
        CertificatePrincipals::Make(config.tls);
    if (!made.ok()) return made.status();
    certificates = *std::move(made);
  }
  if (ServesUnauthenticatedBeyondLoopback(config))
    spdlog::warn("{}", UnauthenticatedWarning(config));
  std::unique_ptr<SessionDatabase> database;
  std::unique_ptr<postgres::Pool> pool;
  if (!config.postgres_url.empty()) {
    absl::StatusOr<std::unique_ptr<postgres::Pool>> opened = OpenPostgres(config);
    if (!opened.ok()) return opened.status();
    pool = *std::move(opened);
  } else if (!config.data_dir.empty()) {
    absl::StatusOr<std::unique_ptr<SessionDatabase>> opened =
        SessionDatabase::Open(config.data_dir);
    if (!opened.ok()) return opened.status();
    database = *std::move(opened);
  }
  std::unique_ptr<ValidationServer> server(new ValidationServer(
      config, std::move(job_observer), std::move(tokens), std::move(database), std::move(pool)));
  server->certificate_principals_ = std::move(certificates);
  server->tls_files_ = std::move(tls_files);
  server->authenticator_ = std::make_unique<CallAuthenticator>(
      server->auth_tokens_.get(), server->certificate_principals_.get());
  if (server->pool_ != nullptr) {
    server->validations_ =
        std::make_unique<PostgresValidationStore>(*server->pool_, PostgresCallOptions());
  } else {
    // In --data_dir, whose lock the session database holds; in memory without one.
    absl::StatusOr<std::unique_ptr<SqliteValidationStore>> validations =
        SqliteValidationStore::Open(config.data_dir);
    if (!validations.ok()) return validations.status();
    server->validations_ = *std::move(validations);
  }
  if (server->metrics_ != nullptr) {
    server->validations_ = std::make_unique<MeasuredValidationStore>(
        std::move(server->validations_), *server->metrics_);
  }
  if (absl::Status status = server->RestoreSessions(); !status.ok()) return status;
  server->worker_ = std::make_unique<ValidationWorker>(
      WorkerConfig{
          .name = WorkerName(),
          .lease = config.job_lease,
          .slots = config.jobs.max_concurrent_jobs,
          .tile_min_pairs = static_cast<uint64_t>(config.tile_min_pairs),
          .tile_cells = static_cast<uint64_t>(config.tile_cells),
          .max_prepared = config.jobs.max_queued_jobs + config.jobs.max_concurrent_jobs,
          .claim_limits = {.max_running_per_owner = config.jobs.max_running_jobs_per_principal},
          .max_attempts = config.jobs.max_attempts,
          .metrics = server->metrics_.get(),
          .public_url = config.http.public_url},
      *server->validations_, *server->store_, *server->jobs_, server->validation_limits_);
  server->resources_ = std::make_unique<ValidationResources>(
      *server->store_, *server->validations_, *server->worker_, server->config_.jobs,
      server->validation_limits_, config.validation_retention, config.http.public_url);
  server->service_ = std::make_unique<ValidationService>(
      config.sessions, config.jobs, *server->store_, *server->jobs_, *server->resources_,
      server->authenticator_.get(), config.max_watch_streams,
      config.max_watch_streams_per_principal, config.call_threads, config.max_queued_calls);
  if (server->metrics_ != nullptr) {
    absl::StatusOr<std::unique_ptr<MetricsEndpoint>> endpoint =
        MetricsEndpoint::Start(config.metrics_listen, *server->metrics_, server->config_,
                               *server->store_, *server->jobs_, *server->validations_);
    if (!endpoint.ok()) return endpoint.status();
    server->metrics_endpoint_ = *std::move(endpoint);
  }

  if (!config.http.listen.empty()) {
    absl::StatusOr<std::unique_ptr<http::WebView>> view =
        http::WebView::Start(server->config_, server->auth_tokens_.get(), *server->resources_,
                             *server->store_, server->tls_files_.get());
    if (!view.ok()) return view.status();
    server->web_view_ = *std::move(view);
  }

  grpc::EnableDefaultHealthCheckService(true);
  // Without this explicit call the linker may drop the plugin, and
  // reflection silently disappears.
  grpc::reflection::InitProtoReflectionServerBuilderPlugin();
  // So that reflection can describe the health service, not only list it.
  HealthProtoFile();
  grpc::ServerBuilder builder;
  builder.SetOption(std::make_unique<ReflectionOption>(ServesReflection(config)));
  int port = 0;
  builder.AddListeningPort(config.listen, credentials, &port);
  builder.RegisterService(server->service_.get());
  std::vector<std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface>> creators;
  // First, so that the status it rewrites is the one the metrics count.
  creators.push_back(std::make_unique<UndecodableRequestInterceptorFactory>());
  if (server->metrics_ != nullptr) {
    creators.push_back(std::make_unique<MetricsInterceptorFactory>(*server->metrics_));
  }
  builder.experimental().SetInterceptorCreators(std::move(creators));
  builder.SetMaxReceiveMessageSize(static_cast<int>(config.max_message_bytes));
  builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_PERMIT_WITHOUT_CALLS, 1);
  builder.AddChannelArgument(GRPC_ARG_HTTP2_MIN_RECV_PING_INTERVAL_WITHOUT_DATA_MS,
                             Milliseconds(config.keepalive.min_client_ping_interval));
  builder.AddChannelArgument(GRPC_ARG_HTTP2_MAX_PING_STRIKES, kMaxPingStrikes);
  builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_TIME_MS,
                             Milliseconds(config.keepalive.server_ping_interval));
  builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_TIMEOUT_MS,
                             Milliseconds(config.keepalive.server_ping_timeout));
  server->server_ = builder.BuildAndStart();
  if (server->server_ == nullptr || port == 0) {
    return absl::UnavailableError(absl::StrCat("cannot listen on ", config.listen));
  }
  server->address_ = absl::StrCat(HostOf(config.listen), ":", port);
  server->worker_->Begin(ReplicaName(config, port));
  grpc::HealthCheckServiceInterface* health = server->server_->GetHealthCheckService();
  health->SetServingStatus(true);
  health->SetServingStatus(kServiceName, true);
  if (server->pool_ != nullptr) {
    ValidationWorker* worker = server->worker_.get();
    server->listener_ = std::make_unique<postgres::Listener>(
        *server->pool_, kValidationEndChannel, kDatabaseCheckInterval,
        postgres::Listener::Callbacks{
            .notified =
                [worker](std::string_view payload) {
                  if (auto ended = ParseValidationEndPayload(payload))
                    worker->EndedElsewhere(ended->first, ended->second);
                },
            .missed = [worker] { worker->WakeAllListeners(); },
            .reachability =
                [health](const absl::Status& status) {
                  // Every call needs the database: a balancer should send them elsewhere.
                  if (status.ok()) {
                    spdlog::info("the database can be reached again: health SERVING");
                  } else {
                    spdlog::error("the database cannot be reached, health NOT_SERVING: {}",
                                  std::string(status.message()));
                  }
                  health->SetServingStatus(status.ok());
                  health->SetServingStatus(kServiceName, status.ok());
                }});
  }
  server->maintainer_ = std::thread([raw = server.get()] { raw->Maintain(); });
  if (server->auth_tokens_ != nullptr || server->tls_files_ != nullptr) {
    server->credentials_refresher_ = std::make_unique<PeriodicThread>(
        config.credentials_refresh_interval, [raw = server.get()] { raw->RefreshCredentials(); });
  }
  return server;
}

ValidationServer::ValidationServer(const ServerConfig& config, JobQueue::Observer job_observer,
                                   std::unique_ptr<AuthTokens> tokens,
                                   std::unique_ptr<SessionDatabase> database,
                                   std::unique_ptr<postgres::Pool> pool)
    : config_(config),
      metrics_(config.metrics_listen.empty() ? nullptr : std::make_unique<ServiceMetrics>()),
      database_(std::move(database)),
      pool_(std::move(pool)),
      store_(std::make_unique<SessionStore>(
          config.sessions, SessionBackendFor(config.sessions, database_.get(), pool_.get()))),
      sweeper_(std::make_unique<SessionSweeper>(*store_)),
      jobs_(std::make_unique<JobQueue>(config.jobs,
                                       ObserveJobs(metrics_.get(), std::move(job_observer)))),
      auth_tokens_(std::move(tokens)),
      validation_limits_(ValidationLimitsFor(config.sessions, config.jobs)) {}

ValidationServer::~ValidationServer() { Shutdown(absl::ZeroDuration()); }

absl::Status ValidationServer::RestoreSessions() {
  if (pool_ != nullptr) return absl::OkStatus();
  if (database_ == nullptr) {
    spdlog::info("sessions are held in memory only (no --data_dir)");
    return absl::OkStatus();
  }
  const absl::Time start = absl::Now();
  absl::StatusOr<std::vector<absl::Status>> over_limits = store_->Restore(start);
  if (!over_limits.ok()) return over_limits.status();
  for (const absl::Status& over : *over_limits) {
    spdlog::warn("restored {}", std::string(over.message()));
  }
  const SessionStore::Totals restored = store_->totals();
  spdlog::info("restored {} sessions with {} runs ({} bytes) from {} in {:.2f} s",
               restored.sessions, restored.runs, store_->total_bytes(), database_->path(),
               absl::ToDoubleSeconds(absl::Now() - start));
  return absl::OkStatus();
}

void ValidationServer::Shutdown(absl::Duration grace) {
  {
    absl::MutexLock lock(&mu_);
    if (shut_down_) return;
    shut_down_ = true;
    stopping_ = true;
  }
  if (maintainer_.joinable()) maintainer_.join();
  // Wakes streams and sets the health service, both about to go.
  listener_.reset();
  credentials_refresher_.reset();
  // Calls that end now leave their validations to the queue, for another replica or the next
  // start.
  if (resources_ != nullptr) resources_->BeginShutdown();
  if (server_ != nullptr) {
    spdlog::info("shutting down: {:.1f} s grace for calls in progress",
                 absl::ToDoubleSeconds(grace));
    server_->GetHealthCheckService()->Shutdown();
    server_->Shutdown(absl::ToChronoTime(absl::Now() + grace));
  }
  // What still runs goes back to the queue.
  if (worker_ != nullptr) worker_->Stop(absl::ZeroDuration());
  // Scrapes read the job queue; pages read the stores.
  metrics_endpoint_.reset();
  web_view_.reset();
  // Every call has ended, so no job has anyone waiting for it.
  jobs_.reset();
  // The last uses since the last sweep, so that a restart counts idle time
  // from them.
  sweeper_->Save();
  spdlog::info("shut down");
}

std::vector<std::string> ValidationServer::ExpireIdleSessions(absl::Time now) {
  std::vector<std::string> expired = sweeper_->Sweep(now);
  if (resources_ != nullptr) resources_->Sweep();
  return expired;
}

absl::Status ValidationServer::ReloadAuthTokens() {
  if (auth_tokens_ == nullptr) {
    return absl::FailedPreconditionError("no --auth_tokens_file to reload");
  }
  absl::Status status = auth_tokens_->Reload();
  ReportTokenReload(status.ok() ? absl::StatusOr<bool>(true) : status);
  return status;
}

void ValidationServer::RefreshCredentials() {
  if (auth_tokens_ != nullptr) ReportTokenReload(auth_tokens_->ReloadIfChanged());
  if (certificate_principals_ != nullptr && certificate_principals_->has_map()) {
    const absl::StatusOr<bool> mapped = certificate_principals_->ReloadMapIfChanged();
    if (!mapped.ok()) {
      spdlog::error("--tls_principal_map not reloaded, the map in use stays: {}",
                    std::string(mapped.status().message()));
    } else if (*mapped) {
      spdlog::info("reloaded the principal map {}", config_.tls.principal_map_file);
    }
  }
  if (tls_files_ == nullptr) return;
  const absl::StatusOr<bool> refreshed = tls_files_->RefreshIfChanged();
  if (!refreshed.ok()) {
    spdlog::error("TLS files not reloaded, the certificate in use stays: {}",
                  std::string(refreshed.status().message()));
  } else if (*refreshed) {
    spdlog::info("reloaded the TLS certificate {} and key {}{}", config_.tls.cert_file,
                 config_.tls.key_file,
                 config_.tls.client_ca_file.empty()
                     ? std::string()
                     : absl::StrCat(" and client CA ", config_.tls.client_ca_file));
    // The checked copies changed: the web view serves them from its next connection on.
    if (web_view_ != nullptr) {
      if (absl::Status status = web_view_->ReloadCertificate(); !status.ok()) {
        spdlog::error("the web view keeps its certificate: {}", std::string(status.message()));
      }
    }
  }
}

void ValidationServer::ReportTokenReload(const absl::StatusOr<bool>& reloaded) const {
  if (!reloaded.ok()) {
    spdlog::error("auth tokens not reloaded, the {} tokens in use stay: {}", auth_tokens_->size(),
                  std::string(reloaded.status().message()));
  } else if (*reloaded) {
    spdlog::info("reloaded {} auth tokens from {}", auth_tokens_->size(), auth_tokens_->path());
  }
}

void ValidationServer::Maintain() {
  absl::Time next_sweep = absl::Now() + config_.sweep_interval;
  absl::MutexLock lock(&mu_);
  while (!mu_.AwaitWithTimeout(absl::Condition(&stopping_),
                               std::min(config_.sweep_interval, kHeapTrimInterval))) {
    mu_.Unlock();
    if (const absl::Time now = absl::Now(); now >= next_sweep) {
      ExpireIdleSessions(now);
      next_sweep = now + config_.sweep_interval;
    }
    ReturnFreeHeapMemory();
    mu_.Lock();
  }
}

}  // namespace wasserwarp::service
