// A validation on a wasserwarp-server of runs held here: in a session of its own, created,
// filled, validated and deleted again, for commands given --server without --session.

#ifndef WASSERWARP_CLIENT_ONE_OFF_VALIDATION_H_
#define WASSERWARP_CLIENT_ONE_OFF_VALIDATION_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "validation_client.h"
#include "wasserwarp/run_parameters.h"
#include "wasserwarp/series.h"
#include "wasserwarp/v1/validation.pb.h"
#include "wasserwarp/validation.h"

namespace wasserwarp::cli {

// Validates what session `session_id` holds as `request` asks (its session field is set
// here), showing a progress bar on stderr when it is a terminal; the HTML page the request
// may ask for goes to `html_report`.
absl::StatusOr<ValidationReport> ValidateShowingProgress(client::ValidationClient& client,
                                                         absl::string_view session_id,
                                                         v1::ValidateRequest request,
                                                         std::string* html_report = nullptr);

// Uploads the runs (weights as for ValidationClient::UploadRuns) into a new session,
// validates them as ValidateShowingProgress does, and deletes the session whatever happened;
// a session that cannot be deleted is a warning on stderr, as it expires on its own.
absl::StatusOr<ValidationReport> ValidateInOneOffSession(
    client::ValidationClient& client, const std::vector<Series>& simulation,
    const std::vector<Series>& reference, const std::vector<double>& simulation_weights,
    const std::vector<double>& reference_weights, v1::ValidateRequest request,
    std::string* html_report = nullptr);

// The runs of a one-off session: weights as for ValidationClient::UploadRuns, and the
// parameters and trial of each simulated run (or none).
struct OneOffRuns {
  const std::vector<Series>& simulation;
  const std::vector<Series>& reference;
  const std::vector<double>& simulation_weights;
  const std::vector<double>& reference_weights;
  const std::vector<SimulationInputs>& simulation_inputs;
  // Where the runs came from, when they were read from files.
  const client::RunSources* sources = nullptr;
};

// As ValidateInOneOffSession, returning the report as it came (ValidateToProto): for what a
// ValidationReport does not hold, a study's result.
absl::StatusOr<v1::ValidationReport> ValidateProtoInOneOffSession(client::ValidationClient& client,
                                                                  const OneOffRuns& runs,
                                                                  v1::ValidateRequest request);

}  // namespace wasserwarp::cli

#endif  // WASSERWARP_CLIENT_ONE_OFF_VALIDATION_H_
