#include "rpc/upload_state.h"

#include <cmath>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/cord.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"
#include "rpc/session_proto.h"
#include "wasserwarp/field_error.h"
#include "wasserwarp/run_parameters.h"
#include "wasserwarp/run_source.h"
#include "wasserwarp/user_text.h"
#include "wire/channel_units.h"
#include "wire/evidence.h"
#include "wire/resource_names.h"

namespace wasserwarp::service {
namespace {

// Series ids name runs in reports and logs; far longer ones are mistakes.
constexpr size_t kMaxSeriesIdLength = 1024;
// Header text is held with the run and echoed by GetSession, so it is
// bounded like the samples are.
constexpr int kMaxChannels = 1024;
constexpr size_t kMaxChannelNameLength = 256;
absl::string_view View(std::string_view s) { return absl::string_view(s.data(), s.size()); }

// `simulation run "sim_3"`, the way every error about a run starts.
std::string RunLabel(RunRole role, std::string_view id) {
  return absl::StrCat(View(RoleName(role)), " run ", QuotedText(View(id)));
}

// The header's parameters and trial, checked; errors name the header's field. `label` names
// the run.
absl::StatusOr<SimulationInputs> InputsOf(const v1::SeriesHeader& header, RunRole role,
                                          std::string_view label) {
  const bool has_parameters = !header.parameters().empty();
  if (role == RunRole::kReference && (has_parameters || !header.trial().empty())) {
    // Most likely the two sets mixed up: a measured run was not simulated with anything.
    return InvalidFieldError(has_parameters ? "header.parameters" : "header.trial",
                             absl::StrCat(View(label),
                                          ": parameters and trial are for simulated runs only; a "
                                          "reference run is measured, not simulated"));
  }
  if (static_cast<size_t>(header.parameters_size()) > kMaxRunParameters) {
    return InvalidFieldError("header.parameters",
                             absl::StrCat(View(label), ": header has ", header.parameters_size(),
                                          " parameters, over the limit of ", kMaxRunParameters));
  }
  SimulationInputs inputs;
  inputs.parameters.insert(header.parameters().begin(), header.parameters().end());
  // In name order, so that the same header always gets the same error.
  for (const auto& [name, value] : inputs.parameters) {
    if (const std::string fault = ParameterNameFault(name); !fault.empty()) {
      return InvalidFieldError(
          "header.parameters",
          absl::StrCat(View(label), ": parameter name ", QuotedText(name, kMaxParameterNameLength),
                       " must be ", kParameterNameRule, ": ", fault));
    }
    if (!std::isfinite(value)) {
      return InvalidFieldError("header.parameters",
                               absl::StrCat(View(label), ": parameter ", QuotedText(name),
                                            " must be finite, got ", value));
    }
  }
  if (const std::string fault = TrialFault(header.trial()); !fault.empty()) {
    return InvalidFieldError(
        "header.trial", absl::StrCat(View(label), ": trial must be ", kTrialRule, ": ", fault));
  }
  inputs.trial = header.trial();
  return inputs;
}

absl::Status Prefixed(const absl::Status& status, std::string_view prefix) {
  absl::Status prefixed(status.code(), absl::StrCat(absl::string_view(prefix.data(), prefix.size()),
                                                    ": ", status.message()));
  status.ForEachPayload(
      [&](absl::string_view url, const absl::Cord& payload) { prefixed.SetPayload(url, payload); });
  return prefixed;
}

// `status` about field `field` of run k of the stream: `series[k].field` (`series[k]` alone
// for an empty field), which the message then starts with instead of the field it named.
absl::Status AtRun(const absl::Status& status, int run, absl::string_view field) {
  const std::string path = absl::StrCat("series[", run, "]", field.empty() ? "" : ".", field);
  return RenameField(ErrorField(status).empty() ? WithField(status, path) : status, path);
}

}  // namespace

UploadState::UploadState(SessionStore& store, const SessionLimits& limits,
                         v1::UploadSeriesResponse* response, std::string owner)
    : store_(store), limits_(limits), response_(response), owner_(std::move(owner)) {}

UploadState::~UploadState() { Discard(); }

absl::Status UploadState::Handle(const v1::UploadSeriesRequest& request) {
  if (absl::Status status = SelectSession(request); !status.ok()) return status;
  switch (request.part_case()) {
    case v1::UploadSeriesRequest::kHeader:
      return Header(request.header());
    case v1::UploadSeriesRequest::kChunk:
      return Chunk(request.chunk());
    case v1::UploadSeriesRequest::kEnd:
      return End(request.end());
    case v1::UploadSeriesRequest::PART_NOT_SET:
      // Most likely a client built against another version of the contract: its data would
      // be lost without a word.
      return InvalidFieldError("part", "the upload message sets none of header, chunk and end");
  }
  return absl::InvalidArgumentError(
      absl::StrCat("upload message with unknown part ", request.part_case()));
}

absl::Status UploadState::SelectSession(const v1::UploadSeriesRequest& request) {
  if (request.session().empty()) {
    if (session_.has_value()) return absl::OkStatus();
    return InvalidFieldError("session", "the first upload message must name the session");
  }
  absl::StatusOr<std::string> id = wire::SessionIdFromName(request.session(), "session");
  if (!id.ok()) return id.status();
  if (session_.has_value()) {
    if (*id == session_->id) return absl::OkStatus();
    return InvalidFieldError("session",
                             absl::StrCat("upload message names session ", request.session(),
                                          " in a stream for ", wire::SessionName(session_->id)));
  }
  absl::StatusOr<SessionRef> session = store_.Open(*id, owner_);
  if (!session.ok()) return session.status();
  session_ = *std::move(session);
  response_->set_session(wire::SessionName(session_->id));
  return absl::OkStatus();
}

absl::Status UploadState::Header(const v1::SeriesHeader& header) {
  if (run_.has_value()) {
    return AtRun(absl::InvalidArgumentError(absl::StrCat(
                     "header of run ", QuotedText(header.series_id()), " before the end mark of ",
                     RunLabel(run_->role, run_->series.id))),
                 runs_begun_ - 1, "end");
  }
  const int run = runs_begun_;
  if (absl::Status status = BeginRun(header); !status.ok()) {
    return AtRun(status, run, ErrorField(status));
  }
  ++runs_begun_;
  return absl::OkStatus();
}

absl::Status UploadState::BeginRun(const v1::SeriesHeader& header) {
  // Before any message quotes the id.
  if (absl::Status status = CheckIdCharacters("header.series_id", header.series_id());
      !status.ok()) {
    return status;
  }
  const std::optional<RunRole> role = RoleFromProto(header.role());
  if (!role.has_value()) {
    return InvalidFieldError(
        "header.role",
        absl::StrCat("header of run ", QuotedText(header.series_id()),
                     ": role must be ROLE_SIMULATION or ", "ROLE_REFERENCE, got ", header.role()));
  }
  const std::string label = RunLabel(*role, header.series_id());
  if (header.series_id().empty() || header.series_id().size() > kMaxSeriesIdLength) {
    return InvalidFieldError(
        "header.series_id",
        absl::StrCat("header of a ", View(RoleName(*role)), " run: series_id must have 1 to ",
                     kMaxSeriesIdLength, " characters, got ", header.series_id().size()));
  }
  if (header.channels().empty()) {
    return InvalidFieldError("header.channels", absl::StrCat(label, ": header names no channels"));
  }
  if (header.channels_size() > kMaxChannels) {
    return InvalidFieldError("header.channels",
                             absl::StrCat(label, ": header names ", header.channels_size(),
                                          " channels, over the limit of ", kMaxChannels));
  }
  for (int c = 0; c < header.channels_size(); ++c) {
    if (header.channels(c).size() > kMaxChannelNameLength) {
      return InvalidFieldError(
          absl::StrCat("header.channels[", c, "]"),
          absl::StrCat(label, ": the name of channel ", c, " has ", header.channels(c).size(),
                       " characters, over the limit of ", kMaxChannelNameLength));
    }
  }
  if (header.has_weight() && !(std::isfinite(header.weight()) && header.weight() >= 0.0)) {
    return InvalidFieldError("header.weight", absl::StrCat(label,
                                                           ": weight must be finite and "
                                                           "non-negative, got ",
                                                           header.weight()));
  }
  absl::StatusOr<SimulationInputs> inputs = InputsOf(header, *role, label);
  if (!inputs.ok()) return inputs.status();
  const std::optional<RunSource> source =
      wire::RunSourceFromProto(header.has_source(), header.source());
  if (source.has_value()) {
    if (absl::Status status = CheckRunSource(*source, "header.source"); !status.ok()) {
      // Said of the run, as every error about a header is.
      const std::string field = ErrorField(status);
      return InvalidFieldError(
          field, absl::StrCat(label, ": ", absl::StripPrefix(status.message(), field + ": ")));
    }
  }
  if (absl::Status status = store_.CheckNewRun(*session_, *role, header.series_id());
      !status.ok()) {
    return status.code() == absl::StatusCode::kAlreadyExists ? WithField(status, "header.series_id")
                                                             : status;
  }
  PendingRun run;
  run.role = *role;
  run.series.id = header.series_id();
  run.series.channels.assign(header.channels().begin(), header.channels().end());
  absl::StatusOr<std::vector<std::string>> units =
      wire::UnitsFromProto(header.units(), run.series.channels, label);
  if (!units.ok()) return PrefixField(units.status(), "header");
  run.series.units = *std::move(units);
  if (header.has_weight()) run.weight = header.weight();
  run.inputs = *std::move(inputs);
  run.source = source;
  // The header's text is held as long as the samples, so it counts against
  // the same limits; otherwise names alone could fill the server.
  const int64_t bytes =
      HeaderBytes(run.series.id, run.series.channels, run.inputs, run.series.units);
  if (absl::Status status = store_.Reserve(*session_, bytes); !status.ok()) {
    return Prefixed(status, label);
  }
  run.reserved_bytes = bytes;
  run_ = std::move(run);
  return absl::OkStatus();
}

absl::Status UploadState::Chunk(const v1::SeriesChunk& chunk) {
  if (!run_.has_value()) {
    return InvalidFieldError("chunk", "chunk of samples before any header");
  }
  const int run = runs_begun_ - 1;
  Series& series = run_->series;
  const std::string label = RunLabel(run_->role, series.id);
  const int64_t first_sample = static_cast<int64_t>(series.samples());
  const int64_t channels = static_cast<int64_t>(series.num_channels());
  if (chunk.values_size() != static_cast<int64_t>(chunk.times_size()) * channels) {
    return AtRun(
        absl::InvalidArgumentError(absl::StrCat(
            label, ": chunk starting at sample ", first_sample, " holds ", chunk.values_size(),
            " values for ", chunk.times_size(), " samples x ", channels, " channels")),
        run, "values");
  }
  if (first_sample + chunk.times_size() > limits_.max_samples_per_run) {
    return AtRun(
        WithLimit(absl::ResourceExhaustedError(absl::StrCat(
                      label, ": sample ", limits_.max_samples_per_run, " is over the limit of ",
                      limits_.max_samples_per_run, " samples per run (--max_samples_per_run)")),
                  "--max_samples_per_run"),
        run, absl::StrCat("times[", limits_.max_samples_per_run, "]"));
  }
  const int64_t bytes = SampleBytes(chunk.times_size(), chunk.values_size());
  if (absl::Status status = store_.Reserve(*session_, bytes); !status.ok()) {
    return AtRun(Prefixed(status, label), run, "");
  }
  run_->reserved_bytes += bytes;
  series.times.insert(series.times.end(), chunk.times().begin(), chunk.times().end());
  series.values.insert(series.values.end(), chunk.values().begin(), chunk.values().end());
  return absl::OkStatus();
}

absl::Status UploadState::End(const v1::SeriesEnd& end) {
  if (!run_.has_value()) return InvalidFieldError("end", "end mark before any header");
  const int run = runs_begun_ - 1;
  const std::string label = RunLabel(run_->role, run_->series.id);
  const int64_t samples = static_cast<int64_t>(run_->series.samples());
  if (end.expected_samples() != 0 && end.expected_samples() != samples) {
    return AtRun(absl::InvalidArgumentError(absl::StrCat(label, " ends after ", samples,
                                                         " samples, its end mark expects ",
                                                         end.expected_samples())),
                 run, "end.expected_samples");
  }
  if (absl::Status status = ValidateSeries(run_->series); !status.ok()) {
    return PrefixField(Prefixed(status, absl::StrCat(label, " rejected")),
                       absl::StrCat("series[", run, "]"));
  }
  StoredRun stored;
  stored.role = run_->role;
  stored.weight = run_->weight;
  stored.inputs = std::move(run_->inputs);
  stored.source = std::move(run_->source);
  stored.bytes = run_->reserved_bytes;
  stored.series = std::make_shared<const Series>(std::move(run_->series));
  absl::StatusOr<RunRecord> committed = store_.Commit(*session_, std::move(stored));
  if (!committed.ok()) return committed.status();
  // The reservation became the session's holding.
  run_.reset();
  response_->set_committed_samples(response_->committed_samples() + committed->samples);
  *response_->add_committed_runs() = ToProto(*committed);
  return absl::OkStatus();
}

absl::Status UploadState::EndOfStream() {
  if (run_.has_value()) {
    return absl::InvalidArgumentError(absl::StrCat("the stream ended inside ",
                                                   RunLabel(run_->role, run_->series.id),
                                                   ", before its end mark"));
  }
  if (!session_.has_value()) {
    return absl::InvalidArgumentError("the upload stream ended without naming a session");
  }
  return absl::OkStatus();
}

void UploadState::Discard() {
  if (run_.has_value() && session_.has_value()) store_.Release(*session_, run_->reserved_bytes);
  run_.reset();
}

}  // namespace wasserwarp::service
