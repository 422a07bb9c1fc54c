#include "validate_reactor.h"

#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/time.h"
#include "validation_job.h"
#include "wire/convert.h"
#include "wire/resource_names.h"
#include "wire/status_to_grpc.h"

namespace wasserwarp::service {
namespace {

// Under the contract's 250 ms, with room for a loaded machine.
constexpr absl::Duration kProgressInterval = absl::Milliseconds(200);
constexpr int kCostMatrixProgressMs = 50;

}  // namespace

ValidateReactor::ValidateReactor(grpc::CallbackServerContext* context,
                                 const v1::ValidateRequest& request, const std::string& principal,
                                 SessionStore& store, JobQueue& jobs,
                                 const ValidationLimits& limits)
    : store_(store),
      jobs_(jobs),
      limits_(limits),
      start_time_(absl::Now()),
      log_(context, "Validate") {
  {
    absl::MutexLock lock(&mu_);
    // The constructor holds the reactor too, until it is done with it.
    refs_ = 2;
    log_.Received(request.ByteSizeLong());
    progress_.set_phase(v1::PHASE_QUEUED);
    next_progress_ = start_time_;
  }
  absl::Status started = Start(request, principal);
  Action action;
  {
    absl::MutexLock lock(&mu_);
    if (!started.ok()) result_ = std::move(started);
    action = NextAction(/*alarm_fired=*/false);
  }
  Execute(action);
  Unref();
}

absl::Status ValidateReactor::Start(const v1::ValidateRequest& request,
                                    const std::string& principal) {
  absl::StatusOr<std::string> id = wire::SessionIdFromName(request.session(), "session");
  if (!id.ok()) return id.status();
  absl::StatusOr<SessionSnapshot> snapshot = store_.Snapshot(*id, principal);
  if (!snapshot.ok()) return snapshot.status();
  snapshot_ = *std::move(snapshot);

  absl::StatusOr<ValidationJob> prepared = PrepareValidationJob(request, snapshot_, limits_);
  if (!prepared.ok()) return prepared.status();
  job_ = *std::move(prepared);
  job_.options.compute.max_threads = jobs_.threads_per_job();
  job_.options.compute.progress_interval_ms = kCostMatrixProgressMs;

  const uint64_t pairs = snapshot_.simulation.size() * snapshot_.reference.size();
  // From the runs as the job will compute them, resampled where asked.
  const uint64_t cells = job_.size.dp_cells;
  {
    absl::MutexLock lock(&mu_);
    progress_.set_pairs_total(static_cast<int64_t>(pairs));
    progress_.set_cells_total(static_cast<int64_t>(cells));
    ++refs_;  // the job's
  }
  Job job{
      .label =
          absl::StrFormat("Validate %s: %d x %d runs, %d cells", wire::SessionName(snapshot_.id),
                          snapshot_.simulation.size(), snapshot_.reference.size(), cells),
      .group = snapshot_.id,
      .run = [this](const CancellationToken& cancel) { return Run(cancel); },
      .dropped =
          [this] {
            snapshot_.lease.Reset();
            Complete(absl::CancelledError("validation cancelled before it started"));
          },
  };
  absl::StatusOr<uint64_t> job_id = jobs_.Submit(std::move(job));
  bool cancelled = false;
  {
    absl::MutexLock lock(&mu_);
    if (!job_id.ok()) {
      --refs_;
      return job_id.status();
    }
    job_id_ = *job_id;
    cancelled = cancelled_;
  }
  if (cancelled) jobs_.Cancel(*job_id);
  return absl::OkStatus();
}

JobOutcome ValidateReactor::Run(const CancellationToken& cancel) {
  {
    absl::MutexLock lock(&mu_);
    progress_.set_phase(v1::PHASE_PREPARING);
  }
  job_.options.compute.cancel = &cancel;
  job_.options.compute.progress = [this](const CostMatrixProgress& progress) {
    absl::MutexLock lock(&mu_);
    progress_.set_pairs_done(static_cast<int64_t>(progress.pairs_done));
    progress_.set_pairs_total(static_cast<int64_t>(progress.pairs_total));
    progress_.set_cells_done(static_cast<int64_t>(progress.cells_done));
    progress_.set_cells_total(static_cast<int64_t>(progress.cells_total));
  };
  job_.options.verdict_progress = [this](const ResamplingProgress& progress) {
    absl::MutexLock lock(&mu_);
    progress_.set_resamples_done(static_cast<int64_t>(progress.done));
    progress_.set_resamples_total(static_cast<int64_t>(progress.total));
  };
  job_.options.on_phase = [this](ValidationPhase phase) {
    absl::MutexLock lock(&mu_);
    progress_.set_phase(wire::ToProto(phase));
  };
  absl::StatusOr<v1::ValidationReport> report =
      // The session could expire once the core is done; that counts as its last use.
      RunValidationJob(job_, snapshot_, [this] { snapshot_.lease.Reset(); });

  JobOutcome outcome{.status = report.status()};
  bool client_cancelled = false;
  {
    absl::MutexLock lock(&mu_);
    outcome.cells_done = static_cast<uint64_t>(progress_.cells_done());
    outcome.cells_total = static_cast<uint64_t>(progress_.cells_total());
    client_cancelled = cancelled_;
  }
  absl::Status status = report.status();
  if (report.ok()) {
    report_stream_ = wire::ReportStream(*std::move(report));
  } else if (absl::IsCancelled(status) && !client_cancelled) {
    status = absl::CancelledError(absl::StrCat("session ", wire::SessionName(snapshot_.id),
                                               " was deleted during the validation"));
  }
  Complete(std::move(status));
  return outcome;
}

void ValidateReactor::Complete(absl::Status status) {
  grpc::Alarm* pending_alarm = nullptr;
  Action action;
  {
    absl::MutexLock lock(&mu_);
    result_ = std::move(status);
    if (alarm_pending_) pending_alarm = alarm_.get();
    action = NextAction(/*alarm_fired=*/false);
  }
  Execute(action);
  // The report goes out now rather than when the alarm would have fired. No
  // alarm is armed once a result is set, so this one outlives the call.
  if (pending_alarm != nullptr) pending_alarm->Cancel();
  Unref();
}

void ValidateReactor::OnWriteDone(bool ok) {
  Action action;
  {
    absl::MutexLock lock(&mu_);
    write_in_flight_ = false;
    if (!ok) stream_broken_ = true;
    action = NextAction(/*alarm_fired=*/false);
  }
  Execute(action);
  if (!ok) CancelJob();
}

void ValidateReactor::OnCancel() {
  {
    absl::MutexLock lock(&mu_);
    cancelled_ = true;
  }
  CancelJob();
}

void ValidateReactor::OnDone() { Unref(); }

void ValidateReactor::OnAlarm() {
  Action action;
  {
    absl::MutexLock lock(&mu_);
    alarm_pending_ = false;
    action = NextAction(/*alarm_fired=*/true);
  }
  Execute(action);
  Unref();
}

ValidateReactor::Action ValidateReactor::NextAction(bool alarm_fired) {
  if (finished_ || write_in_flight_) return {};
  if (result_.has_value()) {
    // The report and its chunks go out one write at a time; the last one ends the call.
    if (result_->ok() && !stream_broken_ && !cancelled_) {
      report_stream_.Next(event_);
      log_.Sent(event_.ByteSizeLong());
      if (!report_stream_.done()) {
        write_in_flight_ = true;
        return {.kind = Action::kWrite, .status = grpc::Status::OK};
      }
      finished_ = true;
      log_.Done(grpc::Status::OK);
      return {.kind = Action::kWriteAndFinish, .status = grpc::Status::OK};
    }
    finished_ = true;
    const grpc::Status status = wire::ToGrpcStatus(
        result_->ok()
            ? absl::CancelledError(cancelled_ ? "the call was cancelled" : "the stream broke")
            : *result_);
    log_.Done(status);
    return {.kind = Action::kFinish, .status = status};
  }
  // A broken stream waits for the cancelled job's result.
  if (stream_broken_) return {};
  const absl::Time now = absl::Now();
  if (alarm_fired || now >= next_progress_) {
    v1::ValidateProgress* progress = event_.mutable_progress();
    *progress = progress_;
    *progress->mutable_elapsed() = wire::ToProtoDuration(now - start_time_);
    next_progress_ = now + kProgressInterval;
    write_in_flight_ = true;
    log_.Sent(event_.ByteSizeLong());
    return {.kind = Action::kWrite, .status = grpc::Status::OK};
  }
  if (alarm_pending_) return {};
  alarm_pending_ = true;
  ++refs_;
  alarm_ = std::make_unique<grpc::Alarm>();
  return {.kind = Action::kArmAlarm, .status = grpc::Status::OK};
}

void ValidateReactor::Execute(const Action& action) {
  switch (action.kind) {
    case Action::kNone:
      return;
    case Action::kWrite:
      StartWrite(&event_);
      return;
    case Action::kWriteAndFinish:
      StartWriteAndFinish(&event_, grpc::WriteOptions(), grpc::Status::OK);
      return;
    case Action::kFinish:
      Finish(action.status);
      return;
    case Action::kArmAlarm: {
      grpc::Alarm* alarm = nullptr;
      absl::Time deadline;
      {
        absl::MutexLock lock(&mu_);
        alarm = alarm_.get();
        deadline = next_progress_;
      }
      alarm->Set(absl::ToChronoTime(deadline), [this](bool /*fired*/) { OnAlarm(); });
      return;
    }
  }
}

void ValidateReactor::CancelJob() {
  std::optional<uint64_t> job_id;
  {
    absl::MutexLock lock(&mu_);
    job_id = job_id_;
  }
  if (job_id.has_value()) jobs_.Cancel(*job_id);
}

void ValidateReactor::Unref() {
  bool last = false;
  {
    absl::MutexLock lock(&mu_);
    last = --refs_ == 0;
  }
  if (last) delete this;
}

}  // namespace wasserwarp::service
