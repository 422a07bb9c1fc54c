#include "validate_command.h"

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "convert.h"
#include "progress_bar.h"
#include "run_flags.h"
#include "server_flags.h"
#include "summary.h"
#include "validation_client.h"
#include "validation_flags.h"
#include "wasserwarp/report_json.h"
#include "wasserwarp/validation.h"

namespace wasserwarp::cli {
namespace {

using Clock = std::chrono::steady_clock;

// A one-off session outlives its validation only when the CLI is killed; the server then
// drops it after this long idle.
constexpr absl::Duration kOneOffSessionTtl = absl::Minutes(15);

absl::Status WriteFile(const std::string& path, const std::string& content) {
  const std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(path.c_str(), "wb"),
                                                             &std::fclose);
  if (file == nullptr) return absl::ErrnoToStatus(errno, absl::StrCat(path, ": cannot write"));
  if (std::fwrite(content.data(), 1, content.size(), file.get()) != content.size() ||
      std::fflush(file.get()) != 0) {
    return absl::ErrnoToStatus(errno, absl::StrCat(path, ": cannot write"));
  }
  return absl::OkStatus();
}

absl::StatusOr<ValidationOptions> ReadOptions(const ParsedArgs& args) {
  ValidationOptions options;
  if (absl::Status status = ReadValidationParameterFlags(args, options); !status.ok()) {
    return status;
  }
  absl::StatusOr<std::optional<int>> threads = args.Integer("--threads");
  if (!threads.ok()) return threads.status();
  if (threads->has_value()) {
    if (**threads < 1) return FlagError("--threads", "must be at least 1");
    options.compute.max_threads = **threads;
  }
  options.keep_cost_matrix = args.Has("--cost-matrix");
  return options;
}

absl::Status RequireRuns(const ParsedArgs& args) {
  for (absl::string_view flag : {"--sim", "--ref"}) {
    if (!args.Has(flag)) {
      return absl::InvalidArgumentError(absl::StrCat("validate: ", flag, " PATH... is required"));
    }
  }
  return absl::OkStatus();
}

// The same output whether the report was computed here or on a server.
absl::Status WriteResults(const ParsedArgs& args, const ValidationReport& report,
                          Clock::time_point start) {
  // With the JSON on stdout, the summary moves to stderr so that stdout stays one document.
  std::FILE* summary_stream = stdout;
  if (const std::string* json_path = args.Value("--json")) {
    const std::string json = ReportToJson(report);
    if (*json_path == "-") {
      std::fputs(json.c_str(), stdout);
      summary_stream = stderr;
    } else if (absl::Status written = WriteFile(*json_path, json); !written.ok()) {
      return written;
    }
  }
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  std::fputs(FormatSummary(report, seconds).c_str(), summary_stream);
  return absl::OkStatus();
}

absl::Status ValidateHere(const ParsedArgs& args, Clock::time_point start) {
  if (absl::Status status = RequireRuns(args); !status.ok()) return status;
  absl::StatusOr<ValidationOptions> options = ReadOptions(args);
  if (!options.ok()) return options.status();
  absl::StatusOr<RunSets> runs = ReadRunFlags(args);
  if (!runs.ok()) return runs.status();
  options->simulation_weights = std::move(runs->simulation_weights);
  options->reference_weights = std::move(runs->reference_weights);
  absl::StatusOr<ValidationReport> report = Validate(runs->simulation, runs->reference, *options);
  if (!report.ok()) return report.status();
  return WriteResults(args, *report, start);
}

absl::StatusOr<ValidationReport> ValidateOnServer(client::ValidationClient& client,
                                                  absl::string_view session_id,
                                                  const v1::ValidationParameters& parameters,
                                                  bool include_cost_matrix) {
  ProgressBar bar(stderr);
  absl::StatusOr<ValidationReport> report =
      client.Validate(session_id, parameters, include_cost_matrix,
                      [&bar](const v1::ValidateProgress& progress) { bar.Update(progress); });
  bar.Clear();
  return report;
}

// Uploads into a session of its own, validates and deletes the session whatever happened.
absl::Status ValidateOneOff(const ParsedArgs& args, Clock::time_point start) {
  if (absl::Status status = RequireRuns(args); !status.ok()) return status;
  absl::StatusOr<ValidationOptions> options = ReadOptions(args);
  if (!options.ok()) return options.status();
  absl::StatusOr<RunSets> runs = ReadRunFlags(args);
  if (!runs.ok()) return runs.status();
  absl::StatusOr<std::unique_ptr<client::ValidationClient>> client =
      ConnectToServer(args, "validate");
  if (!client.ok()) return client.status();

  v1::Session settings;
  settings.mutable_idle_ttl()->set_seconds(absl::ToInt64Seconds(kOneOffSessionTtl));
  absl::StatusOr<v1::Session> session = (*client)->CreateSession("", settings);
  if (!session.ok()) return session.status();
  const std::string session_id(client::SessionIdOf(session->name()));

  absl::StatusOr<ValidationReport> report = [&]() -> absl::StatusOr<ValidationReport> {
    absl::StatusOr<v1::UploadSeriesResponse> uploaded =
        (*client)->UploadRuns(session_id, runs->simulation, runs->reference,
                              runs->simulation_weights, runs->reference_weights);
    if (!uploaded.ok()) return uploaded.status();
    // Every parameter, defaults included, so that the server computes exactly what this
    // command would compute without --server.
    return ValidateOnServer(**client, session_id, wire::ParametersOf(*options),
                            options->keep_cost_matrix);
  }();
  if (absl::Status deleted = (*client)->DeleteSession(session_id); !deleted.ok()) {
    // The result stands; the session expires on its own.
    std::fprintf(stderr, "wasserwarp: warning: cannot delete session %s: %s\n", session_id.c_str(),
                 std::string(deleted.message()).c_str());
  }
  if (!report.ok()) return report.status();
  return WriteResults(args, *report, start);
}

absl::Status ValidateSession(const ParsedArgs& args, Clock::time_point start) {
  for (const FlagSpec& flag : RunFlags()) {
    if (args.Has(flag.name)) {
      return absl::InvalidArgumentError(
          absl::StrCat("validate: ", flag.name,
                       " does not go with --session, which validates the runs the session "
                       "holds; add runs with 'wasserwarp upload'"));
    }
  }
  absl::StatusOr<v1::ValidationParameters> overrides = GivenParameters(args);
  if (!overrides.ok()) return overrides.status();
  absl::StatusOr<std::unique_ptr<client::ValidationClient>> client =
      ConnectToServer(args, "validate");
  if (!client.ok()) return client.status();
  absl::StatusOr<ValidationReport> report = ValidateOnServer(
      **client, *args.Value(kSessionFlag.name), *overrides, args.Has("--cost-matrix"));
  if (!report.ok()) return report.status();
  return WriteResults(args, *report, start);
}

absl::Status RunValidate(const ParsedArgs& args) {
  const Clock::time_point start = Clock::now();
  if (!args.positional().empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("validate: unexpected argument \"", args.positional().front(),
                     "\"; give the runs with --sim PATH... and --ref PATH..."));
  }
  if (!args.Has(kServerFlag.name)) {
    if (args.Has(kSessionFlag.name)) {
      return absl::InvalidArgumentError("validate: --session needs --server HOST:PORT");
    }
    return ValidateHere(args, start);
  }
  if (args.Has("--threads")) {
    return FlagError("--threads",
                     "does not go with --server, which decides how many cores "
                     "a validation gets");
  }
  return args.Has(kSessionFlag.name) ? ValidateSession(args, start) : ValidateOneOff(args, start);
}

