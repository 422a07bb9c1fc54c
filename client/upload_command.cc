#include "upload_command.h"

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "flag_definition.h"
#include "run_flags.h"
#include "server_flags.h"
#include "validation_client.h"

namespace wasserwarp::cli {
namespace {

absl::Status RunUpload(const ParsedArgs& args) {
  if (!args.positional().empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("upload: unexpected argument \"", args.positional().front(),
                     "\"; give the runs with --sim PATH... and --ref PATH..."));
  }
  absl::StatusOr<std::string> session = RequiredSession(args, "upload");
  if (!session.ok()) return session.status();
  if (!args.Has(kSimFlag.name) && !args.Has(kRefFlag.name)) {
    return absl::InvalidArgumentError("upload: give the runs with --sim PATH... or --ref PATH...");
  }
  absl::StatusOr<RunSets> runs = ReadRunFlags(args);
  if (!runs.ok()) return runs.status();
  PrintNotes(runs->notes);
  absl::StatusOr<std::unique_ptr<client::ValidationClient>> client =
      ConnectToServer(args, "upload");
  if (!client.ok()) return client.status();
  absl::StatusOr<v1::UploadSeriesResponse> uploaded = (*client)->UploadRuns(
      *session, runs->simulation, runs->reference, runs->simulation_weights,
      runs->reference_weights, {}, {runs->simulation_sources, runs->reference_sources});
  if (!uploaded.ok()) return uploaded.status();
  int simulated = 0;
  int reference = 0;
  for (const v1::RunInfo& run : uploaded->committed_runs()) {
    ++(run.role() == v1::ROLE_SIMULATION ? simulated : reference);
  }
  std::printf(
      "uploaded %d simulated and %d reference runs (%lld samples) to "
      "session %s\n",
      simulated, reference, static_cast<long long>(uploaded->committed_samples()),
      session->c_str());
  return absl::OkStatus();
}

std::vector<FlagSection> UploadSections() {
  std::vector<DocumentedFlag> server = {
      kServerFlag, DescribedAs(kSessionFlag, "the session to upload into (required)")};
  const std::vector<DocumentedFlag> security = SecurityFlags();
  server.insert(server.end(), security.begin(), security.end());
  return {
      {"runs",
       {kSimFlag, kRefFlag,
        DescribedAs(kSimWeightsFlag,
                    "\"run_id,weight\" lines for the simulated runs given here\n"
                    "(default: equal)"),
        kRefWeightsFlag, kMdf4ChannelsFlag}},
      {"server", server},
  };
}

}  // namespace

Command UploadCommand() {
  const std::vector<FlagSection> sections = UploadSections();
  return {
      .name = "upload",
      .synopsis =
          "upload --server HOST:PORT --session ID [--sim PATH...] "
          "[--ref PATH...] "
          "[options]",
      .usage = HelpText("usage: wasserwarp upload --server HOST:PORT --session "
                        "ID [--sim PATH...]\n"
                        "                         [--ref PATH...] [options]\n"
                        "\n"
                        "Uploads runs into a session on the server (see "
                        "'wasserwarp sessions'), where they\n"
                        "stay for validations until the session is deleted or "
                        "expires: a bench uploads its\n"
                        "reference runs once and then validates each new set "
                        "of simulated runs against them.\n"
                        "A PATH is a CSV, MDF 4 (.mf4) or MATLAB (.mat) file or a "
                        "directory, which stands for\n"
                        "every *.csv, *.mf4 and *.mat file directly in it; a run's "
                        "id is its file name without\n"
                        "extension. Every file is read and checked before anything "
                        "is sent. A run id the session\n"
                        "already holds in the same role is an error; the runs "
                        "uploaded before it stay.\n",
                        sections),
      .flags = FlagSpecs(sections),
      .run = &RunUpload,
  };
}

}  // namespace wasserwarp::cli
