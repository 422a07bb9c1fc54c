// InspectMdf4: every channel of every group decoded in turn, one at a time, so that memory holds
// one channel's values besides the records, however many channels the file has.

#include <cmath>
#include <limits>
#include <memory>
#include <utility>

#include "common/absl_view.h"
#include "common/file_contents.h"
#include "series/mdf4_load.h"
#include "wasserwarp/mdf4.h"

namespace wasserwarp {
namespace {

constexpr double kNone = std::numeric_limits<double>::quiet_NaN();

void Summarize(const mdf4::LoadedGroup& group, const mdf4::ChannelValues& values,
               Mdf4ChannelSummary& out) {
  out.time_first = out.time_last = out.min = out.max = out.mean = kNone;
  out.invalid_samples = values.invalid;
  out.non_finite_samples = values.non_finite;
  double sum = 0;
  for (size_t i = 0; i < values.values.size(); ++i) {
    if (!values.valid[i] || (group.times.has_value() && !group.times->valid[i])) continue;
    const double value = values.values[i];
    if (out.samples == 0) {
      out.min = out.max = value;
      if (group.times.has_value()) out.time_first = group.times->values[i];
    }
    out.min = std::min(out.min, value);
    out.max = std::max(out.max, value);
    if (group.times.has_value()) out.time_last = group.times->values[i];
    sum += value;
    ++out.samples;
  }
  if (out.samples > 0) out.mean = sum / static_cast<double>(out.samples);
}

Mdf4ChannelSummary SummarizeChannel(const mdf4::LoadedGroup& group, const mdf4::Channel& channel) {
  Mdf4ChannelSummary out;
  out.name = channel.name;
  out.unit = channel.unit;
  out.data_type = channel.data_type;
  out.conversion = channel.conversion_name;
  out.master = channel.master;
  if (!channel.unreadable.empty()) {
    out.readable = false;
    out.reason = channel.unreadable;
    out.time_first = out.time_last = out.min = out.max = out.mean = kNone;
    return out;
  }
  Summarize(group, mdf4::DecodeChannel(group.records, *group.group, channel), out);
  return out;
}

}  // namespace

absl::StatusOr<Mdf4FileSummary> InspectMdf4(std::string_view content, std::string_view source,
                                            const Mdf4Limits& limits) {
  const mdf4::FileView file(AbslView(content), AbslView(source));
  absl::StatusOr<std::unique_ptr<mdf4::LoadedFile>> loaded = mdf4::LoadFile(file, limits);
  if (!loaded.ok()) return loaded.status();
  Mdf4FileSummary out;
  out.path = std::string(source);
  out.version = (*loaded)->structure.version;
  for (const mdf4::LoadedGroup& group : (*loaded)->groups) {
    Mdf4GroupSummary summary;
    summary.name = group.group->name;
    summary.samples = group.records.count;
    for (const mdf4::Channel& channel : group.group->channels) {
      summary.channels.push_back(SummarizeChannel(group, channel));
    }
    out.groups.push_back(std::move(summary));
  }
  return out;
}

absl::StatusOr<Mdf4FileSummary> InspectMdf4File(const std::string& path, const Mdf4Limits& limits) {
  absl::StatusOr<std::string> content = ReadFileContents(path);
  if (!content.ok()) return content.status();
  return InspectMdf4(*content, path, limits);
}

}  // namespace wasserwarp
