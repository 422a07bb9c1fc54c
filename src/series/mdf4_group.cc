#include "series/mdf4_group.h"

#include <cmath>
#include <map>

#include "absl/strings/str_cat.h"

namespace wasserwarp::mdf4 {
namespace {

// The length prefix of a VLSD group's records.
constexpr uint64_t kSignalLengthBytes = 4;

absl::Status TooFew(const FileView& file, const DataGroup& data_group, const ChannelGroup& group,
                    uint64_t found) {
  return file.Error(
      data_group.block,
      absl::StrCat("its data holds ", found, " records of channel group \"", group.name,
                   "\" (##CG block at offset ", group.offset, "), which declares ", group.cycles));
}

// Sorted without record ids: one channel group, records of one length.
absl::StatusOr<std::vector<GroupRecords>> SplitSorted(const FileView& file,
                                                      const DataGroup& data_group,
                                                      absl::string_view data) {
  const ChannelGroup& group = data_group.groups[0];
  GroupRecords records;
  const uint64_t length = uint64_t{group.data_bytes} + group.invalidation_bytes;
  if (length == 0) {
    if (group.cycles != 0) return file.Error(data_group.block, "its records are 0 bytes long");
    return std::vector<GroupRecords>{records};
  }
  if (data.size() / length < group.cycles) {
    return TooFew(file, data_group, group, data.size() / length);
  }
  records.base = reinterpret_cast<const uint8_t*>(data.data());
  records.count = group.cycles;
  records.stride = length;
  return std::vector<GroupRecords>{records};
}

}  // namespace

absl::StatusOr<std::vector<GroupRecords>> SplitRecords(const FileView& file,
                                                       const DataGroup& data_group,
                                                       absl::string_view data) {
  std::vector<GroupRecords> records(data_group.groups.size());
  if (data_group.groups.empty()) return records;
  if (data_group.record_id_bytes == 0 && !data_group.groups[0].signal_data) {
    return SplitSorted(file, data_group, data);
  }
  std::map<uint64_t, size_t> index_of_id;
  for (size_t k = 0; k < data_group.groups.size(); ++k) {
    records[k].base = reinterpret_cast<const uint8_t*>(data.data());
    if (!index_of_id.emplace(data_group.groups[k].record_id, k).second) {
      return file.Error(data_group.block, absl::StrCat("two channel groups have record id ",
                                                       data_group.groups[k].record_id));
    }
  }
  const uint64_t id_bytes = data_group.record_id_bytes;
  uint64_t pos = 0;
  while (pos < data.size()) {
    if (data.size() - pos < id_bytes) {
      return file.Error(data_group.block,
                        absl::StrCat("its data ends inside a record id at byte ", pos));
    }
    const uint64_t id = LoadLe(data, pos, id_bytes);
    // A VLSD group in a data group of its own has no record ids.
    const auto it = id_bytes == 0 ? index_of_id.begin() : index_of_id.find(id);
    if (it == index_of_id.end()) {
      return file.Error(data_group.block,
                        absl::StrCat("unknown record id ", id, " at data byte ", pos));
    }
    const ChannelGroup& group = data_group.groups[it->second];
    uint64_t length = uint64_t{group.data_bytes} + group.invalidation_bytes;
    if (group.signal_data) {
      if (data.size() - pos - id_bytes < kSignalLengthBytes) {
        return file.Error(data_group.block,
                          absl::StrCat("its data ends inside a record at byte ", pos));
      }
      length = kSignalLengthBytes + LoadLe(data, pos + id_bytes, kSignalLengthBytes);
    }
    if (data.size() - pos - id_bytes < length) {
      return file.Error(
          data_group.block,
          absl::StrCat("its data ends inside a record of record id ", id, " at byte ", pos));
    }
    records[it->second].offsets.push_back(pos + id_bytes);
    pos += id_bytes + length;
  }
  for (size_t k = 0; k < records.size(); ++k) {
    const ChannelGroup& group = data_group.groups[k];
    if (group.signal_data) continue;
    if (records[k].offsets.size() < group.cycles) {
      return TooFew(file, data_group, group, records[k].offsets.size());
    }
    records[k].count = group.cycles;
  }
  return records;
}

ChannelValues DecodeChannel(const GroupRecords& records, const ChannelGroup& group,
                            const Channel& channel) {
  ChannelValues out;
  out.values.resize(records.count);
  out.valid.assign(records.count, channel.all_invalid ? 0 : 1);
  if (channel.all_invalid) out.invalid = records.count;
  for (uint64_t i = 0; i < records.count; ++i) {
    const uint8_t* record = records.record(i);
    const double raw =
        channel.record_index ? static_cast<double>(i) : DecodeValue(record, channel.layout);
    const double value = channel.conversion.Apply(raw);
    out.values[i] = value;
    if (!out.valid[i]) continue;
    if (channel.invalidation_bit.has_value() &&
        InvalidationBitSet(record + group.data_bytes, *channel.invalidation_bit)) {
      out.valid[i] = 0;
      ++out.invalid;
    } else if (!std::isfinite(value)) {
      out.valid[i] = 0;
      ++out.non_finite;
    }
  }
  return out;
}

}  // namespace wasserwarp::mdf4
