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
#include "wasserwarp/mdf4.h"
#include "wasserwarp/prepare.h"
#include "wasserwarp/series.h"

namespace wasserwarp {

// Parses `content` as read from `source` (a name used in error messages).
absl::StatusOr<Series> ParseSeriesCsv(std::string_view content, std::string_view source,
                                      std::string id);

// `series` as a run file that ParseSeriesCsv reads back bit for bit (shortest round-trip
// numbers). InvalidArgument for a channel name that such a file cannot hold: empty, with a comma,
// a line break or white space around it.
absl::StatusOr<std::string> FormatSeriesCsv(const Series& series);

// Reads one run file; the run id is the file name without `.csv`.
absl::StatusOr<Series> ReadSeriesCsv(const std::string& path);
// The same for `content` already read from the run file `path`.
absl::StatusOr<Series> ParseSeriesCsvFile(std::string_view content, const std::string& path);

// What `inspect` shows of a run file: one group "" of its samples, the time (the master
// channel) and each channel with its samples, times, minimum, maximum and mean; format "csv".
// The file's errors, where it is not a valid run file.
absl::StatusOr<Mdf4FileSummary> InspectCsvFile(const std::string& path);

// A weights file: one `run_id,weight` per line; an optional `id,weight`
// header, blank lines and lines starting with '#' are skipped.
absl::StatusOr<std::map<std::string, double>> ReadWeightsCsv(const std::string& path);

// Weights in the order of `runs`; every run must have exactly one weight and
// every weight a run.
absl::StatusOr<std::vector<double>> WeightsForRuns(const std::map<std::string, double>& weights,
                                                   const std::vector<Series>& runs,
                                                   std::string_view source);

// A channel map file (`--map-file`): one `sim_channel,ref_channel[,unit]` per line; an optional
// header line starting "sim_channel", blank lines and lines starting with '#' are skipped.
// Each mapping is checked as CheckChannelMapping checks it; errors name the file and line.
absl::StatusOr<std::vector<ChannelMapping>> ReadChannelMapCsv(const std::string& path);

}  // namespace wasserwarp

#endif  // WASSERWARP_CSV_H_
