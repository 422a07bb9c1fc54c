#include "rpc/upload_reactor.h"

#include <utility>

#include "wire/status_to_grpc.h"

namespace wasserwarp::service {

UploadReactor::UploadReactor(grpc::CallbackServerContext* context,
                             v1::UploadSeriesResponse* response, std::string principal,
                             SessionStore& store, const SessionLimits& limits, CallPool& calls)
    : context_(context),
      calls_(calls),
      log_(context, "UploadSeries"),
      state_(store, limits, response, principal),
      response_(response) {
  log_.Principal(std::move(principal));
  StartRead(&request_);
}

void UploadReactor::OnReadDone(bool ok) {
  if (absl::Status queued = calls_.Post([this, ok] { HandleRead(ok); }); !queued.ok()) {
    Complete(queued);
  }
}

void UploadReactor::HandleRead(bool ok) {
  if (!ok) {
    Complete(context_->IsCancelled() ? absl::CancelledError("the client cancelled the upload")
                                     : state_.EndOfStream());
    return;
  }
  log_.Received(request_.ByteSizeLong());
  if (!request_.session().empty()) log_.Resource(request_.session());
  if (absl::Status status = state_.Handle(request_); !status.ok()) {
    Complete(status);
    return;
  }
  StartRead(&request_);
}

void UploadReactor::OnDone() { delete this; }

void UploadReactor::Complete(const absl::Status& status) {
  state_.Discard();
  const grpc::Status result = wire::ToGrpcStatus(status);
  if (result.ok()) log_.Sent(response_->ByteSizeLong());
  log_.Done(result);
  Finish(result);
}

}  // namespace wasserwarp::service
