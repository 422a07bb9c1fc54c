#include "twed_command.h"

#include <cstdio>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "comparison_flags.h"
#include "wasserwarp/csv.h"
#include "wasserwarp/prepare.h"
#include "wasserwarp/twed.h"

namespace wasserwarp::cli {
namespace {

absl::Status RunTwed(const ParsedArgs& args) {
  if (args.positional().size() != 2) {
    return absl::InvalidArgumentError(
        absl::StrCat("twed: expected two run files A.csv B.csv, got ", args.positional().size()));
  }
  TwedParams params;
  PrepareOptions prepare;
  if (absl::Status status = ReadComparisonFlags(args, params, prepare); !status.ok()) {
    return status;
  }
  absl::StatusOr<Series> a = ReadSeriesCsv(args.positional()[0]);
  if (!a.ok()) return a.status();
  absl::StatusOr<Series> b = ReadSeriesCsv(args.positional()[1]);
  if (!b.ok()) return b.status();
  // The same preparation as `validate`, with A simulated and B reference, so that the number
  // printed here is the one in validate's cost matrix.
  absl::StatusOr<PreparedRuns> runs = PrepareRuns({*std::move(a)}, {*std::move(b)}, prepare);
  if (!runs.ok()) return runs.status();
  absl::StatusOr<double> distance = Twed(runs->simulation[0], runs->reference[0], params);
  if (!distance.ok()) return distance.status();
  std::printf("%.17g\n", *distance);
  return absl::OkStatus();
}

}  // namespace

Command TwedCommand() {
  return {
      .name = "twed",
      .synopsis = "twed A.csv B.csv [options]",
      .usage = absl::StrCat(
          "usage: wasserwarp twed A.csv B.csv [options]\n"
          "\n"
          "Prints TWED(A, B) with 17 significant digits. A and B are prepared as validate\n"
          "prepares a simulated and a reference run (channel selection, alignment, no scaling).\n"
          "\n"
          "options:\n",
          kComparisonFlagsUsage),
      .flags = ComparisonFlags(),
      .run = &RunTwed,
  };
}

}  // namespace wasserwarp::cli
