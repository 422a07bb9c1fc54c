#include "twed_reactor.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "convert.h"
#include "status.h"
#include "wasserwarp/prepare.h"
#include "wasserwarp/twed.h"
#include "wasserwarp/validation.h"

namespace wasserwarp::service {
namespace {

// Series named after their field when the caller gives no id, so errors
// still say which one is at fault.
absl::StatusOr<Series> InlineRun(const v1::InlineSeries& run, const char* field) {
  if (run.series_id().empty()) {
    v1::InlineSeries named = run;
    named.set_series_id(field);
    return wire::SeriesFromInline(named);
  }
  return wire::SeriesFromInline(run);
}

}  // namespace

TwedReactor::TwedReactor(grpc::CallbackServerContext* context,
                         const v1::ComputeTwedRequest* request, v1::ComputeTwedResponse* response,
                         const SessionLimits& limits, JobQueue& jobs)
    : request_(request),
      response_(response),
      limits_(limits),
      jobs_(jobs),
      log_(context, "ComputeTwed") {
  log_.Received(request->ByteSizeLong());
  if (absl::Status status = CheckSize(); !status.ok()) {
    Complete(status);
    return;
  }
  absl::StatusOr<uint64_t> job_id;
  {
    // Keeps OnCancel from reading job_id_ before it is set; the job never needs it.
    absl::MutexLock lock(&mu_);
    job_id = jobs_.Submit({
        .label = absl::StrFormat("ComputeTwed: %d x %d samples", request->a().times_size(),
                                 request->b().times_size()),
        .group = "",
        .run = [this](const CancellationToken& cancel) { return Run(cancel); },
        .dropped =
            [this] { Complete(absl::CancelledError("ComputeTwed cancelled before it started")); },
    });
    if (job_id.ok()) job_id_ = *job_id;
  }
  if (!job_id.ok()) Complete(job_id.status());
}

absl::Status TwedReactor::CheckSize() const {
  for (const auto& [run, field] :
       {std::pair{&request_->a(), "a"}, std::pair{&request_->b(), "b"}}) {
    if (run->times_size() > limits_.max_samples_per_run) {
      return absl::ResourceExhaustedError(
          absl::StrCat("run ", field, " has ", run->times_size(), " samples, over the limit of ",
                       limits_.max_samples_per_run, " samples per run (--max_samples_per_run)"));
    }
  }
  return absl::OkStatus();
}

JobOutcome TwedReactor::Run(const CancellationToken& cancel) {
  // Prepared exactly as the CLI's `twed` prepares its two files: a is the
  // simulated run, b the reference, channels selected and aligned, no scaling.
  ValidationOptions options;
  absl::Status status = wire::ApplyParameters(request_->parameters(), options);
  options.prepare.scale = Scale::kNone;
  JobOutcome outcome;
  absl::StatusOr<Series> a = InlineRun(request_->a(), "a");
  absl::StatusOr<Series> b = InlineRun(request_->b(), "b");
  if (status.ok()) status = ValidateTwedParams(options.twed);
  if (status.ok()) status = a.status();
  if (status.ok()) status = b.status();
  if (status.ok()) {
    outcome.cells_total = TwedCells(*a, *b);
    absl::StatusOr<PreparedRuns> runs =
        PrepareRuns({*std::move(a)}, {*std::move(b)}, options.prepare);
    status = runs.status();
    if (runs.ok()) {
      absl::StatusOr<EditPathSummary> path =
          TwedWithPath(runs->simulation[0], runs->reference[0], options.twed, &cancel);
      status = path.status();
      if (path.ok()) {
        outcome.cells_done = outcome.cells_total;
        response_->set_twed(path->distance);
        response_->set_matches(static_cast<int64_t>(path->matches));
        response_->set_a_deletions(static_cast<int64_t>(path->a_deletions));
        response_->set_b_deletions(static_cast<int64_t>(path->b_deletions));
        response_->set_mean_time_shift(path->mean_time_shift);
      }
    }
  }
  outcome.status = status;
  Complete(status);
  return outcome;
}

void TwedReactor::Complete(const absl::Status& status) {
  const grpc::Status result = ToGrpcStatus(status);
  if (result.ok()) log_.Sent(response_->ByteSizeLong());
  log_.Done(result);
  Finish(result);
}

void TwedReactor::OnCancel() {
  std::optional<uint64_t> job_id;
  {
    absl::MutexLock lock(&mu_);
    job_id = job_id_;
  }
  if (job_id.has_value()) jobs_.Cancel(*job_id);
}

void TwedReactor::OnDone() { delete this; }

}  // namespace wasserwarp::service
