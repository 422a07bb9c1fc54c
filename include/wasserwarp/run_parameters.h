// The model parameters each simulated run was simulated with, and the random inputs (its
// trial) that drove it: what a parameter study groups runs by. Read from the CSV files a user
// writes beside the runs (`--sim-params`, `--ref-groups`), or uploaded with each run.

#ifndef WASSERWARP_RUN_PARAMETERS_H_
#define WASSERWARP_RUN_PARAMETERS_H_

#include <cstddef>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace wasserwarp {

// A study tabulates its runs in CSV and JSON, a column per parameter and a field for the trial:
// names and trials must fit both unquoted, and the columns stay few enough to read. The same
// rules for a parameter file and for an upload.
inline constexpr size_t kMaxRunParameters = 64;
inline constexpr size_t kMaxParameterNameLength = 64;
inline constexpr size_t kMaxTrialLength = 128;
inline constexpr char kParameterNameRule[] =
    "1 to 64 characters of [A-Za-z0-9_.-], not starting with a digit, so that it can be a CSV "
    "column and a JSON key";
inline constexpr char kTrialRule[] =
    "at most 128 characters of printable ASCII without commas, so that it can be a CSV field";

// Why `name` cannot name a parameter ("it starts with a digit", ...); empty when it can.
std::string ParameterNameFault(std::string_view name);
// Why `trial` cannot name a trial; empty when it can.
std::string TrialFault(std::string_view trial);

// What a simulated run was simulated with, for parameter studies: runs with the same
// parameters form a design point, and runs of different points with the same trial were
// driven by the same random inputs (common random numbers). Empty for reference runs.
struct SimulationInputs {
  // Ordered by name: the order they are stored and shown in, whatever order they came in.
  std::map<std::string, double> parameters;
  // Empty: none named.
  std::string trial;
};

struct RunParameters {
  std::vector<double> values;  // in the order of ParameterTable::names
  std::string trial;           // empty when the table names no trials
  size_t line = 0;             // where the run is in its file, for errors
};

struct ParameterTable {
  std::string source;                         // the file, for errors
  std::vector<std::string> names;             // the parameter columns, in file order
  bool has_trials = false;                    // a `trial` column
  std::map<std::string, RunParameters> runs;  // by run id
};

// A parameter file: the header `run_id,<param>,...[,trial]` (the trial column anywhere after
// run_id), then one line per run. Blank lines and lines starting with '#' are skipped. Errors
// are InvalidArgument "<source>:<line>:<column>: ..." for a bad header, a duplicate run or
// parameter, a wrong field count, an empty or non-finite value (a parameter missing for a run)
// and an empty trial.
absl::StatusOr<ParameterTable> ParseParameterCsv(std::string_view content, std::string_view source);
absl::StatusOr<ParameterTable> ReadParameterCsv(const std::string& path);

// The runs of `table` in the order of `run_ids`; InvalidArgument naming the file for a run
// without a line ("no parameters for simulated run ...") and, with its line, for a line whose
// run is not among `run_ids` ("unknown run ...").
absl::StatusOr<std::vector<RunParameters>> ParametersForRuns(
    const ParameterTable& table, const std::vector<std::string>& run_ids);

// "name=value[,name=value...]", e.g. a nominal parameter vector; InvalidArgument naming the item
// for a missing '=', an empty name, a duplicate or a non-finite value.
absl::StatusOr<std::map<std::string, double>> ParseParameterVector(std::string_view text);

// A run groups file: the header `run_id,group`, then one line per run (e.g. the measurement
// campaign of each reference run); blank and '#' lines skipped. By run id.
absl::StatusOr<std::map<std::string, std::string>> ReadRunGroupsCsv(const std::string& path);

// The group of each of `run_ids`, in their order; errors as ParametersForRuns.
absl::StatusOr<std::vector<std::string>> GroupsForRuns(
    const std::map<std::string, std::string>& groups, const std::vector<std::string>& run_ids,
    std::string_view source);

}  // namespace wasserwarp

#endif  // WASSERWARP_RUN_PARAMETERS_H_
