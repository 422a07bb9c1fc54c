#include "run_flags.h"

#include <cstdio>
#include <map>
#include <string>
#include <tuple>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "wasserwarp/csv.h"
#include "wasserwarp/run_files.h"

namespace wasserwarp::cli {
namespace {

absl::Status ReadWeights(absl::string_view flag, const ParsedArgs& args,
                         const DocumentedFlag& runs_flag, const std::vector<Series>& runs,
                         std::vector<double>& weights) {
  if (!args.Has(runs_flag.name)) {
    return FlagError(flag, absl::StrCat("needs the runs it weighs, given by ", runs_flag.name));
  }
  const std::string& path = *args.Value(flag);
  absl::StatusOr<std::map<std::string, double>> by_id = ReadWeightsCsv(path);
  if (!by_id.ok()) return by_id.status();
  absl::StatusOr<std::vector<double>> read = WeightsForRuns(*by_id, runs, path);
  if (!read.ok()) return read.status();
  weights = *std::move(read);
  return absl::OkStatus();
}

absl::Status ReadSimulationWeights(absl::string_view flag, const ParsedArgs& args, RunSets& sets) {
  return ReadWeights(flag, args, kSimFlag, sets.simulation, sets.simulation_weights);
}

absl::Status ReadReferenceWeights(absl::string_view flag, const ParsedArgs& args, RunSets& sets) {
  return ReadWeights(flag, args, kRefFlag, sets.reference, sets.reference_weights);
}

}  // namespace

RunFileOptions RunFileOptionsOf(const ParsedArgs& args) {
  RunFileOptions options;
  if (const std::string* channels = args.Value("--channels"); channels != nullptr) {
    options.channels = absl::StrSplit(*channels, ',');
  }
  return options;
}

void PrintNotes(const std::vector<std::string>& notes) {
  for (const std::string& note : notes)
    std::fprintf(stderr, "wasserwarp: note: %s\n", note.c_str());
}

absl::Status ReadRunFiles(absl::string_view flag, const ParsedArgs& args,
                          std::vector<Series>& runs) {
  std::vector<std::string> notes;
  absl::StatusOr<std::vector<Series>> read =
      ReadRuns(args.Values(flag), RunFileOptionsOf(args), notes);
  if (!read.ok()) return read.status();
  runs = *std::move(read);
  PrintNotes(notes);
  return absl::OkStatus();
}

const FlagDefinition<std::vector<Series>> kSimFlag = {"--sim", Arity::kMany, "PATH...",
                                                      "simulated runs", &ReadRunFiles};
const FlagDefinition<std::vector<Series>> kRefFlag = {"--ref", Arity::kMany, "PATH...",
                                                      "measured reference runs", &ReadRunFiles};
const FlagDefinition<RunSets> kSimWeightsFlag = {
    "--sim-weights", Arity::kOne, "FILE",
    "\"run_id,weight\" lines for the simulated runs (default: equal)", &ReadSimulationWeights};
const FlagDefinition<RunSets> kRefWeightsFlag = {
    "--ref-weights", Arity::kOne, "FILE", "the same for the reference runs", &ReadReferenceWeights};

const DocumentedFlag kMdf4ChannelsFlag = {{"--channels", Arity::kOne},
                                          "a,b",
                                          "the channels to read from MDF 4 and MATLAB files, as\n"
                                          "group/channel where a name is in several MDF 4 groups\n"
                                          "(default: every readable one)"};

std::vector<DocumentedFlag> RunFlags() {
  return {kSimFlag, kRefFlag, kSimWeightsFlag, kRefWeightsFlag};
}

absl::StatusOr<RunSets> ReadRunFlags(const ParsedArgs& args) {
  RunSets sets;
  // Every run file before any weights file, so that a weights file is checked against runs
  // known to be good.
  for (auto [flag, runs, sources] :
       {std::tuple{&kSimFlag, &sets.simulation, &sets.simulation_sources},
        std::tuple{&kRefFlag, &sets.reference, &sets.reference_sources}}) {
    if (!args.Has(flag->name)) continue;
    absl::StatusOr<RunFileSet> read =
        ReadRunsWithSources(args.Values(flag->name), RunFileOptionsOf(args), sets.notes);
    if (!read.ok()) return read.status();
    *runs = std::move(read->runs);
    *sources = std::move(read->sources);
  }
  for (const FlagDefinition<RunSets>* weights : {&kSimWeightsFlag, &kRefWeightsFlag}) {
    if (absl::Status status = ReadFlag(*weights, args, sets); !status.ok()) return status;
  }
  return sets;
}

}  // namespace wasserwarp::cli
