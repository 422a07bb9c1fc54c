#include "rpc/validation_stream_reactor.h"

#include <algorithm>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "wire/convert.h"
#include "wire/resource_names.h"
#include "wire/status_to_grpc.h"

namespace wasserwarp::service {
namespace {

// Under the contract's 250 ms, with room for a loaded machine.
constexpr absl::Duration kProgressInterval = absl::Milliseconds(200);
// The store is read this often while the validation runs here (its own progress is at hand).
constexpr absl::Duration kLocalReadInterval = absl::Seconds(1);
// And as often otherwise: its end wakes the stream at once, so these reads only bring
// another replica's progress (which its worker records about every second, as the API
// promises watchers) and catch an end whose notification was lost.
constexpr absl::Duration kRemoteReadInterval = absl::Seconds(1);

absl::Status ErrorOf(const v1::Validation& validation) {
  return absl::Status(static_cast<absl::StatusCode>(validation.error().code()),
                      validation.error().message());
}

}  // namespace

template <class Response>
ValidationStreamReactor<Response>::ValidationStreamReactor(grpc::CallbackServerContext* context,
                                                           const v1::ValidateRequest* request,
                                                           const std::string& principal,
                                                           ValidationResources& resources,
                                                           CallPool& pool)
    : resources_(resources), pool_(pool), log_(context, "Validate"), call_start_(absl::Now()) {
  log_.Principal(principal);
  log_.Resource(request->session());
  log_.Received(request->ByteSizeLong());
  origin_ = call_start_;
  Start([this, request, principal] {
    absl::StatusOr<v1::Validation> created = resources_.Create(*request, principal);
    if (created.ok()) log_.Resource(created->name());
    Follow(created.ok() ? resources_.Find(created->name(), principal) : created.status());
  });
}

template <class Response>
ValidationStreamReactor<Response>::ValidationStreamReactor(
    grpc::CallbackServerContext* context, const std::string& name, const std::string& principal,
    ValidationResources& resources, CallPool& pool, WatchStreamSlots::Slot slot)
    : resources_(resources),
      pool_(pool),
      slot_(std::move(slot)),
      log_(context, "WatchValidation"),
      call_start_(absl::Now()) {
  log_.Principal(principal);
  log_.Resource(name);
  log_.Received(name.size());
  origin_ = call_start_;
  Start([this, name, principal] { Follow(resources_.Find(name, principal)); });
}

template <class Response>
void ValidationStreamReactor<Response>::Start(std::function<void()> first) {
  {
    absl::MutexLock lock(&mu_);
    ++refs_;
  }
  const absl::Status queued = pool_.Post([this, first = std::move(first)] {
    first();
    Unref();
  });
  if (!queued.ok()) {
    End(queued);
    Unref();
  }
}

template <class Response>
void ValidationStreamReactor<Response>::Follow(absl::StatusOr<ValidationHandle> handle) {
  if (!handle.ok()) {
    End(handle.status());
    return;
  }
  handle_ = *std::move(handle);
  end_signal_ = std::make_shared<ValidationEndSignal>([this] { WakeUp(); });
  resources_.Listen(*handle_, end_signal_);
  progress_.set_phase(v1::PHASE_QUEUED);
  Step();
}

template <class Response>
void ValidationStreamReactor<Response>::QueueStep() {
  {
    absl::MutexLock lock(&mu_);
    ++refs_;
  }
  pool_.PostNextStep([this] {
    Step();
    Unref();
  });
}

template <class Response>
void ValidationStreamReactor<Response>::Step() {
  absl::Status stop;
  {
    absl::MutexLock lock(&mu_);
    if (finished_) return;
    stop = stop_;
  }
  if (!stop.ok()) {
    Abandon();
    // gRPC has ended the call, or its stream broke; the status is for the log.
    End(stop);
    return;
  }
  if (ended_) {
    Write();
    return;
  }
  const absl::Time now = absl::Now();
  Poll(now);
  if (ended_) {
    Write();
    return;
  }
  {
    absl::MutexLock lock(&mu_);
    if (finished_) return;
  }
  if (now >= next_progress_) {
    next_progress_ = now + kProgressInterval;
    v1::ValidateProgress* progress = event_.mutable_progress();
    *progress = progress_;
    *progress->mutable_elapsed() = wire::ToProtoDuration(now - origin_);
    log_.Sent(event_.ByteSizeLong());
    this->StartWrite(&event_);
    return;
  }
  Arm(next_progress_);
}

template <class Response>
void ValidationStreamReactor<Response>::Poll(absl::Time now) {
  std::optional<v1::ValidateProgress> local = resources_.LocalProgress(*handle_);
  if (local.has_value()) progress_ = *std::move(local);
  bool read_now = false;
  {
    absl::MutexLock lock(&mu_);
    read_now = std::exchange(read_now_, false);
  }
  if (!read_now && now < next_read_) return;
  next_read_ = now + (local.has_value() ? kLocalReadInterval : kRemoteReadInterval);
  absl::StatusOr<v1::Validation> validation = resources_.Read(*handle_, /*with_report=*/false);
  if (absl::IsNotFound(validation.status()) && seen_ && kCreates) {
    End(absl::CancelledError(absl::StrCat("session ", wire::SessionName(handle_->session_id),
                                          " was deleted during the validation")));
    return;
  }
  if (!validation.ok()) {
    End(validation.status());
    return;
  }
  if (!seen_ && !kCreates) origin_ = wire::FromProtoTime(validation->create_time());
  seen_ = true;
  switch (validation->state()) {
    case v1::VALIDATION_STATE_QUEUED:
      progress_ = validation->progress();
      progress_.set_phase(v1::PHASE_QUEUED);
      return;
    case v1::VALIDATION_STATE_RUNNING:
      if (!local.has_value() && validation->has_progress()) progress_ = validation->progress();
      return;
    default:
      BeginEnding(*validation);
  }
}

template <class Response>
void ValidationStreamReactor<Response>::BeginEnding(const v1::Validation& validation) {
  ended_ = true;
  if (validation.state() == v1::VALIDATION_STATE_SUCCEEDED) {
    absl::StatusOr<v1::ValidationReport> report = resources_.FullReport(*handle_);
    if (!report.ok()) {
      End(report.status());
      return;
    }
    // Validate's answer has no Validation to carry the link in.
    if constexpr (kCreates) report->set_link(validation.link());
    report_stream_.emplace(*std::move(report));
  }
  if constexpr (kCreates) {
    if (!report_stream_.has_value()) End(ErrorOf(validation));
  } else {
    final_validation_ = validation;
  }
}

template <class Response>
void ValidationStreamReactor<Response>::Write() {
  v1::ValidateResponse message;
  const bool has_next = report_stream_.has_value() && report_stream_->Next(message);
  if constexpr (kCreates) {
    if (!has_next) {
      End(absl::OkStatus());
      return;
    }
    event_ = std::move(message);
  } else {
    if (final_validation_.has_value()) {
      // The report leads the stream; its chunks follow.
      event_.Clear();
      *event_.mutable_validation() = *std::move(final_validation_);
      final_validation_.reset();
      if (has_next)
        *event_.mutable_validation()->mutable_report() = std::move(*message.mutable_report());
    } else if (has_next) {
      *event_.mutable_chunk() = std::move(*message.mutable_chunk());
    } else {
      End(absl::OkStatus());
      return;
    }
  }
  log_.Sent(event_.ByteSizeLong());
  this->StartWrite(&event_);
}

template <class Response>
void ValidationStreamReactor<Response>::Arm(absl::Time deadline) {
  grpc::Alarm* alarm = nullptr;
  {
    absl::MutexLock lock(&mu_);
    if (!woken_ && stop_.ok()) {
      // A new alarm for each wait: an alarm cannot be set again from its own callback.
      alarm_ = std::make_shared<grpc::Alarm>();
      alarm = alarm_.get();
      alarm_pending_ = true;
      ++refs_;
    }
    woken_ = false;
  }
  if (alarm == nullptr) {
    // The validation ended, or the call stops, since the last look: no wait.
    Step();
    return;
  }
  alarm->Set(absl::ToChronoTime(deadline), [this](bool /*fired*/) {
    {
      absl::MutexLock lock(&mu_);
      alarm_pending_ = false;
      woken_ = false;
    }
    QueueStep();
    Unref();
  });
}

template <class Response>
void ValidationStreamReactor<Response>::WakeUp() {
  std::shared_ptr<grpc::Alarm> alarm;
  {
    absl::MutexLock lock(&mu_);
    woken_ = true;
    read_now_ = true;
    if (alarm_pending_) alarm = alarm_;
  }
  if (alarm != nullptr) alarm->Cancel();
}

template <class Response>
void ValidationStreamReactor<Response>::Stop(absl::Status reason) {
  std::shared_ptr<grpc::Alarm> alarm;
  {
    absl::MutexLock lock(&mu_);
    if (stop_.ok()) stop_ = std::move(reason);
    if (alarm_pending_) alarm = alarm_;
  }
  if (alarm != nullptr) alarm->Cancel();
}

template <class Response>
void ValidationStreamReactor<Response>::Unref() {
  bool last = false;
  {
    absl::MutexLock lock(&mu_);
    last = --refs_ == 0;
  }
  if (last) delete this;
}

template <class Response>
void ValidationStreamReactor<Response>::OnWriteDone(bool ok) {
  // The client is gone: the next step says so.
  if (!ok) Stop(absl::CancelledError("the stream broke"));
  QueueStep();
}

template <class Response>
void ValidationStreamReactor<Response>::OnCancel() {
  // A pending alarm's callback, a write's completion or the first step, whichever is due,
  // queues the step that ends the call.
  Stop(absl::CancelledError("the call was cancelled"));
}

template <class Response>
void ValidationStreamReactor<Response>::Abandon() {
  if constexpr (kCreates) {
    if (handle_.has_value() && !resources_.shutting_down()) {
      (void)resources_.CancelWith(*handle_, absl::CancelledError("the call was cancelled"));
    }
  }
}

template <class Response>
void ValidationStreamReactor<Response>::End(const absl::Status& status) {
  {
    absl::MutexLock lock(&mu_);
    if (finished_) return;
    finished_ = true;
  }
  const grpc::Status grpc_status = wire::ToGrpcStatus(status);
  log_.Done(grpc_status);
  this->Finish(grpc_status);
}

template <class Response>
void ValidationStreamReactor<Response>::OnDone() {
  // No wake-up reaches the reactor after this.
  if (end_signal_ != nullptr) end_signal_->Detach();
  Unref();
}

template class ValidationStreamReactor<v1::ValidateResponse>;
template class ValidationStreamReactor<v1::WatchValidationResponse>;

}  // namespace wasserwarp::service
