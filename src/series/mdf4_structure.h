// What an MDF 4 file holds, as read from its header, data group, channel group and channel blocks
// (HD, DG, CG, CN, with their TX, MD, SI and CC blocks): value types that the decoding works from,
// each channel either readable or with the reason why not.

#ifndef WASSERWARP_SRC_SERIES_MDF4_STRUCTURE_H_
#define WASSERWARP_SRC_SERIES_MDF4_STRUCTURE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "series/mdf4_blocks.h"
#include "series/mdf4_conversion.h"
#include "series/mdf4_records.h"

namespace wasserwarp::mdf4 {

struct Channel {
  uint64_t offset = 0;  // of its CN block
  std::string name;
  std::string unit;
  bool master = false;        // a master channel (of time, angle, ...), not a data channel
  bool time_master = false;   // the master channel of time
  bool record_index = false;  // virtual: its raw value is the record's index
  ValueLayout layout;
  Conversion conversion;
  bool all_invalid = false;
  std::optional<uint32_t> invalidation_bit;
  // Empty when the channel can be read; otherwise an error naming the file, the channel and
  // the feature it uses that is not supported.
  std::string unreadable;
  // How `inspect` shows the data type and the conversion, also where they are not supported.
  std::string data_type;
  std::string conversion_name;
};

struct ChannelGroup {
  uint64_t offset = 0;  // of its CG block
  std::string name;     // acquisition name, else source name, else "group <k>" (1-based)
  uint64_t record_id = 0;
  uint64_t cycles = 0;
  uint32_t data_bytes = 0;
  uint32_t invalidation_bytes = 0;
  bool signal_data = false;  // a VLSD group: records of varying length, no channels to read
  std::vector<Channel> channels;
};

struct DataGroup {
  Block block;
  uint32_t record_id_bytes = 0;  // 0 (sorted, one channel group), 1, 2, 4 or 8
  std::vector<ChannelGroup> groups;
};

struct File {
  std::string version;  // "4.10"
  std::vector<DataGroup> data_groups;
};

// The structure of `file`; InvalidArgument naming the file and the block at fault for a file
// that is not MDF 4 or is malformed.
absl::StatusOr<File> ReadStructure(const FileView& file);

}  // namespace wasserwarp::mdf4

#endif  // WASSERWARP_SRC_SERIES_MDF4_STRUCTURE_H_
