// `wasserwarp inspect FILE... [--json]`: what MDF 4 and MATLAB files hold, and `wasserwarp
// convert FILE --channels a,b --out run.csv`: a run of one as wasserwarp's CSV.

#ifndef WASSERWARP_CLIENT_INSPECT_COMMAND_H_
#define WASSERWARP_CLIENT_INSPECT_COMMAND_H_

#include <string>
#include <vector>

#include "command.h"
#include "wasserwarp/mdf4.h"

namespace wasserwarp::cli {

Command InspectCommand();
Command ConvertCommand();

// The JSON of `inspect --json`: {files: [{path, format, version, groups: [{name, samples,
// channels: [{name, unit, data_type, conversion, master, samples, invalid_samples,
// non_finite_samples, time_first, time_last, min, max, mean, readable, reason}]}]}]}, with null
// for a statistic that has no value.
std::string InspectJson(const std::vector<Mdf4FileSummary>& files);

// The text of `inspect`: a block per file, a line per channel.
std::string InspectText(const std::vector<Mdf4FileSummary>& files);

}  // namespace wasserwarp::cli

#endif  // WASSERWARP_CLIENT_INSPECT_COMMAND_H_
