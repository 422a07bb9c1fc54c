// A running wasserwarp service: the gRPC server with the validation,
// health and reflection services, the session store, the job queue and a
// maintenance thread (idle sessions, freed heap memory). main.cc runs one;
// tests run one in-process.

#ifndef WASSERWARP_SERVER_SERVER_H_
#define WASSERWARP_SERVER_SERVER_H_

#include <grpcpp/server.h>

#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "http/web_view.h"
#include "jobs/job_queue.h"
#include "jobs/validation_worker.h"
#include "metrics_endpoint.h"
#include "ops/auth_tokens.h"
#include "ops/call_principal.h"
#include "ops/certificate_principal.h"
#include "ops/metrics.h"
#include "ops/periodic_thread.h"
#include "ops/server_config.h"
#include "ops/tls_files.h"
#include "rpc/validation_resources.h"
#include "rpc/validation_service.h"
#include "sessions/session_database.h"
#include "sessions/session_store.h"
#include "sessions/session_sweeper.h"
#include "storage/postgres_listener.h"
#include "storage/postgres_pool.h"
#include "validations/validation_store.h"

namespace wasserwarp::service {

class ValidationServer {
 public:
  // Listens on config.listen; `job_observer` (optional) sees every job's end.
  static absl::StatusOr<std::unique_ptr<ValidationServer>> Start(
      const ServerConfig& config, JobQueue::Observer job_observer = nullptr);
  // Shuts down without grace if Shutdown was not called.
  ~ValidationServer();

  // host:port with the port actually bound.
  const std::string& address() const { return address_; }
  // The same for config.metrics_listen; empty without it.
  std::string metrics_address() const {
    return metrics_endpoint_ != nullptr ? metrics_endpoint_->address() : std::string();
  }

  // Health goes NOT_SERVING and new calls are refused; calls in progress
  // get `grace` to finish, then are cancelled, which cancels their jobs.
  // Returns when every call and job has ended. Idempotent.
  void Shutdown(absl::Duration grace);

  // Drops the sessions idle past their TTL at `now` (the maintenance thread's work,
  // callable directly) and brings the database up to date
  // (SessionSweeper::Sweep); returns their ids.
  std::vector<std::string> ExpireIdleSessions(absl::Time now);

  // Reads --auth_tokens_file again (main.cc does on SIGHUP). On error the
  // tokens in use stay; the error is logged and returned. FailedPrecondition
  // without access control.
  absl::Status ReloadAuthTokens();
  // Every --credentials_refresh_interval: the token file (AuthTokens::ReloadIfChanged) and the
  // TLS files (TlsFiles::RefreshIfChanged) reloaded where their content changed; logs what it
  // did.
  void RefreshCredentials();

  // The same for config.http.listen; empty without it.
  std::string http_address() const {
    return web_view_ != nullptr ? web_view_->address() : std::string();
  }

  SessionStore& sessions() { return *store_; }
  JobQueue& jobs() { return *jobs_; }

 private:
  ValidationServer(const ServerConfig& config, JobQueue::Observer job_observer,
                   std::unique_ptr<AuthTokens> tokens, std::unique_ptr<SessionDatabase> database,
                   std::unique_ptr<postgres::Pool> pool);
  // The database's sessions into the store, before any call can come.
  absl::Status RestoreSessions();
  // Logs the outcome of a token reload: an error, or what was loaded when it changed.
  void ReportTokenReload(const absl::StatusOr<bool>& reloaded) const;
  // Every few seconds until shutdown: drops idle sessions once per
  // sweep_interval and returns freed heap memory to the system.
  void Maintain();

  const ServerConfig config_;
  // Null without config.metrics_listen. Before the job queue, whose
  // observer it is, so that it outlives the queue.
  std::unique_ptr<ServiceMetrics> metrics_;
  // Null without config.data_dir; it outlives the store that writes through to it.
  std::unique_ptr<SessionDatabase> database_;
  // Null without config.postgres_url; with it, database_ is null.
  std::unique_ptr<postgres::Pool> pool_;
  std::unique_ptr<SessionStore> store_;
  std::unique_ptr<SessionSweeper> sweeper_;
  std::unique_ptr<JobQueue> jobs_;
  // Null without --auth_tokens_file.
  std::unique_ptr<AuthTokens> auth_tokens_;
  // Null without --tls_client_ca.
  std::unique_ptr<CertificatePrincipals> certificate_principals_;
  // Null without --tls_cert; gRPC reads them as long as the server runs.
  std::unique_ptr<TlsFiles> tls_files_;
  // Over the two above (call_principal.h).
  std::unique_ptr<CallAuthenticator> authenticator_;
  const ValidationLimits validation_limits_;
  std::unique_ptr<ValidationStore> validations_;
  // Made once the sessions are restored, so that no claimed validation misses its session.
  std::unique_ptr<ValidationWorker> worker_;
  std::unique_ptr<ValidationResources> resources_;
  std::unique_ptr<ValidationService> service_;
  std::unique_ptr<grpc::Server> server_;
  std::string address_;
  std::unique_ptr<MetricsEndpoint> metrics_endpoint_;
  // Null without config.http.listen.
  std::unique_ptr<http::WebView> web_view_;
  // Null without config.postgres_url: wakes the streams of validations that end on other
  // replicas, and tells the health service whether the database can be reached.
  std::unique_ptr<postgres::Listener> listener_;
  std::thread maintainer_;
  // Polls the token and TLS files; null without either.
  std::unique_ptr<PeriodicThread> credentials_refresher_;
  absl::Mutex mu_;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  bool shut_down_ ABSL_GUARDED_BY(mu_) = false;
};

}  // namespace wasserwarp::service

#endif  // WASSERWARP_SERVER_SERVER_H_
