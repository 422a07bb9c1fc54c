// Reading runs and run weights from CSV files.
//
// A run file has a header `time,<channel>,...` followed by one sample per
// line: the time in seconds and one value per channel, numbers in the C
// locale. Errors name the file, the line and the column (1-based).

#ifndef WASSERWARP_CSV_H_
#define WASSERWARP_CSV_H_

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "wasserwarp/series.h"

namespace wasserwarp {

// Parses `content` as read from `source` (a name used in error messages).
absl::StatusOr<Series> ParseSeriesCsv(std::string_view content, std::string_view source,
                                      std::string id);

// Reads one run file; the run id is the file name without `.csv`.
absl::StatusOr<Series> ReadSeriesCsv(const std::string& path);

// Expands each path: a directory means every `*.csv` directly in it, sorted by
// name; a file is taken as is. NotFound for a missing path or an empty directory.
absl::StatusOr<std::vector<std::string>> ExpandRunPaths(const std::vector<std::string>& paths);

// Reads every run named by `paths` (after ExpandRunPaths). Duplicate run ids
// are InvalidArgument naming both files.
absl::StatusOr<std::vector<Series>> ReadRuns(const std::vector<std::string>& paths);

// A weights file: one `run_id,weight` per line; an optional `id,weight`
// header, blank lines and lines starting with '#' are skipped.
absl::StatusOr<std::map<std::string, double>> ReadWeightsCsv(const std::string& path);

// Weights in the order of `runs`; every run must have exactly one weight and
// every weight a run.
absl::StatusOr<std::vector<double>> WeightsForRuns(const std::map<std::string, double>& weights,
                                                   const std::vector<Series>& runs,
                                                   std::string_view source);

}  // namespace wasserwarp

#endif  // WASSERWARP_CSV_H_