std::vector<FlagSpec> ValidateFlags() {
  std::vector<FlagSpec> flags = ValidationParameterFlags();
  for (const FlagSpec& flag : RunFlags()) flags.push_back(flag);
  flags.insert(flags.end(), {kServerFlag,
                             kSessionFlag,
                             {"--json", Arity::kOne},
                             {"--cost-matrix", Arity::kSwitch},
                             {"--threads", Arity::kOne}});
  return flags;
}

}  // namespace

Command ValidateCommand() {
  return {
      .name = "validate",
      .synopsis =
          "validate --sim PATH... --ref PATH... [options]\n"
          "validate --server HOST:PORT --session ID [options]",
      .usage = absl::StrCat(
          "usage: wasserwarp validate --sim PATH... --ref PATH... [options]\n"
          "       wasserwarp validate --server HOST:PORT --session ID [options]\n"
          "\n"
          "Computes the TWED between every simulated and every reference run and the\n"
          "Wasserstein distance between the two sets, with the optimal transport plan and its\n"
          "certificate. A PATH is a CSV file or a directory, which stands for every *.csv file\n"
          "directly in it; a run's id is its file name without .csv.\n"
          "\n"
          "With --server, a wasserwarp-server does the work, with the same output and exit\n"
          "status: given --sim and --ref, in a session of its own that is deleted afterwards;\n"
          "given --session, on the runs that session holds (see 'wasserwarp upload'), with the\n"
          "session's default parameters where no comparison option is given here.\n"
          "\n"
          "runs:\n"
          "  --sim PATH...        simulated runs (required without --session)\n"
          "  --ref PATH...        measured reference runs (required without --session)\n"
          "  --sim-weights FILE   \"run_id,weight\" lines for the simulated runs (default: equal)\n"
          "  --ref-weights FILE   the same for the reference runs\n"
          "\n"
          "comparison:\n",
          ValidationParameterFlagsUsage(),
          "\n"
          "server:\n"
          "  --server HOST:PORT   validate on this wasserwarp-server; a progress bar shows on\n"
          "                       stderr when it is a terminal\n"
          "  --session ID         validate the runs this session on the server holds\n"
          "\n"
          "output:\n"
          "  --json FILE|-        write the JSON report to FILE; with -, to stdout, and the\n"
          "                       summary to stderr\n"
          "  --cost-matrix        include the TWED cost matrix in the JSON report\n"
          "  --threads N          worker threads (default: every core; not with --server)\n"),
      .flags = ValidateFlags(),
      .run = &RunValidate,
  };
}

}  // namespace wasserwarp::cli
