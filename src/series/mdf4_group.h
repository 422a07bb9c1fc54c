// The records of each channel group in its data group's bytes, sorted (one channel group) or
// unsorted (records of several groups interleaved, each led by its record id), and the decoding of
// a channel's physical values from them.

#ifndef WASSERWARP_SRC_SERIES_MDF4_GROUP_H_
#define WASSERWARP_SRC_SERIES_MDF4_GROUP_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "series/mdf4_blocks.h"
#include "series/mdf4_structure.h"

namespace wasserwarp::mdf4 {

// Where the records of one channel group lie: at a fixed stride from the start, or (unsorted) at
// the listed offsets, each pointing at the record's data bytes after its record id.
struct GroupRecords {
  const uint8_t* base = nullptr;
  uint64_t count = 0;
  uint64_t stride = 0;
  std::vector<uint64_t> offsets;  // used where stride is 0

  const uint8_t* record(uint64_t i) const { return base + (stride != 0 ? i * stride : offsets[i]); }
};

// The records of every channel group of `group` (in its order) in `data`, the data group's bytes;
// `cycles` records each. InvalidArgument for data that does not hold them.
absl::StatusOr<std::vector<GroupRecords>> SplitRecords(const FileView& file, const DataGroup& group,
                                                       absl::string_view data);

// One channel's physical values, a value per record; `valid` is 0 where the sample is invalid
// (its invalidation bit set) or its physical value is not finite.
struct ChannelValues {
  std::vector<double> values;
  std::vector<uint8_t> valid;
  uint64_t invalid = 0;     // samples with the invalidation bit set
  uint64_t non_finite = 0;  // samples whose physical value is NaN or infinite
};

// The values of readable `channel` of `group`.
ChannelValues DecodeChannel(const GroupRecords& records, const ChannelGroup& group,
                            const Channel& channel);

}  // namespace wasserwarp::mdf4

#endif  // WASSERWARP_SRC_SERIES_MDF4_GROUP_H_
