#include "rpc/twed_reactor.h"

#include <string_view>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "wasserwarp/field_error.h"
#include "wasserwarp/prepare.h"
#include "wasserwarp/twed.h"
#include "wasserwarp/validation.h"
#include "wire/convert.h"
#include "wire/parameters.h"
#include "wire/request_fields.h"
#include "wire/status_to_grpc.h"

namespace wasserwarp::service {
namespace {

// Series named after their field when the caller gives no id, so errors
// still say which one is at fault; errors name the field path (`a.times[3]`).
absl::StatusOr<Series> InlineRun(const v1::ComputeTwedRequest& request, const char* field) {
  const bool is_a = std::string_view(field) == "a";
  if (!(is_a ? request.has_a() : request.has_b())) {
    return InvalidFieldError(field, "is missing: ComputeTwed needs both runs, a and b");
  }
  v1::InlineSeries run = is_a ? request.a() : request.b();
  if (run.series_id().empty()) run.set_series_id(field);
  absl::StatusOr<Series> series = wire::SeriesFromInline(run);
  if (!series.ok()) return PrefixField(series.status(), field);
  return series;
}

// Times and values, 8 bytes each.
int64_t SampleBytes(const Series& run) {
  return static_cast<int64_t>(run.samples() * (1 + run.num_channels()) * sizeof(double));
}

}  // namespace

TwedReactor::TwedReactor(grpc::CallbackServerContext* context,
                         const v1::ComputeTwedRequest* request, v1::ComputeTwedResponse* response,
                         const ValidationLimits& limits, JobQueue& jobs, SessionStore& sessions,
                         const std::string& principal)
    : response_(response),
      jobs_(jobs),
      sessions_(sessions),
      principal_(principal),
      log_(context, "ComputeTwed") {
  log_.Received(request->ByteSizeLong());
  if (absl::Status status = Prepare(*request, limits); !status.ok()) {
    Complete(wire::InRequestTerms(status));
    return;
  }
  const int64_t bytes =
      static_cast<int64_t>(request->ByteSizeLong()) + 2 * (SampleBytes(a_) + SampleBytes(b_));
  if (absl::Status status = sessions_.ReserveJob(principal_, bytes); !status.ok()) {
    Complete(status);
    return;
  }
  reserved_bytes_ = bytes;
  absl::StatusOr<uint64_t> job_id;
  {
    // Keeps OnCancel from reading job_id_ before it is set; the job never needs it.
    absl::MutexLock lock(&mu_);
    job_id = jobs_.Submit({
        .label = absl::StrFormat("ComputeTwed: %d x %d samples", a_.samples(), b_.samples()),
        .group = "",
        .principal = principal_,
        .run = [this](const CancellationToken& cancel) { return Run(cancel); },
        .dropped =
            [this] { Complete(absl::CancelledError("ComputeTwed cancelled before it started")); },
    });
    if (job_id.ok()) job_id_ = *job_id;
  }
  if (!job_id.ok()) Complete(job_id.status());
}

absl::Status TwedReactor::Prepare(const v1::ComputeTwedRequest& request,
                                  const ValidationLimits& limits) {
  // Prepared exactly as the CLI's `twed` prepares its two files: a is the
  // simulated run, b the reference, channels selected and aligned, no scaling.
  if (absl::Status status = wire::ApplyParameters(request.parameters(), options_); !status.ok()) {
    return status;
  }
  options_.prepare.scale = Scale::kNone;
  if (absl::Status status = ValidateTwedParams(options_.twed); !status.ok()) return status;
  absl::StatusOr<Series> a = InlineRun(request, "a");
  if (!a.ok()) return a.status();
  absl::StatusOr<Series> b = InlineRun(request, "b");
  if (!b.ok()) return b.status();
  a_ = *std::move(a);
  b_ = *std::move(b);
  const std::vector<RunShape> simulation = {ShapeOf(a_)};
  const std::vector<RunShape> reference = {ShapeOf(b_)};
  if (absl::Status status = CheckValidationSize(simulation, reference, options_, limits);
      !status.ok()) {
    // The size of the runs themselves is that of the request's two runs.
    return ErrorField(status) == "runs" ? RenameField(status, "a") : status;
  }
  absl::StatusOr<ValidationSize> size =
      EstimateValidationSize(simulation, reference, options_, limits);
  if (!size.ok()) return size.status();
  cells_total_ = size->dp_cells;
  return absl::OkStatus();
}

JobOutcome TwedReactor::Run(const CancellationToken& cancel) {
  JobOutcome outcome;
  outcome.cells_total = cells_total_;
  absl::Status status;
  {
    // The prepared runs are freed before Complete hands their bytes back.
    absl::StatusOr<PreparedRuns> runs =
        PrepareRuns({std::move(a_)}, {std::move(b_)}, options_.prepare);
    status = runs.status();
    if (runs.ok()) {
      absl::StatusOr<EditPathSummary> path =
          TwedWithPath(runs->simulation[0], runs->reference[0], options_.twed, &cancel);
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
  status = wire::InRequestTerms(status);
  outcome.status = status;
  Complete(status);
  return outcome;
}

void TwedReactor::Complete(const absl::Status& status) {
  // Released before Finish: once the client has its answer, its next call must find the bytes
  // free, and OnDone runs only some time after the answer has left.
  if (reserved_bytes_ > 0) {
    sessions_.ReleaseJob(principal_, reserved_bytes_);
    reserved_bytes_ = 0;
  }
  const grpc::Status result = wire::ToGrpcStatus(status);
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
