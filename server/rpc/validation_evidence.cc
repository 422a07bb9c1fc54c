#include "rpc/validation_evidence.h"

#include <algorithm>
#include <vector>

#include "jobs/validation_outcome.h"
#include "rpc/session_proto.h"
#include "wasserwarp/run_checksum.h"
#include "wire/convert.h"
#include "wire/resource_names.h"

namespace wasserwarp::service {
namespace {

// Hz: one over the median interval between consecutive samples; 0 for fewer than two.
double MedianSamplingRate(const std::vector<double>& times) {
  if (times.size() < 2) return 0.0;
  std::vector<double> intervals(times.size() - 1);
  for (size_t i = 1; i < times.size(); ++i) intervals[i - 1] = times[i] - times[i - 1];
  const size_t middle = intervals.size() / 2;
  std::nth_element(intervals.begin(), intervals.begin() + middle, intervals.end());
  double median = intervals[middle];
  if (intervals.size() % 2 == 0) {
    median = (median + *std::max_element(intervals.begin(), intervals.begin() + middle)) / 2;
  }
  return median > 0 ? 1.0 / median : 0.0;
}

v1::ValidatedRun DetailsOf(const StoredRun& run, uint64_t checksum) {
  const Series& series = *run.series;
  v1::ValidatedRun out;
  out.set_series_id(series.id);
  out.set_role(ToProto(run.role));
  out.set_checksum(RunChecksumHex(checksum));
  for (const std::string& channel : series.channels) out.add_channels(channel);
  out.set_samples(static_cast<int64_t>(series.times.size()));
  if (!series.times.empty()) {
    out.set_first_time(series.times.front());
    out.set_last_time(series.times.back());
  }
  out.set_median_sampling_rate(MedianSamplingRate(series.times));
  if (run.weight.has_value()) out.set_weight(*run.weight);
  for (const auto& [name, value] : run.inputs.parameters) (*out.mutable_parameters())[name] = value;
  out.set_trial(run.inputs.trial);
  if (run.source.has_value()) {
    out.mutable_source()->set_file(run.source->file);
    out.mutable_source()->set_sha256(run.source->sha256);
  }
  return out;
}

}  // namespace

std::string EvidenceOf(const SessionSnapshot& snapshot, const std::vector<ValidatedRun>& runs) {
  v1::Validation evidence;
  size_t i = 0;
  for (const std::vector<StoredRun>* group : {&snapshot.simulation, &snapshot.reference}) {
    for (const StoredRun& run : *group) *evidence.add_runs() = DetailsOf(run, runs[i++].checksum);
  }
  return evidence.SerializeAsString();
}

RecordedSession RecordedSessionOf(const SessionRecord& session, int64_t key,
                                  const std::string& owner) {
  v1::Session summary = ToProto(session, /*with_runs=*/true);
  summary.clear_bytes_held();
  summary.clear_expire_time();
  return RecordedSession{.key = key,
                         .id = session.id,
                         .owner = owner,
                         .state = RecordedSessionState::kActive,
                         .create_time = session.create_time,
                         .summary = summary.SerializeAsString()};
}

v1::Session ToProto(const RecordedSession& session, bool with_runs) {
  v1::Session out;
  out.ParseFromString(session.summary);
  out.set_name(wire::SessionName(session.id));
  *out.mutable_create_time() = wire::ToProtoTime(session.create_time);
  out.set_state(static_cast<v1::Session::State>(session.state));
  if (session.delete_time.has_value()) {
    *out.mutable_delete_time() = wire::ToProtoTime(*session.delete_time);
  }
  out.set_bytes_held(0);
  if (!with_runs) out.clear_runs();
  return out;
}

v1::Validation ToProto(const ValidationRecord& record) {
  v1::Validation validation;
  validation.set_name(wire::ValidationName(record.session_id, record.id));
  validation.set_state(static_cast<v1::ValidationState>(record.state));
  validation.mutable_request()->ParseFromString(record.request);
  validation.mutable_effective_parameters()->ParseFromString(record.effective_parameters);
  v1::Validation evidence;
  if (!record.evidence.empty() && evidence.ParseFromString(record.evidence) &&
      evidence.runs_size() == static_cast<int>(record.runs.size())) {
    *validation.mutable_runs() = evidence.runs();
  } else {
    // A record from before evidence was kept: what it has.
    for (const ValidatedRun& run : record.runs) {
      v1::ValidatedRun* out = validation.add_runs();
      out->set_series_id(run.series_id);
      out->set_role(ToProto(run.role));
      out->set_checksum(RunChecksumHex(run.checksum));
    }
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
  for (const auto& [key, value] : record.labels) (*validation.mutable_labels())[key] = value;
  if (!record.engine.empty()) validation.mutable_engine()->ParseFromString(record.engine);
  validation.set_request_digest(record.request_digest);
  if (record.outcome.has_value()) *validation.mutable_outcome() = ToProto(*record.outcome);
  for (const ValidationEvent& event : record.events) {
    v1::ValidationEvent* out = validation.add_events();
    out->set_kind(static_cast<v1::ValidationEvent::Kind>(event.kind));
    *out->mutable_time() = wire::ToProtoTime(event.time);
    out->set_principal(event.principal);
    out->set_replica(event.replica);
  }
  return validation;
}

}  // namespace wasserwarp::service
