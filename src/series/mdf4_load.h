// An MDF 4 file read as far as every group's records and time: what both `inspect` and the
// reading of runs start from.

#ifndef WASSERWARP_SRC_SERIES_MDF4_LOAD_H_
#define WASSERWARP_SRC_SERIES_MDF4_LOAD_H_

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "series/mdf4_blocks.h"
#include "series/mdf4_group.h"
#include "series/mdf4_structure.h"
#include "wasserwarp/mdf4.h"

namespace wasserwarp::mdf4 {

// A channel group with data channels (VLSD groups are left out), its records and its times.
struct LoadedGroup {
  const ChannelGroup* group = nullptr;
  GroupRecords records;
  // The time master's values, empty where the group has no readable time master; a sample
  // whose time is invalid is marked invalid in `times.valid`.
  std::optional<ChannelValues> times;
};

struct LoadedFile {
  File structure;
  std::vector<std::string> data;  // of each data group
  std::vector<LoadedGroup> groups;
};

// `file` read; the LoadedFile points into itself, so it is returned by pointer-stable value.
absl::StatusOr<std::unique_ptr<LoadedFile>> LoadFile(const FileView& file,
                                                     const Mdf4Limits& limits);

}  // namespace wasserwarp::mdf4

#endif  // WASSERWARP_SRC_SERIES_MDF4_LOAD_H_
