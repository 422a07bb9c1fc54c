#include "one_off_validation.h"

#include <cstdio>
#include <string>
#include <utility>

#include "absl/time/time.h"
#include "progress_bar.h"
#include "wire/resource_names.h"

namespace wasserwarp::cli {
namespace {

// A one-off session outlives its validation only when the CLI is killed; the server then
// drops it after this long idle.
constexpr absl::Duration kOneOffSessionTtl = absl::Minutes(15);

}  // namespace

absl::StatusOr<ValidationReport> ValidateShowingProgress(client::ValidationClient& client,
                                                         absl::string_view session_id,
                                                         v1::ValidateRequest request,
                                                         std::string* html_report) {
  ProgressBar bar(stderr);
  absl::StatusOr<ValidationReport> report = client.Validate(
      session_id, std::move(request),
      [&bar](const v1::ValidateProgress& progress) { bar.Update(progress); }, html_report);
  bar.Clear();
  return report;
}

absl::StatusOr<ValidationReport> ValidateInOneOffSession(
    client::ValidationClient& client, const std::vector<Series>& simulation,
    const std::vector<Series>& reference, const std::vector<double>& simulation_weights,
    const std::vector<double>& reference_weights, v1::ValidateRequest request,
    std::string* html_report) {
  absl::StatusOr<v1::ValidationReport> report = ValidateProtoInOneOffSession(
      client, {simulation, reference, simulation_weights, reference_weights, {}},
      std::move(request));
  if (!report.ok()) return report.status();
  return client.Converted(*report, html_report);
}

absl::StatusOr<v1::ValidationReport> ValidateProtoInOneOffSession(client::ValidationClient& client,
                                                                  const OneOffRuns& runs,
                                                                  v1::ValidateRequest request) {
  v1::Session settings;
  settings.mutable_idle_ttl()->set_seconds(absl::ToInt64Seconds(kOneOffSessionTtl));
  absl::StatusOr<v1::Session> session = client.CreateSession("", settings);
  if (!session.ok()) return session.status();
  const std::string session_id(wire::SessionIdOf(session->name()));

  absl::StatusOr<v1::ValidationReport> report = [&]() -> absl::StatusOr<v1::ValidationReport> {
    absl::StatusOr<v1::UploadSeriesResponse> uploaded =
        client.UploadRuns(session_id, runs.simulation, runs.reference, runs.simulation_weights,
                          runs.reference_weights, runs.simulation_inputs,
                          runs.sources != nullptr ? *runs.sources : client::RunSources());
    if (!uploaded.ok()) return uploaded.status();
    ProgressBar bar(stderr);
    absl::StatusOr<v1::ValidationReport> validated = client.ValidateToProto(
        session_id, std::move(request),
        [&bar](const v1::ValidateProgress& progress) { bar.Update(progress); });
    bar.Clear();
    return validated;
  }();
  if (absl::Status deleted = client.DeleteSession(session_id); !deleted.ok()) {
    std::fprintf(stderr, "wasserwarp: warning: cannot delete session %s: %s\n", session_id.c_str(),
                 std::string(deleted.message()).c_str());
  }
  return report;
}

}  // namespace wasserwarp::cli
