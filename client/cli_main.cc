// The `wasserwarp` command line: dispatch to a command and map its outcome to an exit status
// that release pipelines can branch on.

#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "args.h"
#include "command.h"
#include "compare_command.h"
#include "flag_terms.h"
#include "identify_command.h"
#include "inspect_command.h"
#include "pipeline_reports.h"
#include "process_memory.h"
#include "sensitivity_command.h"
#include "sessions_command.h"
#include "twed_command.h"
#include "upload_command.h"
#include "validate_command.h"
#include "validations_command.h"
#include "wasserwarp/field_error.h"

namespace wasserwarp::cli {
namespace {

constexpr int kExitSuccess = 0;
constexpr int kExitFail = 1;  // a judging command's negative judgement
constexpr int kExitBadInput = 2;
constexpr int kExitInternal = 3;
constexpr int kExitNotEnded = 4;  // `validations show` of a validation still queued or running

// Codes a user can fix by changing the input or the command line; every other code is a
// failure of the program or its environment.
int ExitCodeFor(const absl::Status& status) {
  switch (status.code()) {
    case absl::StatusCode::kOk:
      return kExitSuccess;
    case absl::StatusCode::kInvalidArgument:
    case absl::StatusCode::kNotFound:
    case absl::StatusCode::kPermissionDenied:
    case absl::StatusCode::kFailedPrecondition:
    case absl::StatusCode::kOutOfRange:
    case absl::StatusCode::kAlreadyExists:
      return kExitBadInput;
    case absl::StatusCode::kResourceExhausted:
      // A size the command's own options imply is bad input; a full server queue is not.
      return ErrorField(status).empty() ? kExitInternal : kExitBadInput;
    default:
      return kExitInternal;
  }
}

std::string Usage(const std::vector<Command>& commands) {
  std::string usage =
      "usage: wasserwarp <command> [options]\n"
      "\n"
      "How well do simulated runs reproduce measured ones? Runs are CSV files with a header\n"
      "\"time,<channel>,...\"; two runs are compared by their TWED (time warp edit distance),\n"
      "two sets of runs by the Wasserstein distance over it. With --server HOST:PORT a\n"
      "wasserwarp-server does the work, and sessions there keep runs for later validations.\n"
      "\n"
      "commands:\n";
  for (const Command& command : commands) {
    for (absl::string_view line : absl::StrSplit(command.synopsis, '\n')) {
      absl::StrAppendFormat(&usage, "  wasserwarp %s\n", line);
    }
  }
  absl::StrAppend(&usage,
                  "  wasserwarp help [command]\n"
                  "  wasserwarp <command> --help\n"
                  "  wasserwarp --version\n"
                  "\n"
                  "exit status: 0 success (validate, sensitivity, identify: PASS), 1 their FAIL, 2 "
                  "bad input or\n"
                  "usage, "
                  "3 internal error, 4 the validation has not ended yet (validations show)\n");
  return usage;
}

int Fail(const absl::Status& error) {
  const absl::Status status = InFlagTerms(error);
  std::fprintf(stderr, "wasserwarp: %s\n", std::string(status.message()).c_str());
  return ExitCodeFor(status);
}

int Main(const std::vector<std::string>& args) {
  const std::vector<Command> commands = {
      TwedCommand(),     ValidateCommand(), CompareCommand(),  SensitivityCommand(),
      IdentifyCommand(), UploadCommand(),   SessionsCommand(), ValidationsCommand(),
      InspectCommand(),  ConvertCommand()};
  const auto find = [&commands](const std::string& name) -> const Command* {
    for (const Command& command : commands) {
      if (command.name == name) return &command;
    }
    return nullptr;
  };
  const auto unknown = [](const std::string& name) {
    return absl::InvalidArgumentError(
        absl::StrCat("unknown command \"", name, "\"; see 'wasserwarp --help'"));
  };

  if (args.empty()) {
    std::fputs(Usage(commands).c_str(), stderr);
    return kExitBadInput;
  }
  const std::string& first = args.front();
  if (first == "--version") {
    std::printf("wasserwarp %s\n", WASSERWARP_VERSION);
    return kExitSuccess;
  }
  if (first == "help" || first == "--help" || first == "-h") {
    if (args.size() == 1) {
      std::fputs(Usage(commands).c_str(), stdout);
      return kExitSuccess;
    }
    const Command* command = find(args[1]);
    if (command == nullptr) return Fail(unknown(args[1]));
    std::fputs(command->usage.c_str(), stdout);
    return kExitSuccess;
  }
  const Command* command = find(first);
  if (command == nullptr) return Fail(unknown(first));

  const std::vector<std::string> rest(args.begin() + 1, args.end());
  if (WantsHelp(rest)) {
    std::fputs(command->usage.c_str(), stdout);
    return kExitSuccess;
  }
  const absl::Time started = absl::Now();
  absl::StatusOr<ParsedArgs> parsed = ParseArgs(rest, command->flags);
  absl::StatusOr<Judged> judged = Judgement::kPass;
  if (!parsed.ok()) {
    judged =
        absl::InvalidArgumentError(absl::StrCat(command->name, ": ", parsed.status().message(),
                                                "; see 'wasserwarp ", command->name, " --help'"));
  } else if (command->judge != nullptr) {
    judged = command->judge(*parsed);
  } else if (absl::Status status = command->run(*parsed); !status.ok()) {
    judged = status;
  }
  if (!judged.ok()) judged = InFlagTerms(judged.status());
  // Whatever the outcome, so that a pipeline's report shows a command that could not run too.
  if (absl::Status written =
          WritePipelineReports(PipelineReportPathsOf(rest, command->flags, parsed),
                               PipelineResultOf(judged, command->name, started));
      !written.ok()) {
    if (judged.ok()) return Fail(written);
    std::fprintf(stderr, "wasserwarp: %s\n", std::string(written.message()).c_str());
  }
  if (!judged.ok()) return Fail(judged.status());
  const Judgement judgement = judged->judgement;
  // A full disk or a closed pipe must not pass for a complete answer.
  if (std::fflush(stdout) != 0) {
    return Fail(absl::UnavailableError("cannot write to standard output"));
  }
  switch (judgement) {
    case Judgement::kPass:
      return kExitSuccess;
    case Judgement::kFail:
      return kExitFail;
    case Judgement::kNotEnded:
      return kExitNotEnded;
  }
  return kExitInternal;
}

}  // namespace
}  // namespace wasserwarp::cli

int main(int argc, char** argv) {
  wasserwarp::cli::KeepFreedMemoryForReuse();
  // The library reports errors as absl::Status; an exception here (std::bad_alloc, a bug) is
  // by definition unexpected.
  try {
    return wasserwarp::cli::Main(std::vector<std::string>(argv + 1, argv + argc));
  } catch (const std::exception& error) {
    std::fprintf(stderr, "wasserwarp: internal error: %s\n", error.what());
  } catch (...) {
    std::fputs("wasserwarp: internal error\n", stderr);
  }
  return wasserwarp::cli::kExitInternal;
}
