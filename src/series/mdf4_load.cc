#include "series/mdf4_load.h"

#include <memory>
#include <utility>

#include "series/mdf4_data.h"

namespace wasserwarp::mdf4 {
namespace {

const Channel* TimeMaster(const ChannelGroup& group) {
  for (const Channel& channel : group.channels) {
    if (channel.time_master && channel.unreadable.empty()) return &channel;
  }
  return nullptr;
}

}  // namespace

absl::StatusOr<std::unique_ptr<LoadedFile>> LoadFile(const FileView& file,
                                                     const Mdf4Limits& limits) {
  auto loaded = std::make_unique<LoadedFile>();
  absl::StatusOr<File> structure = ReadStructure(file);
  if (!structure.ok()) return structure.status();
  loaded->structure = *std::move(structure);
  loaded->data.reserve(loaded->structure.data_groups.size());
  for (const DataGroup& data_group : loaded->structure.data_groups) {
    absl::StatusOr<std::string> data =
        ReadGroupData(file, data_group.block, 2, limits.max_group_data_bytes);
    if (!data.ok()) return data.status();
    loaded->data.push_back(*std::move(data));
    absl::StatusOr<std::vector<GroupRecords>> records =
        SplitRecords(file, data_group, loaded->data.back());
    if (!records.ok()) return records.status();
    for (size_t k = 0; k < data_group.groups.size(); ++k) {
      const ChannelGroup& group = data_group.groups[k];
      if (group.signal_data) continue;
      LoadedGroup out;
      out.group = &group;
      out.records = std::move((*records)[k]);
      if (const Channel* master = TimeMaster(group); master != nullptr) {
        out.times = DecodeChannel(out.records, group, *master);
      }
      loaded->groups.push_back(std::move(out));
    }
  }
  return loaded;
}

}  // namespace wasserwarp::mdf4
