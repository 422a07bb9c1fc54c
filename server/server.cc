#include "server.h"

#include <grpc/grpc.h>
#include <grpcpp/ext/proto_server_reflection_plugin.h>
#include <grpcpp/health_check_service_interface.h>
#include <grpcpp/security/server_credentials.h>
#include <grpcpp/server_builder.h>

#include <utility>

#include "absl/strings/str_cat.h"
#include "spdlog/spdlog.h"

namespace wasserwarp::service {
namespace {

// Benches ping every 10 s to keep idle connections through NAT and
// firewalls; the server must not count those pings as abuse.
constexpr int kMinClientPingIntervalMs = 5'000;
constexpr int kServerKeepaliveTimeMs = 60'000;
constexpr int kServerKeepaliveTimeoutMs = 20'000;

constexpr char kServiceName[] = "wasserwarp.v1.ValidationService";

// The host part of host:port, brackets of an IPv6 literal included.
std::string HostOf(const std::string& listen) {
  const size_t colon = listen.rfind(':');
  return colon == std::string::npos ? listen : listen.substr(0, colon);
}

}  // namespace

absl::StatusOr<std::unique_ptr<ValidationServer>> ValidationServer::Start(
    const ServerConfig& config, JobQueue::Observer job_observer) {
  if (absl::Status status = ValidateConfig(config); !status.ok()) return status;
  std::unique_ptr<ValidationServer> server(new ValidationServer(config, std::move(job_observer)));

  grpc::EnableDefaultHealthCheckService(true);
  // Without this explicit call the linker may drop the plugin, and
  // reflection silently disappears.
  grpc::reflection::InitProtoReflectionServerBuilderPlugin();
  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort(config.listen, grpc::InsecureServerCredentials(), &port);
  builder.RegisterService(server->service_.get());
  builder.SetMaxReceiveMessageSize(static_cast<int>(config.max_message_bytes));
  builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_PERMIT_WITHOUT_CALLS, 1);
  builder.AddChannelArgument(GRPC_ARG_HTTP2_MIN_RECV_PING_INTERVAL_WITHOUT_DATA_MS,
                             kMinClientPingIntervalMs);
  builder.AddChannelArgument(GRPC_ARG_HTTP2_MAX_PING_STRIKES, 0);
  builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_TIME_MS, kServerKeepaliveTimeMs);
  builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_TIMEOUT_MS, kServerKeepaliveTimeoutMs);
  server->server_ = builder.BuildAndStart();
  if (server->server_ == nullptr || port == 0) {
    return absl::UnavailableError(absl::StrCat("cannot listen on ", config.listen));
  }
  server->address_ = absl::StrCat(HostOf(config.listen), ":", port);
  grpc::HealthCheckServiceInterface* health = server->server_->GetHealthCheckService();
  health->SetServingStatus(true);
  health->SetServingStatus(kServiceName, true);
  server->sweeper_ = std::thread([raw = server.get()] { raw->Sweep(); });
  return server;
}

ValidationServer::ValidationServer(const ServerConfig& config, JobQueue::Observer job_observer)
    : config_(config),
      store_(std::make_unique<SessionStore>(config.sessions)),
      jobs_(std::make_unique<JobQueue>(config.jobs, std::move(job_observer))),
      service_(std::make_unique<ValidationService>(config.sessions, *store_, *jobs_)) {}

ValidationServer::~ValidationServer() { Shutdown(absl::ZeroDuration()); }

void ValidationServer::Shutdown(absl::Duration grace) {
  {
    absl::MutexLock lock(&mu_);
    if (shut_down_) return;
    shut_down_ = true;
    stopping_ = true;
  }
  if (sweeper_.joinable()) sweeper_.join();
  if (server_ != nullptr) {
    spdlog::info("shutting down: {:.1f} s grace for calls in progress",
                 absl::ToDoubleSeconds(grace));
    server_->GetHealthCheckService()->Shutdown();
    server_->Shutdown(absl::ToChronoTime(absl::Now() + grace));
  }
  // Every call has ended, so no job has anyone waiting for it.
  jobs_.reset();
  spdlog::info("shut down");
}

std::vector<std::string> ValidationServer::ExpireIdleSessions(absl::Time now) {
  std::vector<std::string> expired = store_->ExpireIdle(now);
  for (const std::string& id : expired) spdlog::info("session sessions/{} expired", id);
  return expired;
}

void ValidationServer::Sweep() {
  absl::MutexLock lock(&mu_);
  while (!mu_.AwaitWithTimeout(absl::Condition(&stopping_), config_.sweep_interval)) {
    mu_.Unlock();
    ExpireIdleSessions(absl::Now());
    mu_.Lock();
  }
}

}  // namespace wasserwarp::service
