// What the entry point needs to know about a command to dispatch to it.

#ifndef WASSERWARP_CLIENT_COMMAND_H_
#define WASSERWARP_CLIENT_COMMAND_H_

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "args.h"
#include "wasserwarp/judged_result.h"

namespace wasserwarp::cli {

// kNotEnded: what was to be judged (a validation on a server) has not ended yet, so there is
// no judgement; its own exit status tells a pipeline to look again later.
enum class Judgement { kPass, kFail, kNotEnded };

// A judgement and, where the command has one, what it judged, for the entry point to write to
// the files --junit and --openmetrics name.
struct Judged {
  Judged(Judgement judgement) : judgement(judgement) {}  // NOLINT: nothing judged to report
  Judged(Judgement judgement, JudgedResult result)
      : judgement(judgement), result(std::move(result)) {}

  Judgement judgement;
  std::optional<JudgedResult> result;
};

struct Command {
  absl::string_view name;
  absl::string_view synopsis;  // for the overall usage; one line per form of the command
  std::string usage;           // `wasserwarp <name> --help`
  std::vector<FlagSpec> flags;
  // Writes results to stdout; errors come back for the entry point to report.
  absl::Status (*run)(const ParsedArgs& args) = nullptr;
  // Instead of `run`, for a command whose result is a judgement: a FAIL is not an error, but
  // a release pipeline must see it in the exit status.
  absl::StatusOr<Judged> (*judge)(const ParsedArgs& args) = nullptr;
};

}  // namespace wasserwarp::cli

#endif  // WASSERWARP_CLIENT_COMMAND_H_
