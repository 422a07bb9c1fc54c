#include "validation_client.h"

#include <grpcpp/create_channel.h>
#include <grpcpp/security/credentials.h>
#include <grpcpp/support/channel_arguments.h>

#include <algorithm>
#include <chrono>
#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "wire/convert.h"
#include "wire/report_chunks.h"
#include "wire/resource_names.h"
#include "wire/status_from_grpc.h"

namespace wasserwarp::client {
namespace {

grpc::ChannelArguments ChannelArgs() {
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(kMaxMessageBytes);
  args.SetMaxSendMessageSize(kMaxMessageBytes);
  // A bench keeps its connection for hours between validations; pings every 10 s keep NAT
  // and firewall state alive and reveal a dead server within seconds, not at the next call.
  args.SetInt(GRPC_ARG_KEEPALIVE_TIME_MS, 10'000);
  args.SetInt(GRPC_ARG_KEEPALIVE_TIMEOUT_MS, 10'000);
  args.SetInt(GRPC_ARG_KEEPALIVE_PERMIT_WITHOUT_CALLS, 1);
  // Without this, gRPC stops pinging after two pings on an idle connection.
  args.SetInt(GRPC_ARG_HTTP2_MAX_PINGS_WITHOUT_DATA, 0);
  return args;
}

std::optional<double> WeightAt(const std::vector<double>& weights, size_t i) {
  if (weights.empty()) return std::nullopt;
  return weights[i];
}

}  // namespace

absl::StatusOr<std::unique_ptr<ValidationClient>> ValidationClient::Connect(
    std::string target, const ClientOptions& options) {
  if (absl::Status status =
          PlaintextTokenCheck(target, options.tls.has_value(), options.token, options.insecure);
      !status.ok()) {
    return status;
  }
  absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>> credentials =
      ChannelCredentialsFor(options.tls);
  if (!credentials.ok()) return credentials.status();
  std::shared_ptr<grpc::Channel> channel = grpc::experimental::CreateCustomChannelWithInterceptors(
      target, *credentials, ChannelArgs(), BearerTokenInterceptors(options.token));
  const auto deadline =
      std::chrono::system_clock::now() + absl::ToChronoMilliseconds(options.connect_timeout);
  // Waiting for READY alone would retry a refused connection until the deadline; the first
  // failed attempt already says that nobody listens there.
  for (grpc_connectivity_state state = channel->GetState(/*try_to_connect=*/true);
       state != GRPC_CHANNEL_READY; state = channel->GetState(/*try_to_connect=*/true)) {
    if (state == GRPC_CHANNEL_TRANSIENT_FAILURE || state == GRPC_CHANNEL_SHUTDOWN) {
      return absl::UnavailableError(absl::StrCat("cannot reach server ", target, ": connection",
                                                 options.tls.has_value() ? " or TLS handshake" : "",
                                                 " failed"));
    }
    if (!channel->WaitForStateChange(state, deadline)) {
      return absl::UnavailableError(absl::StrCat("cannot reach server ", target,
                                                 ": no connection within ",
                                                 absl::FormatDuration(options.connect_timeout)));
    }
  }
  return std::unique_ptr<ValidationClient>(
      new ValidationClient(std::move(target), options, std::move(channel)));
}

ValidationClient::ValidationClient(std::string target, const ClientOptions& options,
                                   std::shared_ptr<grpc::Channel> channel)
    : target_(std::move(target)),
      options_(options),
      channel_(std::move(channel)),
      stub_(v1::ValidationService::NewStub(channel_)) {}

void ValidationClient::SetCallDeadline(grpc::ClientContext& context) const {
  context.set_deadline(std::chrono::system_clock::now() +
                       absl::ToChronoMilliseconds(options_.call_timeout));
}

absl::Status ValidationClient::FromGrpc(const grpc::Status& status) const {
  return wire::FromGrpcStatus(status, target_);
}

absl::StatusOr<v1::Session> ValidationClient::CreateSession(absl::string_view session_id,
                                                            const v1::Session& settings) {
  v1::CreateSessionRequest request;
  request.set_session_id(std::string(session_id));
  *request.mutable_session() = settings;
  v1::CreateSessionResponse response;
  grpc::ClientContext context;
  SetCallDeadline(context);
  if (grpc::Status status = stub_->CreateSession(&context, request, &response); !status.ok()) {
    return FromGrpc(status);
  }
  return std::move(*response.mutable_session());
}

absl::StatusOr<v1::Session> ValidationClient::GetSession(absl::string_view session_id) {
  v1::GetSessionRequest request;
  request.set_name(wire::SessionName(session_id));
  v1::GetSessionResponse response;
  grpc::ClientContext context;
  SetCallDeadline(context);
  if (grpc::Status status = stub_->GetSession(&context, request, &response); !status.ok()) {
    return FromGrpc(status);
  }
  return std::move(*response.mutable_session());
}

absl::StatusOr<std::vector<v1::Session>> ValidationClient::ListSessions(bool show_deleted) {
  std::vector<v1::Session> sessions;
  v1::ListSessionsRequest request;
  request.set_page_size(options_.list_page_size);
  request.set_show_deleted(show_deleted);
  do {
    v1::ListSessionsResponse response;
    grpc::ClientContext context;
    SetCallDeadline(context);
    if (grpc::Status status = stub_->ListSessions(&context, request, &response); !status.ok()) {
      return FromGrpc(status);
    }
    for (v1::Session& session : *response.mutable_sessions()) {
      sessions.push_back(std::move(session));
    }
    request.set_page_token(response.next_page_token());
  } while (!request.page_token().empty());
  return sessions;
}

absl::Status ValidationClient::DeleteSession(absl::string_view session_id) {
  v1::DeleteSessionRequest request;
  request.set_name(wire::SessionName(session_id));
  v1::DeleteSessionResponse response;
  grpc::ClientContext context;
  SetCallDeadline(context);
  return FromGrpc(stub_->DeleteSession(&context, request, &response));
}

absl::StatusOr<v1::UploadSeriesResponse> ValidationClient::UploadRuns(
    absl::string_view session_id, const std::vector<Series>& simulation,
    const std::vector<Series>& reference, const std::vector<double>& simulation_weights,
    const std::vector<double>& reference_weights,
    const std::vector<SimulationInputs>& simulation_inputs, const RunSources& sources) {
  if (simulation.empty() && reference.empty()) {
    return absl::InvalidArgumentError("no runs to upload");
  }
  struct Side {
    v1::Role role;
    absl::string_view name;
    const std::vector<Series>& runs;
    const std::vector<double>& weights;
    const std::vector<SimulationInputs>& inputs;
    const std::vector<RunSource>& sources;
  };
  const std::vector<SimulationInputs> measured;
  const Side sides[] = {
      {v1::ROLE_SIMULATION, "simulated", simulation, simulation_weights, simulation_inputs,
       sources.simulation},
      {v1::ROLE_REFERENCE, "reference", reference, reference_weights, measured, sources.reference}};
  for (const Side& side : sides) {
    if (!side.weights.empty() && side.weights.size() != side.runs.size()) {
      return absl::InvalidArgumentError(absl::StrCat(side.weights.size(), " weights for ",
                                                     side.runs.size(), " ", side.name, " runs"));
    }
    if (!side.sources.empty() && side.sources.size() != side.runs.size()) {
      return absl::InvalidArgumentError(absl::StrCat(side.sources.size(), " sources for ",
                                                     side.runs.size(), " ", side.name, " runs"));
    }
    if (!side.inputs.empty() && side.inputs.size() != side.runs.size()) {
      return absl::InvalidArgumentError(absl::StrCat(side.inputs.size(), " sets of parameters for ",
                                                     side.runs.size(), " ", side.name, " runs"));
    }
    for (const Series& run : side.runs) {
      if (absl::Status valid = ValidateSeries(run); !valid.ok()) return valid;
    }
  }

  grpc::ClientContext context;
  v1::UploadSeriesResponse response;
  std::unique_ptr<grpc::ClientWriter<v1::UploadSeriesRequest>> writer =
      stub_->UploadSeries(&context, &response);
  const std::string name = wire::SessionName(session_id);
  bool first = true;
  const auto write = [&](v1::UploadSeriesRequest& message) {
    if (first) {
      message.set_session(name);
      first = false;
    } else {
      message.clear_session();
    }
    return writer->Write(message);
  };
  bool open = true;
  for (const Side& side : sides) {
    for (size_t i = 0; open && i < side.runs.size(); ++i) {
      const RunHeader header{.role = side.role,
                             .weight = WeightAt(side.weights, i),
                             .inputs = side.inputs.empty() ? SimulationInputs() : side.inputs[i],
                             .source = side.sources.empty()
                                           ? std::nullopt
                                           : std::optional<RunSource>(side.sources[i])};
      open = WriteRunMessages(side.runs[i], header, options_.chunk_bytes, write);
    }
  }
  // A failed write means the server ended the stream; Finish says why.
  if (open) writer->WritesDone();
  if (grpc::Status status = writer->Finish(); !status.ok()) return FromGrpc(status);
  return response;
}

absl::StatusOr<ValidationReport> ValidationClient::Validate(
    absl::string_view session_id, const v1::ValidationParameters& overrides,
    bool include_cost_matrix, const ProgressCallback& on_progress) {
  v1::ValidateRequest request;
  *request.mutable_parameters() = overrides;
  request.set_include_cost_matrix(include_cost_matrix);
  return Validate(session_id, std::move(request), on_progress);
}

absl::StatusOr<ValidationReport> ValidationClient::Validate(absl::string_view session_id,
                                                            v1::ValidateRequest request,
                                                            const ProgressCallback& on_progress,
                                                            std::string* html_report) {
  absl::StatusOr<v1::ValidationReport> report =
      ValidateToProto(session_id, std::move(request), on_progress);
  if (!report.ok()) return report.status();
  return Converted(*report, html_report);
}

absl::StatusOr<v1::ValidationReport> ValidationClient::ValidateToProto(
    absl::string_view session_id, v1::ValidateRequest request,
    const ProgressCallback& on_progress) {
  request.set_session(wire::SessionName(session_id));
  grpc::ClientContext context;
  std::unique_ptr<grpc::ClientReader<v1::ValidateResponse>> reader =
      stub_->Validate(&context, request);
  v1::ValidateResponse event;
  wire::ReportAssembler assembler;
  absl::Status assembled;
  while (assembled.ok() && reader->Read(&event)) {
    if (event.has_progress()) {
      if (on_progress) on_progress(event.progress());
    } else if (event.has_report()) {
      assembled = assembler.AddReport(std::move(*event.mutable_report()));
    } else if (event.has_chunk()) {
      assembled = assembler.AddChunk(event.chunk());
    }
  }
  if (assembled.ok()) {
    if (grpc::Status status = reader->Finish(); !status.ok()) return FromGrpc(status);
  } else {
    // The rest of a malformed stream is of no use.
    context.TryCancel();
    reader->Finish();
  }
  absl::StatusOr<v1::ValidationReport> report = assembled.ok() ? assembler.Finish() : assembled;
  // A malformed stream is the server's fault, not the caller's input.
  if (!report.ok()) {
    return absl::InternalError(absl::StrCat(
        "server ", target_, " sent a malformed validation stream: ", report.status().message()));
  }
  return report;
}

absl::StatusOr<ValidationReport> ValidationClient::Converted(v1::ValidationReport& report,
                                                             std::string* html_report) const {
  if (html_report != nullptr) *html_report = std::move(*report.mutable_html_report());
  absl::StatusOr<ValidationReport> converted = wire::ReportFromProto(report);
  // An inconsistent report is the server's fault, not the caller's input.
  if (!converted.ok()) {
    return absl::InternalError(absl::StrCat(
        "server ", target_, " sent an inconsistent report: ", converted.status().message()));
  }
  return converted;
}

absl::StatusOr<v1::Validation> ValidationClient::CreateValidation(absl::string_view session_id,
                                                                  v1::ValidateRequest request) {
  v1::CreateValidationRequest create;
  request.set_session(wire::SessionName(session_id));
  *create.mutable_request() = std::move(request);
  v1::CreateValidationResponse response;
  grpc::ClientContext context;
  SetCallDeadline(context);
  if (grpc::Status status = stub_->CreateValidation(&context, create, &response); !status.ok()) {
    return FromGrpc(status);
  }
  return std::move(*response.mutable_validation());
}

absl::StatusOr<v1::Validation> ValidationClient::GetValidation(absl::string_view name) {
  v1::GetValidationRequest request;
  request.set_name(std::string(name));
  v1::GetValidationResponse response;
  grpc::ClientContext context;
  SetCallDeadline(context);
  if (grpc::Status status = stub_->GetValidation(&context, request, &response); !status.ok()) {
    return FromGrpc(status);
  }
  return std::move(*response.mutable_validation());
}

absl::StatusOr<std::vector<v1::Validation>> ValidationClient::ListValidations(
    absl::string_view session_id, v1::ValidationState state, int limit) {
  ValidationQuery query;
  query.session_id = std::string(session_id);
  query.state = state;
  query.limit = limit;
  return ListValidations(query);
}

absl::StatusOr<std::vector<v1::Validation>> ValidationClient::ListValidations(
    const ValidationQuery& query) {
  const int limit = query.limit;
  std::vector<v1::Validation> validations;
  v1::ListValidationsRequest request;
  request.set_parent(query.session_id.empty() ? "sessions/-" : wire::SessionName(query.session_id));
  request.set_state(query.state);
  request.set_filter(query.filter);
  request.set_order_by(query.order_by);
  do {
    const int wanted = limit > 0 ? limit - static_cast<int>(validations.size()) : 0;
    request.set_page_size(wanted > 0 ? std::min(wanted, options_.list_page_size)
                                     : options_.list_page_size);
    v1::ListValidationsResponse response;
    grpc::ClientContext context;
    SetCallDeadline(context);
    if (grpc::Status status = stub_->ListValidations(&context, request, &response); !status.ok()) {
      return FromGrpc(status);
    }
    for (v1::Validation& validation : *response.mutable_validations()) {
      if (limit > 0 && validations.size() >= static_cast<size_t>(limit)) break;
      validations.push_back(std::move(validation));
    }
    request.set_page_token(response.next_page_token());
  } while (!request.page_token().empty() &&
           (limit <= 0 || validations.size() < static_cast<size_t>(limit)));
  return validations;
}

absl::StatusOr<v1::Validation> ValidationClient::CancelValidation(absl::string_view name) {
  v1::CancelValidationRequest request;
  request.set_name(std::string(name));
  v1::CancelValidationResponse response;
  grpc::ClientContext context;
  SetCallDeadline(context);
  if (grpc::Status status = stub_->CancelValidation(&context, request, &response); !status.ok()) {
    return FromGrpc(status);
  }
  return std::move(*response.mutable_validation());
}

absl::Status ValidationClient::DeleteValidation(absl::string_view name) {
  v1::DeleteValidationRequest request;
  request.set_name(std::string(name));
  v1::DeleteValidationResponse response;
  grpc::ClientContext context;
  SetCallDeadline(context);
  return FromGrpc(stub_->DeleteValidation(&context, request, &response));
}

absl::StatusOr<v1::Validation> ValidationClient::WatchValidation(
    absl::string_view name, const ProgressCallback& on_progress) {
  v1::WatchValidationRequest request;
  request.set_name(std::string(name));
  grpc::ClientContext context;
  std::unique_ptr<grpc::ClientReader<v1::WatchValidationResponse>> reader =
      stub_->WatchValidation(&context, request);
  v1::WatchValidationResponse event;
  std::optional<v1::Validation> validation;
  wire::ReportAssembler assembler;
  absl::Status assembled;
  while (assembled.ok() && reader->Read(&event)) {
    if (event.has_progress()) {
      if (on_progress) on_progress(event.progress());
    } else if (event.has_validation()) {
      if (validation.has_value()) {
        assembled = absl::InvalidArgumentError("a second validation message");
        break;
      }
      validation = std::move(*event.mutable_validation());
      if (validation->state() == v1::VALIDATION_STATE_SUCCEEDED) {
        assembled = assembler.AddReport(std::move(*validation->mutable_report()));
      }
    } else if (event.has_chunk()) {
      assembled = validation.has_value()
                      ? assembler.AddChunk(event.chunk())
                      : absl::InvalidArgumentError("a report chunk before the validation");
    }
  }
  if (assembled.ok()) {
    if (grpc::Status status = reader->Finish(); !status.ok()) return FromGrpc(status);
    if (!validation.has_value()) assembled = absl::InvalidArgumentError("no validation message");
  } else {
    // The rest of a malformed stream is of no use.
    context.TryCancel();
    reader->Finish();
  }
  if (assembled.ok() && validation->state() == v1::VALIDATION_STATE_SUCCEEDED) {
    absl::StatusOr<v1::ValidationReport> report = assembler.Finish();
    if (report.ok()) {
      *validation->mutable_report() = *std::move(report);
    } else {
      assembled = report.status();
    }
  }
  // A malformed stream is the server's fault, not the caller's input.
  if (!assembled.ok()) {
    return absl::InternalError(absl::StrCat(
        "server ", target_, " sent a malformed validation stream: ", assembled.message()));
  }
  return *std::move(validation);
}

absl::StatusOr<ValidationReport> ValidationClient::ReportOf(v1::Validation& validation,
                                                            std::string* html_report) const {
  absl::StatusOr<ValidationReport> report = Converted(*validation.mutable_report(), html_report);
  if (report.ok()) report->link = validation.link();
  return report;
}

absl::StatusOr<v1::ComputeTwedResponse> ValidationClient::ComputeTwed(
    const Series& a, const Series& b, const v1::ValidationParameters& parameters) {
  v1::ComputeTwedRequest request;
  *request.mutable_a() = wire::InlineFromSeries(a);
  *request.mutable_b() = wire::InlineFromSeries(b);
  *request.mutable_parameters() = parameters;
  v1::ComputeTwedResponse response;
  grpc::ClientContext context;
  SetCallDeadline(context);
  if (grpc::Status status = stub_->ComputeTwed(&context, request, &response); !status.ok()) {
    return FromGrpc(status);
  }
  return response;
}

}  // namespace wasserwarp::client
