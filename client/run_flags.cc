#include "run_flags.h"

#include <map>
#include <string>

#include "absl/strings/str_cat.h"
#include "wasserwarp/csv.h"

namespace wasserwarp::cli {
namespace {

struct Side {
  absl::string_view runs_flag;
  absl::string_view weights_flag;
  std::vector<Series>& runs;
  std::vector<double>& weights;
};

absl::Status ReadRunsOf(const ParsedArgs& args, const Side& side) {
  if (!args.Has(side.runs_flag)) {
    if (args.Has(side.weights_flag)) {
      return FlagError(side.weights_flag,
                       absl::StrCat("needs the runs it weighs, given by ", side.runs_flag));
    }
    return absl::OkStatus();
  }
  absl::StatusOr<std::vector<Series>> runs = ReadRuns(args.Values(side.runs_flag));
  if (!runs.ok()) return runs.status();
  side.runs = *std::move(runs);
  return absl::OkStatus();
}

absl::Status ReadWeightsOf(const ParsedArgs& args, const Side& side) {
  const std::string* path = args.Value(side.weights_flag);
  if (path == nullptr) return absl::OkStatus();
  absl::StatusOr<std::map<std::string, double>> by_id = ReadWeightsCsv(*path);
  if (!by_id.ok()) return by_id.status();
  absl::StatusOr<std::vector<double>> weights = WeightsForRuns(*by_id, side.runs, *path);
  if (!weights.ok()) return weights.status();
  side.weights = *std::move(weights);
  return absl::OkStatus();
}

}  // namespace

std::vector<FlagSpec> RunFlags() {
  return {{"--sim", Arity::kMany},
          {"--ref", Arity::kMany},
          {"--sim-weights", Arity::kOne},
          {"--ref-weights", Arity::kOne}};
}

absl::StatusOr<RunSets> ReadRunFlags(const ParsedArgs& args) {
  RunSets sets;
  const Side sides[] = {{"--sim", "--sim-weights", sets.simulation, sets.simulation_weights},
                        {"--ref", "--ref-weights", sets.reference, sets.reference_weights}};
  // Every run file before any weights file, so that a weights file is checked against runs
  // known to be good.
  for (const Side& side : sides) {
    if (absl::Status status = ReadRunsOf(args, side); !status.ok()) return status;
  }
  for (const Side& side : sides) {
    if (absl::Status status = ReadWeightsOf(args, side); !status.ok()) return status;
  }
  return sets;
}

}  // namespace wasserwarp::cli
