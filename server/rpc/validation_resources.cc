#include "rpc/validation_resources.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "absl/random/random.h"
#include "absl/strings/escaping.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "jobs/job_queue.h"
#include "jobs/validation_job.h"
#include "rpc/session_proto.h"
#include "wasserwarp/field_error.h"
#include "wasserwarp/run_checksum.h"
#include "wire/convert.h"
#include "wire/parameters.h"
#include "wire/resource_names.h"

namespace wasserwarp::service {
namespace {

constexpr int kDefaultPageSize = 50;
constexpr int kMaxPageSize = 1000;

absl::Status NotFound(const std::string& session_id, const std::string& id) {
  return absl::NotFoundError(
      absl::StrCat("validation ", wire::ValidationName(session_id, id), " not found"));
}

// Page tokens are the store's key of the last validation of the previous page, opaque to
// clients.
std::string PageToken(int64_t key) { return absl::WebSafeBase64Escape(absl::StrCat(key)); }

absl::StatusOr<int64_t> KeyFromPageToken(const std::string& token) {
  std::string text;
  int64_t key = 0;
  if (!absl::WebSafeBase64Unescape(token, &text) || !absl::SimpleAtoi(text, &key) || key <= 0) {
    return InvalidFieldError("page_token",
                             absl::StrCat("\"", token, "\" is not one this service issued"));
  }
  return key;
}

v1::Validation ToProto(const ValidationRecord& record) {
  v1::Validation validation;
  validation.set_name(wire::ValidationName(record.session_id, record.id));
  validation.set_state(static_cast<v1::ValidationState>(record.state));
  validation.mutable_request()->ParseFromString(record.request);
  validation.mutable_effective_parameters()->ParseFromString(record.effective_parameters);
  for (const ValidatedRun& run : record.runs) {
    v1::ValidatedRun* out = validation.add_runs();
    out->set_series_id(run.series_id);
    out->set_role(service::ToProto(run.role));
    out->set_checksum(absl::StrFormat("%016x", run.checksum));
  }
  validation.set_principal(record.owner);
  *validation.mutable_create_time() = wire::ToProtoTime(record.create_time);
  if (record.start_time.has_value()) {
    *validation.mutable_start_time() = wire::ToProtoTime(*record.start_time);
  }
  if (record.end_time.has_value()) {
    *validation.mutable_end_time() = wire::ToProtoTime(*record.end_time);
  }
  validation.set_attempts(record.attempts);
  if (!IsFinal(record.state) && !record.progress.empty()) {
    validation.mutable_progress()->ParseFromString(record.progress);
  }
  if ((record.state == ValidationState::kFailed || record.state == ValidationState::kCancelled) &&
      !record.error.ok()) {
    validation.mutable_error()->set_code(static_cast<int32_t>(record.error.code()));
    validation.mutable_error()->set_message(std::string(record.error.message()));
  }
  return validation;
}

std::string NewValidationId() {
  absl::BitGen gen;
  return absl::StrFormat("%016x", absl::Uniform<uint64_t>(gen));
}

}  // namespace

void LeaveOutBulkyParts(v1::ValidationReport& report) {
  report.mutable_cost_matrix()->clear_values();
  report.mutable_pooled_cost_matrix()->clear_values();
  if (!report.cost_matrix().rows()) report.clear_cost_matrix();
  if (!report.pooled_cost_matrix().rows()) report.clear_pooled_cost_matrix();
  report.clear_html_report();
}

ValidationResources::ValidationResources(SessionStore& sessions, ValidationStore& validations,
                                         ValidationWorker& worker, const JobLimits& jobs,
                                         const ValidationLimits& limits)
    : sessions_(sessions),
      validations_(validations),
      worker_(worker),
      jobs_(jobs),
      limits_(limits) {}

absl::StatusOr<v1::Validation> ValidationResources::Create(const v1::ValidateRequest& request,
                                                           const std::string& principal) {
  absl::StatusOr<std::string> session_id = wire::SessionIdFromName(request.session(), "session");
  if (!session_id.ok()) return session_id.status();
  absl::StatusOr<SessionSnapshot> snapshot = sessions_.Snapshot(*session_id, principal);
  if (!snapshot.ok()) return snapshot.status();
  absl::StatusOr<ValidationJob> job = PrepareValidationJob(request, *snapshot, limits_);
  if (!job.ok()) return job.status();
  absl::StatusOr<int64_t> queued = validations_.CountQueued();
  if (!queued.ok()) return queued.status();
  // A free slot here takes the new one at once, so the capacity is the slots plus the queue, as
  // on the job queue.
  const int64_t free_slots = std::max(0, jobs_.max_concurrent_jobs - worker_.running());
  if (*queued - free_slots >= jobs_.max_queued_jobs) {
    return QueueFullError(worker_.running(), *queued, jobs_);
  }

  ValidationRecord record;
  record.session_key = snapshot->key;
  record.session_id = *session_id;
  record.id = NewValidationId();
  record.owner = principal;
  record.state = ValidationState::kQueued;
  record.request = request.SerializeAsString();
  record.effective_parameters = wire::ToProto(job->parameters).SerializeAsString();
  for (const std::vector<StoredRun>* group : {&snapshot->simulation, &snapshot->reference}) {
    for (const StoredRun& run : *group) {
      record.runs.push_back(ValidatedRun{
          .series_id = run.series->id, .role = run.role, .checksum = RunChecksum(*run.series)});
    }
  }
  v1::ValidateProgress queued_progress;
  queued_progress.set_phase(v1::PHASE_QUEUED);
  queued_progress.set_pairs_total(
      static_cast<int64_t>(snapshot->simulation.size() * snapshot->reference.size()));
  queued_progress.set_cells_total(static_cast<int64_t>(job->size.dp_cells));
  record.progress = queued_progress.SerializeAsString();
  record.create_time = absl::Now();
  // Handed to the worker before it can claim the validation, so that a claim finds it.
  worker_.Queued(record.session_key, record.id,
                 PreparedValidation{.snapshot = *std::move(snapshot), .job = *std::move(job)});
  if (absl::Status status = validations_.Insert(record); !status.ok()) {
    worker_.Cancel(record.session_key, record.id, status);
    return status;
  }
  worker_.Wake();
  return ToProto(record);
}

absl::StatusOr<ValidationHandle> ValidationResources::Find(const std::string& name,
                                                           const std::string& principal) {
  absl::StatusOr<wire::ValidationIds> ids = wire::ValidationIdsFromName(name, "name");
  if (!ids.ok()) return ids.status();
  absl::StatusOr<SessionRef> session = sessions_.Open(ids->session_id, principal);
  if (absl::IsNotFound(session.status())) return NotFound(ids->session_id, ids->validation_id);
  if (!session.ok()) return session.status();
  return ValidationHandle{
      .session_key = session->key, .session_id = ids->session_id, .id = ids->validation_id};
}

absl::StatusOr<v1::Validation> ValidationResources::Read(const ValidationHandle& handle,
                                                         bool with_report) {
  absl::StatusOr<ValidationRecord> record =
      validations_.Get(handle.session_key, handle.id, with_report);
  if (absl::IsNotFound(record.status())) return NotFound(handle.session_id, handle.id);
  if (!record.ok()) return record.status();
  v1::Validation validation = ToProto(*record);
  if (with_report && record->state == ValidationState::kSucceeded) {
    if (!validation.mutable_report()->ParseFromString(record->report)) {
      return absl::DataLossError(
          absl::StrCat("the stored report of ", validation.name(), " does not parse"));
    }
    LeaveOutBulkyParts(*validation.mutable_report());
  }
  return validation;
}

absl::StatusOr<v1::ValidationReport> ValidationResources::FullReport(
    const ValidationHandle& handle) {
  absl::StatusOr<ValidationRecord> record =
      validations_.Get(handle.session_key, handle.id, /*with_report=*/true);
  if (absl::IsNotFound(record.status())) return NotFound(handle.session_id, handle.id);
  if (!record.ok()) return record.status();
  v1::ValidationReport report;
  if (record->state != ValidationState::kSucceeded || !report.ParseFromString(record->report)) {
    return absl::DataLossError(absl::StrCat("the stored report of ",
                                            wire::ValidationName(handle.session_id, handle.id),
                                            " does not parse"));
  }
  return report;
}

std::optional<v1::ValidateProgress> ValidationResources::LocalProgress(
    const ValidationHandle& handle) const {
  return worker_.Progress(handle.session_key, handle.id);
}

absl::StatusOr<v1::Validation> ValidationResources::Get(const std::string& name,
                                                        const std::string& principal) {
  absl::StatusOr<ValidationHandle> handle = Find(name, principal);
  if (!handle.ok()) return handle.status();
  return Read(*handle, /*with_report=*/true);
}

absl::StatusOr<v1::ListValidationsResponse> ValidationResources::List(
    const v1::ListValidationsRequest& request, const std::string& principal) {
  absl::StatusOr<std::string> session_id = wire::SessionIdFromName(request.parent(), "parent");
  if (!session_id.ok()) return session_id.status();
  if (request.page_size() < 0) {
    return InvalidFieldError("page_size",
                             absl::StrCat("must not be negative, got ", request.page_size()));
  }
  if (!v1::ValidationState_IsValid(request.state())) {
    return InvalidFieldError("state", absl::StrCat("is not a ValidationState: ", request.state()));
  }
  const int page_size =
      request.page_size() == 0 ? kDefaultPageSize : std::min(request.page_size(), kMaxPageSize);
  std::optional<int64_t> before;
  if (!request.page_token().empty()) {
    absl::StatusOr<int64_t> key = KeyFromPageToken(request.page_token());
    if (!key.ok()) return key.status();
    before = *key;
  }
  absl::StatusOr<SessionRef> session = sessions_.Open(*session_id, principal);
  if (!session.ok()) return session.status();
  std::optional<ValidationState> state;
  if (request.state() != v1::VALIDATION_STATE_UNSPECIFIED) {
    state = static_cast<ValidationState>(request.state());
  }
  absl::StatusOr<ValidationPage> page = validations_.List(session->key, state, before, page_size);
  if (!page.ok()) return page.status();
  v1::ListValidationsResponse response;
  for (const ValidationRecord& record : page->validations) {
    *response.add_validations() = ToProto(record);
  }
  if (page->next_key.has_value()) response.set_next_page_token(PageToken(*page->next_key));
  return response;
}

absl::StatusOr<v1::Validation> ValidationResources::CancelWith(const ValidationHandle& handle,
                                                               const absl::Status& reason) {
  absl::StatusOr<ValidationRecord> record =
      validations_.RequestCancel(handle.session_key, handle.id, reason, absl::Now());
  if (absl::IsNotFound(record.status())) return NotFound(handle.session_id, handle.id);
  if (!record.ok()) return record.status();
  // A job running here stops now rather than at its next renewal.
  worker_.Cancel(handle.session_key, handle.id, reason);
  return ToProto(*record);
}

absl::StatusOr<v1::Validation> ValidationResources::Cancel(const std::string& name,
                                                           const std::string& principal) {
  absl::StatusOr<ValidationHandle> handle = Find(name, principal);
  if (!handle.ok()) return handle.status();
  return CancelWith(*handle, absl::CancelledError("the validation was cancelled"));
}

void ValidationResources::SessionDeleted(int64_t session_key) {
  worker_.ForgetSession(session_key);
  // Running jobs are the session's group on the job queue, which the service cancels.
  if (absl::Status status = validations_.DeleteSession(session_key); !status.ok()) {
    // The next sweep removes them.
    spdlog::warn("the validations of a deleted session stay until the next sweep: {}",
                 status.ToString());
  }
}

int64_t ValidationResources::DropExpired() {
  absl::StatusOr<int64_t> dropped = validations_.DeleteAllBut(sessions_.Keys());
  if (dropped.ok()) return *dropped;
  spdlog::warn("the validations of expired sessions stay until the next sweep: {}",
               dropped.status().ToString());
  return 0;
}

}  // namespace wasserwarp::service
