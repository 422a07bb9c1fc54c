#include "rpc/validation_service.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "ops/call_principal.h"
#include "ops/rpc_log.h"
#include "rpc/logged_call.h"
#include "rpc/resource_of_call.h"
#include "rpc/session_proto.h"
#include "rpc/twed_reactor.h"
#include "rpc/upload_reactor.h"
#include "rpc/validation_evidence.h"
#include "rpc/validation_resources.h"
#include "rpc/validation_stream_reactor.h"
#include "sessions/label_bound.h"
#include "wasserwarp/field_error.h"
#include "wasserwarp/parameter_overrides.h"
#include "wasserwarp/transport.h"
#include "wasserwarp/twed.h"
#include "wasserwarp/user_text.h"
#include "wasserwarp/validation.h"
#include "wire/convert.h"
#include "wire/parameters.h"
#include "wire/request_fields.h"
#include "wire/resource_names.h"
#include "wire/status_to_grpc.h"

namespace wasserwarp::service {
namespace {

// A call refused before it started: it only reports `status`.
template <class Reactor>
class RefusedCall final : public Reactor {
 public:
  explicit RefusedCall(const grpc::Status& status) { this->Finish(status); }
  void OnDone() override { delete this; }
};

// Ends a call before it started with `status`, and logs it.
template <class Reactor>
Reactor* Refuse(grpc::CallbackServerContext* context, std::string_view method,
                const absl::Status& refusal) {
  const grpc::Status status = wire::ToGrpcStatus(refusal);
  RpcLog(context, method).Done(status);
  return new RefusedCall<Reactor>(status);
}

// Every call of the service starts here: `start` gets the caller's principal,
// and a call without a valid token ends at once, UNAUTHENTICATED, before it
// touches a session or takes a job slot.
template <class Reactor, class Start>
Reactor* Authenticated(grpc::CallbackServerContext* context, std::string_view method,
                       const CallAuthenticator* tokens, Start start) {
  absl::StatusOr<std::string> principal = CallPrincipal(*context, tokens);
  if (principal.ok()) return start(*principal);
  return Refuse<Reactor>(context, method, principal.status());
}

// Answers a unary call with what `handle(principal)` returns, with its log line. The handler
// runs on `pool`, not on gRPC's thread, so it captures what it needs by value: the call's
// request and response live until the reactor is done, the service until the pool is.
template <class Response, class Request, class Handler>
grpc::ServerUnaryReactor* Answer(grpc::CallbackServerContext* context, std::string_view method,
                                 const CallAuthenticator* tokens, CallPool& pool,
                                 const Request* request, Response* response, Handler handle) {
  return Authenticated<grpc::ServerUnaryReactor>(
      context, method, tokens, [&](const std::string& principal) {
        grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
        const absl::Status queued = PostLogged(
            pool, RpcLog(context, method),
            [context, request, response, reactor, principal,
             handle = std::move(handle)](RpcLog& log) {
              log.Principal(principal);
              log.Received(request->ByteSizeLong());
              // A call its client gave up on while it waited is not worth the store's time.
              const absl::StatusOr<Response> result =
                  context->IsCancelled() ? absl::CancelledError("the client cancelled the call")
                                         : handle(principal);
              if (result.ok()) {
                *response = *result;
                log.Sent(response->ByteSizeLong());
              }
              log.Resource(ResourceOfCall(*request, result.ok() ? response : nullptr));
              const grpc::Status status = wire::ToGrpcStatus(result.status());
              log.Done(status);
              reactor->Finish(status);
            });
        if (!queued.ok()) reactor->Finish(wire::ToGrpcStatus(queued));
        return reactor;
      });
}

// A session's defaults, checked when the session is created, so that a bad default fails
// there rather than at every validation.
absl::StatusOr<ParameterOverrides> DefaultParameters(const v1::ValidationParameters& parameters) {
  absl::StatusOr<ParameterOverrides> defaults = wire::OverridesFromProto(parameters);
  if (!defaults.ok()) return defaults.status();
  ValidationOptions options;
  ApplyOverrides(*defaults, options);
  // Weights and verdicts belong to runs and calls: one run of each set stands for any.
  if (absl::Status status = ValidateValidationOptions(options, 1, 1); !status.ok()) return status;
  for (size_t c = 0; c < options.prepare.channels.size(); ++c) {
    if (options.prepare.channels[c].empty()) {
      return InvalidFieldError(absl::StrCat("channels[", c, "]"), "is an empty channel name");
    }
  }
  return defaults;
}

// A session's idle TTL: a valid Duration, positive, at most the server's --max_session_ttl.
absl::StatusOr<absl::Duration> IdleTtl(const google::protobuf::Duration& duration,
                                       const SessionLimits& limits) {
  absl::StatusOr<absl::Duration> ttl = wire::FromProtoDuration(duration, "session.idle_ttl");
  if (!ttl.ok()) return ttl.status();
  if (*ttl <= absl::ZeroDuration()) {
    return InvalidFieldError("session.idle_ttl",
                             absl::StrCat("must be positive, got ", absl::FormatDuration(*ttl)));
  }
  if (*ttl > limits.max_session_ttl) {
    return WithLimit(
        InvalidFieldError(
            "session.idle_ttl",
            absl::StrCat("must be at most ", absl::FormatDuration(limits.max_session_ttl),
                         " (--max_session_ttl), got ", absl::FormatDuration(*ttl))),
        "--max_session_ttl");
  }
  return ttl;
}

absl::StatusOr<v1::CreateSessionResponse> CreateSession(SessionStore& store,
                                                        ValidationResources& validations,
                                                        const SessionLimits& limits,
                                                        const v1::CreateSessionRequest& request,
                                                        const std::string& principal) {
  if (!request.session_id().empty()) {
    if (absl::Status status = CheckIdCharacters("session_id", request.session_id()); !status.ok()) {
      return status;
    }
    if (absl::Status status = wire::ValidateSessionId(request.session_id()); !status.ok()) {
      return WithField(status, "session_id");
    }
    if (absl::Status status = validations.CheckIdFree(request.session_id()); !status.ok()) {
      return status;
    }
  }
  const v1::Session& session = request.session();
  absl::StatusOr<ParameterOverrides> defaults = DefaultParameters(session.default_parameters());
  if (!defaults.ok()) {
    return wire::InRequestTerms(PrefixField(defaults.status(), "session.default_parameters"),
                                "session.default_parameters");
  }
  SessionSettings settings;
  settings.owner = principal;
  settings.default_parameters = *std::move(defaults);
  for (const auto& [key, value] : session.labels()) {
    if (key.empty()) return InvalidFieldError("session.labels", "has an empty key");
    settings.labels.emplace(key, value);
  }
  if (absl::Status status = CheckLabelBound(settings.labels, "session.labels", limits);
      !status.ok()) {
    return status;
  }
  if (session.has_idle_ttl()) {
    absl::StatusOr<absl::Duration> ttl = IdleTtl(session.idle_ttl(), limits);
    if (!ttl.ok()) return ttl.status();
    settings.idle_ttl = *ttl;
  }
  absl::StatusOr<SessionRecord> created = store.Create(request.session_id(), std::move(settings));
  if (!created.ok()) return created.status();
  v1::CreateSessionResponse response;
  *response.mutable_session() = ToProto(*created, /*with_runs=*/true);
  return response;
}

absl::StatusOr<v1::GetSessionResponse> GetSession(SessionStore& store,
                                                  ValidationResources& validations,
                                                  const v1::GetSessionRequest& request,
                                                  const std::string& principal) {
  absl::StatusOr<std::string> id = wire::SessionIdFromName(request.name(), "name");
  if (!id.ok()) return id.status();
  v1::GetSessionResponse response;
  absl::StatusOr<SessionRecord> session = store.Get(*id, principal);
  if (absl::IsNotFound(session.status())) {
    absl::StatusOr<std::optional<RecordedSession>> tombstone =
        validations.Tombstone(*id, principal);
    if (!tombstone.ok()) return tombstone.status();
    if (!tombstone->has_value()) return session.status();
    *response.mutable_session() = ToProto(**tombstone, /*with_runs=*/true);
    return response;
  }
  if (!session.ok()) return session.status();
  *response.mutable_session() = ToProto(*session, /*with_runs=*/true);
  return response;
}

// Page tokens are the last id of the previous page, opaque to clients.
std::string PageToken(const std::string& last_id) { return absl::WebSafeBase64Escape(last_id); }

absl::StatusOr<std::string> IdFromPageToken(const std::string& token) {
  std::string id;
  if (!absl::WebSafeBase64Unescape(token, &id) || !wire::ValidateSessionId(id).ok()) {
    return InvalidFieldError("page_token",
                             absl::StrCat(QuotedText(token), " is not one this service issued"));
  }
  return id;
}

absl::StatusOr<v1::ListSessionsResponse> ListSessions(SessionStore& store,
                                                      ValidationResources& validations,
                                                      const v1::ListSessionsRequest& request,
                                                      const std::string& principal) {
  if (request.page_size() < 0) {
    return InvalidFieldError("page_size",
                             absl::StrCat("must not be negative, got ", request.page_size()));
  }
  const int page_size =
      request.page_size() == 0 ? kDefaultPageSize : std::min(request.page_size(), kMaxPageSize);
  std::string after;
  if (!request.page_token().empty()) {
    absl::StatusOr<std::string> id = IdFromPageToken(request.page_token());
    if (!id.ok()) return id.status();
    after = *std::move(id);
  }
  bool more = false;
  absl::StatusOr<std::vector<SessionRecord>> sessions =
      store.List(after, page_size, more, principal);
  if (!sessions.ok()) return sessions.status();
  v1::ListSessionsResponse response;
  for (const SessionRecord& session : *sessions) {
    *response.add_sessions() = ToProto(session, /*with_runs=*/false);
  }
  if (request.show_deleted()) {
    absl::StatusOr<std::vector<RecordedSession>> tombstones =
        validations.Tombstones(principal, after, page_size);
    if (!tombstones.ok()) return tombstones.status();
    for (const RecordedSession& tombstone : *tombstones) {
      *response.add_sessions() = ToProto(tombstone, /*with_runs=*/false);
    }
    // The two lists merged in id order, a page of them; more follow when either list had more
    // than what the page keeps.
    std::sort(response.mutable_sessions()->begin(), response.mutable_sessions()->end(),
              [](const v1::Session& a, const v1::Session& b) { return a.name() < b.name(); });
    const int listed = response.sessions_size();
    if (listed > page_size)
      response.mutable_sessions()->DeleteSubrange(page_size, listed - page_size);
    more = more || listed > page_size || static_cast<int>(tombstones->size()) == page_size;
  }
  if (more) {
    const std::string& last = response.sessions(response.sessions_size() - 1).name();
    absl::StatusOr<std::string> id = wire::SessionIdFromName(last, "name");
    if (!id.ok()) return id.status();
    response.set_next_page_token(PageToken(*id));
  }
  return response;
}

}  // namespace

ValidationService::ValidationService(const SessionLimits& limits, const JobLimits& job_limits,
                                     SessionStore& store, JobQueue& jobs,
                                     ValidationResources& validations,
                                     const CallAuthenticator* tokens, int max_watch_streams,
                                     int max_watch_streams_per_principal, int call_threads,
                                     int max_queued_calls)
    : limits_(limits),
      validation_limits_(ValidationLimitsFor(limits, job_limits)),
      store_(store),
      jobs_(jobs),
      validations_(validations),
      tokens_(tokens),
      watch_slots_(max_watch_streams, max_watch_streams_per_principal),
      calls_(call_threads, max_queued_calls) {}

grpc::ServerUnaryReactor* ValidationService::CreateSession(grpc::CallbackServerContext* context,
                                                           const v1::CreateSessionRequest* request,
                                                           v1::CreateSessionResponse* response) {
  return Answer(context, "CreateSession", tokens_, calls_, request, response,
                [this, request](const std::string& principal) {
                  return service::CreateSession(store_, validations_, limits_, *request, principal);
                });
}

grpc::ServerUnaryReactor* ValidationService::GetSession(grpc::CallbackServerContext* context,
                                                        const v1::GetSessionRequest* request,
                                                        v1::GetSessionResponse* response) {
  return Answer(context, "GetSession", tokens_, calls_, request, response,
                [this, request](const std::string& principal) {
                  return service::GetSession(store_, validations_, *request, principal);
                });
}

grpc::ServerUnaryReactor* ValidationService::ListSessions(grpc::CallbackServerContext* context,
                                                          const v1::ListSessionsRequest* request,
                                                          v1::ListSessionsResponse* response) {
  return Answer(context, "ListSessions", tokens_, calls_, request, response,
                [this, request](const std::string& principal) {
                  return service::ListSessions(store_, validations_, *request, principal);
                });
}

grpc::ServerUnaryReactor* ValidationService::DeleteSession(grpc::CallbackServerContext* context,
                                                           const v1::DeleteSessionRequest* request,
                                                           v1::DeleteSessionResponse* response) {
  return Answer(
      context, "DeleteSession", tokens_, calls_, request, response,
      [this, request](const std::string& principal) -> absl::StatusOr<v1::DeleteSessionResponse> {
        absl::StatusOr<std::string> id = wire::SessionIdFromName(request->name(), "name");
        if (!id.ok()) return id.status();
        absl::StatusOr<SessionRef> session = store_.Open(*id, principal);
        if (absl::IsNotFound(session.status())) {
          // Deleting a tombstone purges it with its records.
          absl::StatusOr<std::optional<RecordedSession>> tombstone =
              validations_.Tombstone(*id, principal);
          if (!tombstone.ok()) return tombstone.status();
          if (!tombstone->has_value()) return session.status();
          if (absl::Status status = validations_.PurgeTombstone(**tombstone); !status.ok()) {
            return status;
          }
          return v1::DeleteSessionResponse();
        }
        if (!session.ok()) return session.status();
        // Its records stay with the session as a tombstone; its jobs stop.
        validations_.SessionDeleting(session->key, *id, principal);
        if (absl::Status status = store_.Delete(*id, principal); !status.ok()) {
          return status;
        }
        jobs_.CancelGroup(*id);
        return v1::DeleteSessionResponse();
      });
}

grpc::ServerReadReactor<v1::UploadSeriesRequest>* ValidationService::UploadSeries(
    grpc::CallbackServerContext* context, v1::UploadSeriesResponse* response) {
  return Authenticated<grpc::ServerReadReactor<v1::UploadSeriesRequest>>(
      context, "UploadSeries", tokens_, [&](const std::string& principal) {
        return new UploadReactor(context, response, principal, store_, limits_, calls_);
      });
}

grpc::ServerWriteReactor<v1::ValidateResponse>* ValidationService::Validate(
    grpc::CallbackServerContext* context, const v1::ValidateRequest* request) {
  return Authenticated<grpc::ServerWriteReactor<v1::ValidateResponse>>(
      context, "Validate", tokens_, [&](const std::string& principal) {
        return new ValidationStreamReactor<v1::ValidateResponse>(context, request, principal,
                                                                 validations_, calls_);
      });
}

grpc::ServerUnaryReactor* ValidationService::CreateValidation(
    grpc::CallbackServerContext* context, const v1::CreateValidationRequest* request,
    v1::CreateValidationResponse* response) {
  return Answer(context, "CreateValidation", tokens_, calls_, request, response,
                [this, request](
                    const std::string& principal) -> absl::StatusOr<v1::CreateValidationResponse> {
                  absl::StatusOr<v1::Validation> validation =
                      validations_.Create(request->request(), principal);
                  if (!validation.ok()) return PrefixField(validation.status(), "request");
                  v1::CreateValidationResponse created;
                  *created.mutable_validation() = *std::move(validation);
                  return created;
                });
}

grpc::ServerUnaryReactor* ValidationService::GetValidation(grpc::CallbackServerContext* context,
                                                           const v1::GetValidationRequest* request,
                                                           v1::GetValidationResponse* response) {
  return Answer(
      context, "GetValidation", tokens_, calls_, request, response,
      [this, request](const std::string& principal) -> absl::StatusOr<v1::GetValidationResponse> {
        absl::StatusOr<v1::Validation> validation = validations_.Get(request->name(), principal);
        if (!validation.ok()) return validation.status();
        v1::GetValidationResponse found;
        *found.mutable_validation() = *std::move(validation);
        return found;
      });
}

grpc::ServerUnaryReactor* ValidationService::ListValidations(
    grpc::CallbackServerContext* context, const v1::ListValidationsRequest* request,
    v1::ListValidationsResponse* response) {
  return Answer(context, "ListValidations", tokens_, calls_, request, response,
                [this, request](const std::string& principal) {
                  return validations_.List(*request, principal);
                });
}

grpc::ServerUnaryReactor* ValidationService::CancelValidation(
    grpc::CallbackServerContext* context, const v1::CancelValidationRequest* request,
    v1::CancelValidationResponse* response) {
  return Answer(context, "CancelValidation", tokens_, calls_, request, response,
                [this, request](
                    const std::string& principal) -> absl::StatusOr<v1::CancelValidationResponse> {
                  absl::StatusOr<v1::Validation> validation =
                      validations_.Cancel(request->name(), principal);
                  if (!validation.ok()) return validation.status();
                  v1::CancelValidationResponse cancelled;
                  *cancelled.mutable_validation() = *std::move(validation);
                  return cancelled;
                });
}

grpc::ServerUnaryReactor* ValidationService::DeleteValidation(
    grpc::CallbackServerContext* context, const v1::DeleteValidationRequest* request,
    v1::DeleteValidationResponse* response) {
  return Answer(
      context, "DeleteValidation", tokens_, calls_, request, response,
      [this,
       request](const std::string& principal) -> absl::StatusOr<v1::DeleteValidationResponse> {
        if (absl::Status status = validations_.Delete(request->name(), principal); !status.ok()) {
          return status;
        }
        return v1::DeleteValidationResponse();
      });
}

grpc::ServerWriteReactor<v1::WatchValidationResponse>* ValidationService::WatchValidation(
    grpc::CallbackServerContext* context, const v1::WatchValidationRequest* request) {
  return Authenticated<grpc::ServerWriteReactor<v1::WatchValidationResponse>>(
      context, "WatchValidation", tokens_,
      [&](const std::string& principal) -> grpc::ServerWriteReactor<v1::WatchValidationResponse>* {
        absl::StatusOr<WatchStreamSlots::Slot> slot = watch_slots_.Take(principal);
        if (!slot.ok()) {
          return Refuse<grpc::ServerWriteReactor<v1::WatchValidationResponse>>(
              context, "WatchValidation", slot.status());
        }
        return new ValidationStreamReactor<v1::WatchValidationResponse>(
            context, request->name(), principal, validations_, calls_, std::move(*slot));
      });
}

grpc::ServerUnaryReactor* ValidationService::ComputeTwed(grpc::CallbackServerContext* context,
                                                         const v1::ComputeTwedRequest* request,
                                                         v1::ComputeTwedResponse* response) {
  // No session is involved, but computing still needs a valid token.
  return Authenticated<grpc::ServerUnaryReactor>(
      context, "ComputeTwed", tokens_, [&](const std::string& principal) {
        return new TwedReactor(context, request, response, validation_limits_, jobs_, store_,
                               principal);
      });
}

}  // namespace wasserwarp::service
