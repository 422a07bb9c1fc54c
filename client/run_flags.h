// The runs named on the command line: --sim and --ref with their weights files, read and
// checked here so that a bad file is reported with its line before any work starts.

#ifndef WASSERWARP_CLIENT_RUN_FLAGS_H_
#define WASSERWARP_CLIENT_RUN_FLAGS_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "args.h"
#include "flag_definition.h"
#include "wasserwarp/run_files.h"
#include "wasserwarp/run_source.h"
#include "wasserwarp/series.h"

namespace wasserwarp::cli {

struct RunSets {
  std::vector<Series> simulation;
  std::vector<Series> reference;
  // Empty without a weights file; otherwise one raw weight per run, in run order.
  std::vector<double> simulation_weights;
  std::vector<double> reference_weights;
  // What reading the run files noted, for the report (ValidationReport::input_notes).
  std::vector<std::string> notes;
  // The file each run was read from (as named, a directory's files under it) and its SHA-256,
  // one per run, in run order: for the report's runs and the server's (SeriesHeader.source).
  std::vector<RunSource> simulation_sources;
  std::vector<RunSource> reference_sources;
};

// How the command line asks for run files to be read: `--channels a,b` picks the channels of
// MDF 4 and MATLAB files.
RunFileOptions RunFileOptionsOf(const ParsedArgs& args);

// What reading run files noted (samples dropped, channels interpolated), on stderr.
void PrintNotes(const std::vector<std::string>& notes);

// Reads the run files of `flag`'s PATH... values, each a CSV, MDF 4 or MATLAB file or a directory
// of them; the reader of every flag that names runs.
absl::Status ReadRunFiles(absl::string_view flag, const ParsedArgs& args,
                          std::vector<Series>& runs);

extern const FlagDefinition<std::vector<Series>> kSimFlag;  // --sim PATH...
extern const FlagDefinition<std::vector<Series>> kRefFlag;  // --ref PATH...
// --sim-weights FILE and --ref-weights FILE, weights of the runs RunSets holds.
extern const FlagDefinition<RunSets> kSimWeightsFlag;
extern const FlagDefinition<RunSets> kRefWeightsFlag;

// --channels a,b for commands that read runs without comparing them (upload): the channels of
// MDF 4 and MATLAB files, which comparing commands take from their own --channels.
extern const DocumentedFlag kMdf4ChannelsFlag;

// --sim, --ref, --sim-weights, --ref-weights.
std::vector<DocumentedFlag> RunFlags();

// A side whose flag is absent stays empty; its weights flag is then an error. The files'
// notes are kept in the result, not printed; their sources are there too.
absl::StatusOr<RunSets> ReadRunFlags(const ParsedArgs& args);

}  // namespace wasserwarp::cli

#endif  // WASSERWARP_CLIENT_RUN_FLAGS_H_
