// InspectCsvFile: a run file in wasserwarp's CSV as `inspect` shows MDF 4 and MATLAB files.

#include <string>
#include <utility>

#include "series/channel_summary.h"
#include "wasserwarp/csv.h"

namespace wasserwarp {

absl::StatusOr<Mdf4FileSummary> InspectCsvFile(const std::string& path) {
  absl::StatusOr<Series> run = ReadSeriesCsv(path);
  if (!run.ok()) return run.status();
  const size_t channels = run->num_channels();
  Mdf4GroupSummary group;
  group.samples = run->samples();
  Mdf4ChannelSummary time = SummarizeChannel("time", "decimal text", run->times, run->samples(),
                                             [&](size_t i) { return run->times[i]; });
  time.master = true;
  group.channels.push_back(std::move(time));
  for (size_t c = 0; c < channels; ++c) {
    Mdf4ChannelSummary channel =
        SummarizeChannel(run->channels[c], "decimal text", run->times, run->samples(),
                         [&](size_t i) { return run->values[i * channels + c]; });
    channel.unit = run->unit(c);
    group.channels.push_back(std::move(channel));
  }
  Mdf4FileSummary summary;
  summary.path = path;
  summary.format = "csv";
  summary.groups.push_back(std::move(group));
  return summary;
}

}  // namespace wasserwarp
