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
  v1::Session settings;
  settings.mutable_idle_ttl()->set_seconds(absl::ToInt64Seconds(kOneOffSessionTtl));
  absl::StatusOr<v1::Session> session = client.CreateSession("", settings);
  if (!session.ok()) return session.status();
  const std::string session_id(wire::SessionIdOf(session->name()));

  absl::StatusOr<ValidationReport> report = [&]() -> absl::StatusOr<ValidationReport> {
    absl::StatusOr<v1::UploadSeriesResponse> uploaded =
        client.UploadRuns(session_id, simulation, reference, simulation_weights, reference_weights);
    if (!uploaded.ok()) return uploaded.status();
    return ValidateShowingProgress(client, session_id, std::move(request), html_report);
  }();
  if (absl::Status deleted = client.DeleteSession(session_id); !deleted.ok()) {
    std::fprintf(stderr, "wasserwarp: warning: cannot delete session %s: %s\n", session_id.c_str(),
                 std::string(deleted.message()).c_str());
  }
  return report;
}

}  // namespace wasserwarp::cli
