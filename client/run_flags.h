// The runs named on the command line: --sim and --ref with their weights files, read and
// checked here so that a bad file is reported with its line before any work starts.

#ifndef WASSERWARP_CLIENT_RUN_FLAGS_H_
#define WASSERWARP_CLIENT_RUN_FLAGS_H_

#include <vector>

#include "absl/status/statusor.h"
#include "args.h"
#include "wasserwarp/series.h"

namespace wasserwarp::cli {

struct RunSets {
  std::vector<Series> simulation;
  std::vector<Series> reference;
  // Empty without a weights file; otherwise one raw weight per run, in run order.
  std::vector<double> simulation_weights;
  std::vector<double> reference_weights;
};

// --sim PATH..., --ref PATH..., --sim-weights FILE, --ref-weights FILE.
std::vector<FlagSpec> RunFlags();

// A side whose flag is absent stays empty; its weights flag is then an error.
absl::StatusOr<RunSets> ReadRunFlags(const ParsedArgs& args);

}  // namespace wasserwarp::cli

#endif  // WASSERWARP_CLIENT_RUN_FLAGS_H_
