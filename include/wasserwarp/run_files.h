// Run files in every format wasserwarp reads, told apart by their extension: MDF 4 measurement
// files (`.mf4`, see mdf4.h), MATLAB files (`.mat`, see mat.h) and CSV files (any other name, see
// csv.h). A run's id is its file name without extension.

#ifndef WASSERWARP_RUN_FILES_H_
#define WASSERWARP_RUN_FILES_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "wasserwarp/mat.h"
#include "wasserwarp/mdf4.h"
#include "wasserwarp/run_source.h"
#include "wasserwarp/series.h"

namespace wasserwarp {

struct RunFileOptions {
  // The channels to read from an MDF 4 or MATLAB file, as ParseMdf4Run and ReadMatRun take them
  // (empty: every readable one). A CSV file is read whole; choosing its channels is PrepareRuns'
  // job.
  std::vector<std::string> channels;
  Mdf4Limits mdf4_limits;
  MatLimits mat_limits;
};

// Whether `path` names an MDF 4 file.
bool IsMdf4Path(const std::string& path);
// Whether `path` names a MATLAB file.
bool IsMatPath(const std::string& path);

// What a run file holds (`inspect`): an MDF 4 or MATLAB file by its name, otherwise a CSV run
// file, as ReadRunFile reads them.
absl::StatusOr<Mdf4FileSummary> InspectRunFile(const std::string& path);

// Reads one run file. What the reading did that the user should know of (MDF 4's dropped
// samples and interpolated channels, MATLAB variables left out) is added to `notes`.
absl::StatusOr<Series> ReadRunFile(const std::string& path, const RunFileOptions& options,
                                   std::vector<std::string>& notes);

// Expands each path: a directory means every `*.csv`, `*.mf4` and `*.mat` directly in it, sorted by
// name; a file is taken as is. NotFound for a missing path or a directory without run files.
absl::StatusOr<std::vector<std::string>> ExpandRunPaths(const std::vector<std::string>& paths);

// Reads every run named by `paths` (after ExpandRunPaths). Duplicate run ids are
// InvalidArgument naming both files.
absl::StatusOr<std::vector<Series>> ReadRuns(const std::vector<std::string>& paths,
                                             const RunFileOptions& options,
                                             std::vector<std::string>& notes);
// The same for CSV files only or where notes do not matter.
absl::StatusOr<std::vector<Series>> ReadRuns(const std::vector<std::string>& paths);

// Runs read as ReadRuns reads them, and where each came from, for the record of a validation.
struct RunFileSet {
  std::vector<Series> runs;
  std::vector<RunSource> sources;  // sources[k] is the file of runs[k] and its bytes' SHA-256
};
// ReadRuns with each file's RunSource. A CSV file's SHA-256 is of the very bytes its run was
// parsed from, so it is read once; an MDF 4 or MATLAB file is read again to hash it.
absl::StatusOr<RunFileSet> ReadRunsWithSources(const std::vector<std::string>& paths,
                                               const RunFileOptions& options,
                                               std::vector<std::string>& notes);

}  // namespace wasserwarp

#endif  // WASSERWARP_RUN_FILES_H_
