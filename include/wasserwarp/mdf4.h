// Reading runs from ASAM MDF 4 measurement files (.mf4), as measurement tools at a test bench
// write them, and listing what such a file holds.
//
// Read: MDF 4.00 to 4.20 with sorted and unsorted data groups, data in DT, DZ (deflate and
// transposed deflate), DL and HL blocks; integers of any width and bit offset in either byte
// order, IEEE floats of 32 and 64 bits; the conversions identity, linear, rational and
// value-to-value tables; invalidation bits (invalid samples are dropped and counted). Channels
// that use anything else (algebraic conversions, text tables, VLSD, arrays, ...) cannot be read,
// with a reason naming the file, the channel and the feature; the others of the file still can.
//
// The file is untrusted input: a malformed one is an InvalidArgument naming the file and the
// offset of the block at fault, and memory is bounded by Mdf4Limits, whatever the file says.

#ifndef WASSERWARP_MDF4_H_
#define WASSERWARP_MDF4_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "wasserwarp/series.h"

namespace wasserwarp {

struct Mdf4Limits {
  // The most bytes of records a file may hold once decompressed, all its data groups together.
  uint64_t max_data_bytes = uint64_t{2} << 30;
  // The most values (channels x records, over all groups) a file may hold: what bounds the
  // time a small file can take, since many channels may read the same bytes.
  uint64_t max_values = uint64_t{4} << 30;
};

// What `inspect` shows of one channel. Times and statistics are over the valid samples, of the
// physical values; NaN where there are none (or, for the times, where the group has no time).
struct Mdf4ChannelSummary {
  std::string name;
  std::string unit;
  std::string data_type;            // "uint8 LE", "float64 BE", ...
  std::string conversion;           // "identity", "linear 0 + 0.1 x", ...
  bool master = false;              // the group's time (or other) master channel
  uint64_t samples = 0;             // valid samples
  uint64_t invalid_samples = 0;     // dropped: invalidation bit set
  uint64_t non_finite_samples = 0;  // dropped: physical value NaN or infinite
  double time_first = 0;
  double time_last = 0;
  double min = 0;
  double max = 0;
  double mean = 0;
  bool readable = true;
  std::string reason;  // why not readable
};

struct Mdf4GroupSummary {
  std::string name;
  uint64_t samples = 0;  // records
  std::vector<Mdf4ChannelSummary> channels;
};

struct Mdf4FileSummary {
  std::string path;
  // "mdf4", "mat" or "csv": MATLAB and CSV run files are inspected in this summary too.
  std::string format = "mdf4";
  std::string version;  // "4.10"
  std::vector<Mdf4GroupSummary> groups;
};

// What `content`, read from `source` (a name for messages), holds.
absl::StatusOr<Mdf4FileSummary> InspectMdf4(std::string_view content, std::string_view source,
                                            const Mdf4Limits& limits = {});
absl::StatusOr<Mdf4FileSummary> InspectMdf4File(const std::string& path,
                                                const Mdf4Limits& limits = {});

// A run read from an MDF 4 file, with what the reading did that the user should know of:
// samples dropped as invalid, channels interpolated onto another group's time base.
struct Mdf4Run {
  Series series;
  std::vector<std::string> notes;
};

// The run of `channels` in `content`: each is a channel's name, or `group/channel` where the name
// is in several groups (an error that lists them otherwise); master channels are not channels
// here. No names means every readable channel, qualified where a name is in several groups.
// The times are the first channel's group's; channels of other groups are interpolated linearly
// onto them (holding their first and last values outside their own times). A sample of the first
// group is dropped where any of its channels named is invalid there.
absl::StatusOr<Mdf4Run> ParseMdf4Run(std::string_view content, std::string_view source,
                                     std::string id, const std::vector<std::string>& channels,
                                     const Mdf4Limits& limits = {});
// The run in file `path`, its id the file name without extension.
absl::StatusOr<Mdf4Run> ReadMdf4Run(const std::string& path,
                                    const std::vector<std::string>& channels,
                                    const Mdf4Limits& limits = {});

}  // namespace wasserwarp

#endif  // WASSERWARP_MDF4_H_
