// The layouts of the data sections read here (ASAM MDF 4.1, little endian):
// - ID (the first 64 bytes, no block header): "MDF     " (or "UnFinMF "), the version as text
//   ("4.10    "), the program, then at byte 28 the version number (410).
// - HD: link 0 the first data group.
// - DG: links next, first channel group, data, comment; data: record id size (1 byte).
// - CG: links next, first channel, acquisition name, acquisition source, ...; data: record id (8),
//   cycle count (8), flags (2, bit 0: VLSD), path separator (2), reserved (4), data bytes (4),
//   invalidation bytes (4).
// - CN: links next, composition, name, source, conversion, signal data, unit, comment; data:
//   channel type, sync type, data type, bit offset (1 byte each), byte offset (4), bit count (4),
//   flags (4: bit 0 all values invalid, bit 1 invalidation bit valid), invalidation bit
//   position (4).
// - SI: link 0 the source's name.

#include "series/mdf4_structure.h"

#include <utility>

#include "absl/strings/str_cat.h"

namespace wasserwarp::mdf4 {
namespace {

constexpr int kMasterChannel = 2;
constexpr int kVirtualMasterChannel = 3;
constexpr int kVirtualDataChannel = 6;
constexpr int kTimeSync = 1;

// What the channel types this reader refuses are, by cn_type; empty for those it reads.
constexpr absl::string_view kUnsupportedChannelType[] = {
    "", "variable-length signal data (VLSD)", "",
    "", "a synchronization channel",          "maximum-length signal data (MLSD)",
    ""};

// The feature of `block`'s composition (its link 1), which this reader does not read.
std::string CompositionFeature(const FileView& file, const Block& block) {
  absl::StatusOr<Block> composition = file.Follow(block, 1, {"##CA", "##CN"}, "composition");
  if (!composition.ok()) return "a composition of channels";
  return composition->id == "##CA" ? "an array (CA block)" : "a structure of channels";
}

std::string Unreadable(const FileView& file, const Block& block, absl::string_view name,
                       absl::string_view problem) {
  return absl::StrCat(file.source(), ": channel \"", name, "\" (##CN block at offset ",
                      block.offset, "): ", problem);
}

absl::StatusOr<Channel> ReadChannel(const FileView& file, const Block& block,
                                    const ChannelGroup& group) {
  if (absl::Status size = file.RequireData(block, 24); !size.ok()) return size;
  Channel channel;
  channel.offset = block.offset;
  absl::StatusOr<std::string> name = file.Text(block, 2, "channel name");
  if (!name.ok()) return name.status();
  channel.name = *std::move(name);
  absl::StatusOr<std::string> unit = file.Text(block, 6, "channel unit");
  if (!unit.ok()) return unit.status();
  channel.unit = *std::move(unit);

  const absl::string_view d = block.data;
  const int type = static_cast<uint8_t>(d[0]);
  const int sync = static_cast<uint8_t>(d[1]);
  const int data_type = static_cast<uint8_t>(d[2]);
  channel.layout.bit_offset = static_cast<uint8_t>(d[3]);
  channel.layout.byte_offset = static_cast<uint32_t>(LoadLe(d, 4, 4));
  channel.layout.bit_count = static_cast<uint32_t>(LoadLe(d, 8, 4));
  const uint64_t flags = LoadLe(d, 12, 4);
  channel.master = type == kMasterChannel || type == kVirtualMasterChannel;
  channel.time_master = channel.master && sync == kTimeSync;
  channel.record_index = type == kVirtualMasterChannel || type == kVirtualDataChannel;
  channel.all_invalid = (flags & 1) != 0;
  if ((flags & 2) != 0) {
    channel.invalidation_bit = static_cast<uint32_t>(LoadLe(d, 16, 4));
    if (*channel.invalidation_bit / 8 >= group.invalidation_bytes) {
      return file.Error(block, absl::StrCat("invalidation bit ", *channel.invalidation_bit,
                                            " is outside the records' ", group.invalidation_bytes,
                                            " invalidation bytes"));
    }
  }

  std::string problem;
  if (type > kVirtualDataChannel) {
    return file.Error(block, absl::StrCat("unknown channel type ", type));
  } else if (!kUnsupportedChannelType[type].empty()) {
    problem = absl::StrCat(kUnsupportedChannelType[type], " is not supported");
  } else if (block.link(1) != 0) {
    problem = absl::StrCat(CompositionFeature(file, block), " is not supported");
  }

  if (channel.record_index) {
    channel.data_type = "record index";
  } else if (absl::Status layout = LayoutForDataType(data_type, channel.layout); !layout.ok()) {
    if (layout.code() != absl::StatusCode::kUnimplemented)
      return file.Error(block, layout.message());
    channel.data_type = absl::StrCat("type ", data_type);
    if (problem.empty()) problem = std::string(layout.message());
  } else {
    channel.data_type = channel.layout.Describe();
    if (absl::Status fits = CheckLayout(channel.layout, group.data_bytes); !fits.ok()) {
      if (fits.code() != absl::StatusCode::kUnimplemented) return file.Error(block, fits.message());
      if (problem.empty()) problem = std::string(fits.message());
    }
  }

  absl::StatusOr<Conversion> conversion = ReadConversion(file, block, 4);
  if (!conversion.ok()) return conversion.status();
  channel.conversion = *std::move(conversion);
  channel.conversion_name = channel.conversion.Describe();
  if (problem.empty() && !channel.conversion.unsupported.empty()) {
    problem = absl::StrCat(channel.conversion.unsupported, " is not supported");
  }
  if (!problem.empty()) {
    channel.unreadable = Unreadable(file, block, channel.name, problem);
  }
  return channel;
}

absl::StatusOr<std::string> GroupName(const FileView& file, const Block& block, size_t index) {
  absl::StatusOr<std::string> name = file.Text(block, 2, "acquisition name");
  if (!name.ok() || !name->empty()) return name;
  if (block.link(3) != 0) {
    absl::StatusOr<Block> source = file.Follow(block, 3, {"##SI"}, "acquisition source");
    if (!source.ok()) return source.status();
    name = file.Text(*source, 0, "source name");
    if (!name.ok() || !name->empty()) return name;
  }
  return absl::StrCat("group ", index);
}

absl::StatusOr<ChannelGroup> ReadChannelGroup(const FileView& file, const Block& block,
                                              size_t index) {
  if (absl::Status size = file.RequireData(block, 32); !size.ok()) return size;
  ChannelGroup group;
  group.offset = block.offset;
  absl::StatusOr<std::string> name = GroupName(file, block, index);
  if (!name.ok()) return name.status();
  group.name = *std::move(name);
  group.record_id = LoadLe(block.data, 0, 8);
  group.cycles = LoadLe(block.data, 8, 8);
  group.signal_data = (LoadLe(block.data, 16, 2) & 1) != 0;
  group.data_bytes = static_cast<uint32_t>(LoadLe(block.data, 24, 4));
  group.invalidation_bytes = static_cast<uint32_t>(LoadLe(block.data, 28, 4));
  if (group.signal_data) return group;
  absl::StatusOr<std::vector<Block>> channels = file.Chain(block, 1, 0, {"##CN"}, "channel");
  if (!channels.ok()) return channels.status();
  for (const Block& channel_block : *channels) {
    absl::StatusOr<Channel> channel = ReadChannel(file, channel_block, group);
    if (!channel.ok()) return channel.status();
    group.channels.push_back(*std::move(channel));
  }
  return group;
}

absl::StatusOr<std::string> ReadVersion(const FileView& file) {
  const absl::string_view bytes = file.bytes();
  if (bytes.size() < 64 || (bytes.substr(0, 8) != "MDF     " && bytes.substr(0, 8) != "UnFinMF ")) {
    return absl::InvalidArgumentError(
        absl::StrCat(file.source(), ": not an MDF file (no \"MDF\" identification block)"));
  }
  const uint64_t version = LoadLe(bytes, 28, 2);
  if (version < 400 || version >= 500) {
    return absl::InvalidArgumentError(absl::StrCat(file.source(), ": MDF version ", version / 100,
                                                   ".", version % 100,
                                                   " is not supported; this reader reads MDF 4"));
  }
  return absl::StrCat(version / 100, ".", absl::Dec(version % 100, absl::kZeroPad2));
}

}  // namespace

absl::StatusOr<File> ReadStructure(const FileView& file) {
  File out;
  absl::StatusOr<std::string> version = ReadVersion(file);
  if (!version.ok()) return version.status();
  out.version = *std::move(version);
  absl::StatusOr<Block> header = file.Read(64, {"##HD"}, "header block");
  if (!header.ok()) return header.status();
  absl::StatusOr<std::vector<Block>> data_groups =
      file.Chain(*header, 0, 0, {"##DG"}, "data group");
  if (!data_groups.ok()) return data_groups.status();
  size_t index = 0;
  for (Block& block : *data_groups) {
    if (absl::Status size = file.RequireData(block, 1); !size.ok()) return size;
    DataGroup group;
    group.record_id_bytes = static_cast<uint8_t>(block.data[0]);
    if (group.record_id_bytes != 0 && group.record_id_bytes != 1 && group.record_id_bytes != 2 &&
        group.record_id_bytes != 4 && group.record_id_bytes != 8) {
      return file.Error(
          block, absl::StrCat("record id size ", group.record_id_bytes, " is not 0, 1, 2, 4 or 8"));
    }
    absl::StatusOr<std::vector<Block>> channel_groups =
        file.Chain(block, 1, 0, {"##CG"}, "channel group");
    if (!channel_groups.ok()) return channel_groups.status();
    for (const Block& channel_group : *channel_groups) {
      absl::StatusOr<ChannelGroup> read = ReadChannelGroup(file, channel_group, ++index);
      if (!read.ok()) return read.status();
      group.groups.push_back(*std::move(read));
    }
    if (group.record_id_bytes == 0 && group.groups.size() > 1) {
      return file.Error(
          block, absl::StrCat("holds ", group.groups.size(), " channel groups but no record ids"));
    }
    group.block = std::move(block);
    out.data_groups.push_back(std::move(group));
  }
  return out;
}

}  // namespace wasserwarp::mdf4
