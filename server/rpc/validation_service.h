// wasserwarp.v1.ValidationService on gRPC's callback API. Unary calls and uploads are worked on the
// service's call pool (call_pool.h), since they read and write the store; everything that computes
// goes to the job queue.

#ifndef WASSERWARP_SERVER_RPC_VALIDATION_SERVICE_H_
#define WASSERWARP_SERVER_RPC_VALIDATION_SERVICE_H_

#include <grpcpp/support/server_callback.h>

#include "jobs/job_queue.h"
#include "ops/call_principal.h"
#include "ops/server_config.h"
#include "rpc/call_pool.h"
#include "rpc/validation_resources.h"
#include "rpc/watch_stream_slots.h"
#include "sessions/session_store.h"
#include "wasserwarp/v1/validation.grpc.pb.h"

namespace wasserwarp::service {

class ValidationService final : public v1::ValidationService::CallbackService {
 public:
  // `tokens` (not owned; null: no access control) authenticates every call (call_principal.h);
  // WatchValidation streams open at once are bounded by `max_watch_streams` in all and
  // `max_watch_streams_per_principal` per principal; unary calls run on `call_threads` threads
  // of their own, at most `max_queued_calls` waiting.
  ValidationService(
      const SessionLimits& limits, const JobLimits& job_limits, SessionStore& store, JobQueue& jobs,
      ValidationResources& validations, const CallAuthenticator* tokens,
      int max_watch_streams = ServerConfig().max_watch_streams,
      int max_watch_streams_per_principal = ServerConfig().max_watch_streams_per_principal,
      int call_threads = ServerConfig().call_threads,
      int max_queued_calls = ServerConfig().max_queued_calls);

  grpc::ServerUnaryReactor* CreateSession(grpc::CallbackServerContext* context,
                                          const v1::CreateSessionRequest* request,
                                          v1::CreateSessionResponse* response) override;
  grpc::ServerUnaryReactor* GetSession(grpc::CallbackServerContext* context,
                                       const v1::GetSessionRequest* request,
                                       v1::GetSessionResponse* response) override;
  grpc::ServerUnaryReactor* ListSessions(grpc::CallbackServerContext* context,
                                         const v1::ListSessionsRequest* request,
                                         v1::ListSessionsResponse* response) override;
  grpc::ServerUnaryReactor* DeleteSession(grpc::CallbackServerContext* context,
                                          const v1::DeleteSessionRequest* request,
                                          v1::DeleteSessionResponse* response) override;
  grpc::ServerReadReactor<v1::UploadSeriesRequest>* UploadSeries(
      grpc::CallbackServerContext* context, v1::UploadSeriesResponse* response) override;
  grpc::ServerWriteReactor<v1::ValidateResponse>* Validate(
      grpc::CallbackServerContext* context, const v1::ValidateRequest* request) override;
  grpc::ServerUnaryReactor* ComputeTwed(grpc::CallbackServerContext* context,
                                        const v1::ComputeTwedRequest* request,
                                        v1::ComputeTwedResponse* response) override;
  grpc::ServerUnaryReactor* CreateValidation(grpc::CallbackServerContext* context,
                                             const v1::CreateValidationRequest* request,
                                             v1::CreateValidationResponse* response) override;
  grpc::ServerUnaryReactor* GetValidation(grpc::CallbackServerContext* context,
                                          const v1::GetValidationRequest* request,
                                          v1::GetValidationResponse* response) override;
  grpc::ServerUnaryReactor* ListValidations(grpc::CallbackServerContext* context,
                                            const v1::ListValidationsRequest* request,
                                            v1::ListValidationsResponse* response) override;
  grpc::ServerUnaryReactor* CancelValidation(grpc::CallbackServerContext* context,
                                             const v1::CancelValidationRequest* request,
                                             v1::CancelValidationResponse* response) override;
  grpc::ServerWriteReactor<v1::WatchValidationResponse>* WatchValidation(
      grpc::CallbackServerContext* context, const v1::WatchValidationRequest* request) override;
  grpc::ServerUnaryReactor* DeleteValidation(grpc::CallbackServerContext* context,
                                             const v1::DeleteValidationRequest* request,
                                             v1::DeleteValidationResponse* response) override;

 private:
  const SessionLimits limits_;
  const ValidationLimits validation_limits_;
  SessionStore& store_;
  JobQueue& jobs_;
  ValidationResources& validations_;
  const CallAuthenticator* const tokens_;
  WatchStreamSlots watch_slots_;
  // Last: destroyed first, so that no queued call outlives what it uses.
  CallPool calls_;
};

}  // namespace wasserwarp::service

#endif  // WASSERWARP_SERVER_RPC_VALIDATION_SERVICE_H_
