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
#include "absl/strings/str_split.h"
#include "jobs/job_queue.h"
#include "jobs/validation_job.h"
#include "jobs/validation_outcome.h"
#include "ops/public_url.h"
#include "rpc/session_proto.h"
#include "rpc/validation_evidence.h"
#include "wasserwarp/field_error.h"
#include "wasserwarp/run_checksum.h"
#include "wasserwarp/user_text.h"
#include "wire/convert.h"
#include "wire/parameters.h"
#include "wire/resource_names.h"
#include "wire/status_to_grpc.h"

namespace wasserwarp::service {
namespace {

absl::Status NotFound(const std::string& session_id, const std::string& id) {
  return absl::NotFoundError(
      absl::StrCat("validation ", wire::ValidationName(session_id, id), " not found"));
}

// Page tokens are where the previous page ended in the listing's order (create time and key),
// opaque to clients.
std::string PageToken(const ValidationCursor& cursor) {
  return absl::WebSafeBase64Escape(absl::StrCat(cursor.create_time_ns, ":", cursor.key));
}

absl::StatusOr<ValidationCursor> CursorFromPageToken(const std::string& token) {
  std::string text;
  ValidationCursor cursor;
  std::vector<std::string> parts;
  if (absl::WebSafeBase64Unescape(token, &text)) parts = absl::StrSplit(text, ':');
  if (parts.size() != 2 || !absl::SimpleAtoi(parts[0], &cursor.create_time_ns) ||
      !absl::SimpleAtoi(parts[1], &cursor.key) || cursor.key <= 0) {
    return InvalidFieldError("page_token",
                             absl::StrCat(QuotedText(token), " is not one this service issued"));
  }
  return cursor;
}

// The parent `sessions/-` of ListValidations: every session of the caller.
constexpr char kEverySession[] = "sessions/-";

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
                                         const ValidationLimits& limits, absl::Duration retention,
                                         std::string public_url)
    : sessions_(sessions),
      validations_(validations),
      worker_(worker),
      jobs_(jobs),
      limits_(limits),
      retention_(retention),
      public_url_(std::move(public_url)) {}

v1::Validation ValidationResources::Answer(const ValidationRecord& record) const {
  v1::Validation validation = ToProto(record);
  validation.set_link(RecordLink(public_url_, validation.name()));
  return validation;
}

absl::StatusOr<v1::Validation> ValidationResources::Create(const v1::ValidateRequest& request,
                                                           const std::string& principal) {
  absl::StatusOr<std::string> session_id = wire::SessionIdFromName(request.session(), "session");
  if (!session_id.ok()) return session_id.status();
  absl::StatusOr<SessionSnapshot> snapshot = sessions_.Snapshot(*session_id, principal);
  if (absl::IsNotFound(snapshot.status())) {
    absl::StatusOr<std::optional<RecordedSession>> tombstone = Tombstone(*session_id, principal);
    if (!tombstone.ok()) return tombstone.status();
    if (tombstone->has_value()) {
      const std::string name = wire::SessionName(*session_id);
      return wire::WithPreconditionFailure(
          absl::FailedPreconditionError(absl::StrCat(
              "session ", name, " is ",
              (*tombstone)->state == RecordedSessionState::kDeleted ? "deleted" : "expired",
              ": its runs' samples are gone, and only its validation records are kept; upload "
              "the runs to a new session to validate them again")),
          "SESSION_ACTIVE", name);
    }
  }
  if (!snapshot.ok()) return snapshot.status();
  absl::StatusOr<SessionRecord> session = sessions_.Get(*session_id, principal);
  if (!session.ok()) return session.status();
  absl::StatusOr<ValidationJob> job = PrepareValidationJob(request, *snapshot, limits_);
  if (!job.ok()) return job.status();
  absl::StatusOr<QueuedCounts> queued = validations_.CountQueued(principal);
  if (!queued.ok()) return queued.status();
  // A free slot here takes the new one at once, so the capacity is the slots plus the queue, as
  // on the job queue.
  const int64_t free_slots = std::max(0, jobs_.max_concurrent_jobs - worker_.running());
  if (queued->all - free_slots >= jobs_.max_queued_jobs) {
    return QueueFullError(worker_.running(), queued->all, jobs_);
  }
  // Only queued ones count: the running ones are bounded by --max_running_jobs_per_principal.
  if (queued->of_owner >= jobs_.max_queued_jobs_per_principal) {
    return PrincipalQueueFullError(principal, queued->of_owner, jobs_);
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
  record.labels = job->labels;
  record.request_digest = job->request_digest;
  record.evidence = EvidenceOf(*snapshot, record.runs);
  v1::ValidateProgress queued_progress;
  queued_progress.set_phase(v1::PHASE_QUEUED);
  queued_progress.set_pairs_total(
      static_cast<int64_t>(snapshot->simulation.size() * snapshot->reference.size()));
  queued_progress.set_cells_total(static_cast<int64_t>(job->size.dp_cells));
  record.progress = queued_progress.SerializeAsString();
  record.create_time = absl::Now();
  record.events.push_back(ValidationEvent{.kind = ValidationEventKind::kCreate,
                                          .time = record.create_time,
                                          .principal = principal,
                                          .replica = ""});
  const RecordedSession kept = RecordedSessionOf(*session, snapshot->key, principal);
  // Handed to the worker before it can claim the validation, so that a claim finds it.
  worker_.Queued(record.session_key, record.id,
                 PreparedValidation{.snapshot = *std::move(snapshot), .job = *std::move(job)});
  if (absl::Status status = validations_.Insert(record, kept); !status.ok()) {
    worker_.Cancel(record.session_key, record.id, status);
    return status;
  }
  worker_.Wake();
  return Answer(record);
}

absl::StatusOr<ValidationHandle> ValidationResources::Find(const std::string& name,
                                                           const std::string& principal) {
  absl::StatusOr<wire::ValidationIds> ids = wire::ValidationIdsFromName(name, "name");
  if (!ids.ok()) return ids.status();
  absl::StatusOr<int64_t> session_key = SessionKey(ids->session_id, principal);
  if (absl::IsNotFound(session_key.status())) {
    return NotFound(ids->session_id, ids->validation_id);
  }
  if (!session_key.ok()) return session_key.status();
  return ValidationHandle{.session_key = *session_key,
                          .session_id = ids->session_id,
                          .id = ids->validation_id,
                          .principal = principal};
}

absl::StatusOr<v1::Validation> ValidationResources::Read(const ValidationHandle& handle,
                                                         bool with_report) {
  absl::StatusOr<v1::Validation> validation = ReadStored(handle, with_report);
  if (validation.ok() && validation->has_report()) {
    LeaveOutBulkyParts(*validation->mutable_report());
  }
  return validation;
}

absl::StatusOr<v1::Validation> ValidationResources::ReadWithFullReport(
    const ValidationHandle& handle) {
  return ReadStored(handle, /*with_report=*/true);
}

absl::StatusOr<v1::Validation> ValidationResources::ReadStored(const ValidationHandle& handle,
                                                               bool with_report) {
  absl::StatusOr<ValidationRecord> record =
      validations_.Get(handle.session_key, handle.id, with_report);
  if (absl::IsNotFound(record.status())) return NotFound(handle.session_id, handle.id);
  if (!record.ok()) return record.status();
  v1::Validation validation = Answer(*record);
  if (with_report && record->state == ValidationState::kSucceeded) {
    if (!validation.mutable_report()->ParseFromString(record->report)) {
      return absl::DataLossError(
          absl::StrCat("the stored report of ", validation.name(), " does not parse"));
    }
    // A record stored before outcomes were kept beside reports (a migrated database).
    if (!record->outcome.has_value()) {
      *validation.mutable_outcome() = ToProto(OutcomeOf(validation.report()));
    }
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
  ValidationQuery query;
  std::optional<std::string> session_id;
  if (request.parent() != kEverySession) {
    absl::StatusOr<std::string> id = wire::SessionIdFromName(request.parent(), "parent");
    if (!id.ok()) return id.status();
    session_id = *std::move(id);
  }
  if (request.page_size() < 0) {
    return InvalidFieldError("page_size",
                             absl::StrCat("must not be negative, got ", request.page_size()));
  }
  if (!v1::ValidationState_IsValid(request.state())) {
    return InvalidFieldError("state", absl::StrCat("is not a ValidationState: ", request.state()));
  }
  absl::StatusOr<ValidationFilter> filter = ParseValidationFilter(request.filter());
  if (!filter.ok()) return filter.status();
  query.filter = *std::move(filter);
  absl::StatusOr<ValidationOrder> order = ParseValidationOrder(request.order_by());
  if (!order.ok()) return order.status();
  query.order = *order;
  const int page_size =
      request.page_size() == 0 ? kDefaultPageSize : std::min(request.page_size(), kMaxPageSize);
  std::optional<ValidationCursor> after;
  if (!request.page_token().empty()) {
    absl::StatusOr<ValidationCursor> cursor = CursorFromPageToken(request.page_token());
    if (!cursor.ok()) return cursor.status();
    after = *cursor;
  }
  if (session_id.has_value()) {
    absl::StatusOr<int64_t> key = SessionKey(*session_id, principal);
    if (!key.ok()) return key.status();
    query.session_key = *key;
  } else {
    query.owner = principal;
  }
  if (request.state() != v1::VALIDATION_STATE_UNSPECIFIED) {
    query.state = static_cast<ValidationState>(request.state());
  }
  absl::StatusOr<ValidationPage> page = validations_.List(query, after, page_size);
  if (!page.ok()) return page.status();
  v1::ListValidationsResponse response;
  for (const ValidationRecord& record : page->validations) {
    *response.add_validations() = Answer(record);
  }
  if (page->next.has_value()) response.set_next_page_token(PageToken(*page->next));
  return response;
}

absl::StatusOr<v1::Validation> ValidationResources::CancelWith(const ValidationHandle& handle,
                                                               const absl::Status& reason) {
  absl::StatusOr<ValidationRecord> record = validations_.RequestCancel(
      handle.session_key, handle.id, reason, handle.principal, absl::Now());
  if (absl::IsNotFound(record.status())) return NotFound(handle.session_id, handle.id);
  if (!record.ok()) return record.status();
  // A job running here stops now rather than at its next renewal.
  worker_.Cancel(handle.session_key, handle.id, reason);
  return Answer(*record);
}

absl::StatusOr<v1::Validation> ValidationResources::Cancel(const std::string& name,
                                                           const std::string& principal) {
  absl::StatusOr<ValidationHandle> handle = Find(name, principal);
  if (!handle.ok()) return handle.status();
  return CancelWith(*handle, absl::CancelledError("the validation was cancelled"));
}

absl::Status ValidationResources::Delete(const std::string& name, const std::string& principal) {
  absl::StatusOr<ValidationHandle> handle = Find(name, principal);
  if (!handle.ok()) return handle.status();
  absl::Status status = validations_.Delete(handle->session_key, handle->id);
  if (absl::IsNotFound(status)) return NotFound(handle->session_id, handle->id);
  if (absl::IsFailedPrecondition(status)) {
    return wire::WithPreconditionFailure(std::move(status), "VALIDATION_ENDED", name);
  }
  return status;
}

absl::StatusOr<int64_t> ValidationResources::SessionKey(const std::string& session_id,
                                                        const std::string& principal) {
  absl::StatusOr<SessionRef> session = sessions_.Open(session_id, principal);
  if (session.ok()) return session->key;
  if (!absl::IsNotFound(session.status())) return session.status();
  absl::StatusOr<std::optional<RecordedSession>> tombstone = Tombstone(session_id, principal);
  if (!tombstone.ok()) return tombstone.status();
  if (!tombstone->has_value()) return session.status();
  return (*tombstone)->key;
}

absl::StatusOr<std::optional<RecordedSession>> ValidationResources::Tombstone(
    const std::string& session_id, const std::string& principal) {
  absl::StatusOr<std::optional<RecordedSession>> kept = validations_.FindSession(session_id);
  if (!kept.ok()) return kept.status();
  // Another principal's tombstone is as unknown as another principal's session.
  if (!kept->has_value() || (*kept)->state == RecordedSessionState::kActive ||
      (*kept)->owner != principal) {
    return std::optional<RecordedSession>();
  }
  return kept;
}

absl::StatusOr<std::vector<RecordedSession>> ValidationResources::Tombstones(
    const std::string& principal, const std::string& after_id, int limit) {
  return validations_.ListTombstones(principal, after_id, limit);
}

absl::Status ValidationResources::CheckIdFree(const std::string& session_id) {
  absl::StatusOr<std::optional<RecordedSession>> kept = validations_.FindSession(session_id);
  if (!kept.ok()) return kept.status();
  if (!kept->has_value() || (*kept)->state == RecordedSessionState::kActive) {
    return absl::OkStatus();
  }
  return absl::AlreadyExistsError(
      absl::StrCat("session ", wire::SessionName(session_id),
                   " is a tombstone kept for its validation records; delete it (DeleteSession) "
                   "to reuse the id, or pick another"));
}

absl::Status ValidationResources::PurgeTombstone(const RecordedSession& tombstone) {
  return validations_.PurgeSession(tombstone.key);
}

void ValidationResources::SessionDeleting(int64_t session_key, const std::string& session_id,
                                          const std::string& principal) {
  worker_.ForgetSession(session_key);
  // Its queued and running validations end CANCELLED, saying why.
  const absl::Status reason =
      absl::CancelledError(absl::StrCat("session ", wire::SessionName(session_id), " was deleted"));
  for (ValidationState state : {ValidationState::kQueued, ValidationState::kRunning}) {
    ValidationQuery query;
    query.session_key = session_key;
    query.state = state;
    absl::StatusOr<ValidationPage> page = validations_.List(query, std::nullopt, kMaxPageSize);
    if (!page.ok()) continue;
    for (const ValidationRecord& record : page->validations) {
      (void)CancelWith(ValidationHandle{.session_key = session_key,
                                        .session_id = session_id,
                                        .id = record.id,
                                        .principal = principal},
                       reason);
    }
  }
  // Before the session goes, so that no sweep finds it gone first and calls it expired.
  if (absl::Status status = validations_.SessionGone(session_key, RecordedSessionState::kDeleted,
                                                     principal, absl::Now());
      !status.ok()) {
    spdlog::warn("the records of a deleted session are marked at the next sweep: {}",
                 status.ToString());
  }
}

int64_t ValidationResources::Sweep() {
  const absl::Time now = absl::Now();
  absl::StatusOr<int64_t> expired = validations_.SessionsExpired(sessions_.Keys(), now);
  if (!expired.ok()) {
    spdlog::warn("the records of expired sessions are marked at the next sweep: {}",
                 expired.status().ToString());
  }
  if (retention_ == absl::InfiniteDuration()) return 0;
  absl::StatusOr<int64_t> removed = validations_.DeleteEndedBefore(now - retention_);
  if (removed.ok()) return *removed;
  spdlog::warn("records past --validation_retention stay until the next sweep: {}",
               removed.status().ToString());
  return 0;
}

}  // namespace wasserwarp::service
