#include "series/mdf4_load.h"

#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"
#include "series/mdf4_data.h"

namespace wasserwarp::mdf4 {
namespace {

const Channel* TimeMaster(const ChannelGroup& group) {
  for (const Channel& channel : group.channels) {
    if (channel.time_master && channel.unreadable.empty()) return &channel;
  }
  return nullptr;
}

// Adds the values of `group` to `values`; ResourceExhausted beyond the limit.
absl::Status CountValues(const FileView& file, const ChannelGroup& group, uint64_t records,
                         const Mdf4Limits& limits, uint64_t& values) {
  const uint64_t channels = group.channels.size();
  if (records != 0 && channels > (limits.max_values - values) / records) {
    return absl::ResourceExhaustedError(absl::StrCat(
        file.source(), ": ##CG block at offset ", group.offset, ": ", channels, " channels of ",
        records, " records take the file past the limit of ", limits.max_values, " values"));
  }
  values += channels * records;
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::unique_ptr<LoadedFile>> LoadFile(const FileView& file,
                                                     const Mdf4Limits& limits) {
  auto loaded = std::make_unique<LoadedFile>();
  absl::StatusOr<File> structure = ReadStructure(file);
  if (!structure.ok()) return structure.status();
  loaded->structure = *std::move(structure);
  loaded->data.reserve(loaded->structure.data_groups.size());
  uint64_t values = 0;
  uint64_t data_bytes = 0;
  for (const DataGroup& data_group : loaded->structure.data_groups) {
    absl::StatusOr<std::string> data =
        ReadGroupData(file, data_group.block, 2, limits.max_data_bytes - data_bytes);
    if (!data.ok()) return data.status();
    data_bytes += data->size();
    loaded->data.push_back(*std::move(data));
    absl::StatusOr<std::vector<GroupRecords>> records =
        SplitRecords(file, data_group, loaded->data.back());
    if (!records.ok()) return records.status();
    for (size_t k = 0; k < data_group.groups.size(); ++k) {
      const ChannelGroup& group = data_group.groups[k];
      if (group.signal_data) continue;
      if (absl::Status counted = CountValues(file, group, (*records)[k].count, limits, values);
          !counted.ok()) {
        return counted;
      }
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
