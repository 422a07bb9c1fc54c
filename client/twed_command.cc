#include "twed_command.h"

#include <cstdio>
#include <memory>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "comparison_flags.h"
#include "embedded_limits.h"
#include "flag_definition.h"
#include "run_flags.h"
#include "server_flags.h"
#include "validation_client.h"
#include "wasserwarp/prepare.h"
#include "wasserwarp/run_files.h"
#include "wasserwarp/twed.h"
#include "wire/convert.h"
#include "wire/parameters.h"

namespace wasserwarp::cli {
namespace {

// The same preparation as `validate`, with A simulated and B reference, so that the number
// printed here is the one in validate's cost matrix.
absl::StatusOr<double> TwedHere(Series a, Series b, const ValidationOptions& options) {
  if (absl::Status status = CheckEmbeddedValidation({a}, {b}, options, /*html_report=*/false);
      !status.ok()) {
    return status;
  }
  absl::StatusOr<PreparedRuns> runs = PrepareRuns({std::move(a)}, {std::move(b)}, options.prepare);
  if (!runs.ok()) return runs.status();
  return Twed(runs->simulation[0], runs->reference[0], options.twed);
}

absl::StatusOr<double> TwedOnServer(const ParsedArgs& args, const Series& a, const Series& b,
                                    const ValidationOptions& options) {
  absl::StatusOr<std::unique_ptr<client::ValidationClient>> client = ConnectToServer(args, "twed");
  if (!client.ok()) return client.status();
  absl::StatusOr<v1::ComputeTwedResponse> response =
      (*client)->ComputeTwed(a, b, wire::ParametersOf(options));
  if (!response.ok()) return response.status();
  return response->twed();
}

absl::Status RunTwed(const ParsedArgs& args) {
  if (args.positional().size() != 2) {
    return absl::InvalidArgumentError(
        absl::StrCat("twed: expected two run files A.csv B.csv, got ", args.positional().size()));
  }
  ParameterSettings settings;
  if (absl::Status status = ReadComparisonFlags(args, settings); !status.ok()) return status;
  std::vector<std::string> notes;
  absl::StatusOr<Series> a = ReadRunFile(args.positional()[0], RunFileOptionsOf(args), notes);
  if (!a.ok()) return a.status();
  absl::StatusOr<Series> b = ReadRunFile(args.positional()[1], RunFileOptionsOf(args), notes);
  if (!b.ok()) return b.status();
  PrintNotes(notes);
  absl::StatusOr<double> distance = args.Has(kServerFlag.name)
                                        ? TwedOnServer(args, *a, *b, settings.options)
                                        : TwedHere(*std::move(a), *std::move(b), settings.options);
  if (!distance.ok()) return distance.status();
  std::printf("%.17g\n", *distance);
  return absl::OkStatus();
}

}  // namespace

Command TwedCommand() {
  std::vector<DocumentedFlag> options = ComparisonFlags();
  options.push_back(DescribedAs(kServerFlag, "compute on this wasserwarp-server instead of here"));
  const std::vector<DocumentedFlag> security = SecurityFlags();
  options.insert(options.end(), security.begin(), security.end());
  const std::vector<FlagSection> sections = {{"options", options}};
  return {
      .name = "twed",
      .synopsis = "twed A.csv B.csv [options]",
      .usage = HelpText("usage: wasserwarp twed A.csv B.csv [options]\n"
                        "\n"
                        "Prints TWED(A, B) with 17 significant digits. A and B "
                        "are run files, CSV, MDF 4 or\n"
                        "MATLAB (.mf4, .mat, whose channels --channels picks), "
                        "prepared as validate\n"
                        "prepares a simulated and a reference run (channel "
                        "selection, alignment, no scaling).\n",
                        sections),
      .flags = FlagSpecs(sections),
      .run = &RunTwed,
  };
}

}  // namespace wasserwarp::cli
