// ParseMdf4Run: the channels named are looked up, decoded, and laid onto the time base of the
// first one's group. A master channel is the time of its group, not a channel of the run, so that
// the master of every group (all called "time", often) does not make every name ambiguous.

#include <algorithm>
#include <filesystem>
#include <memory>
#include <set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/absl_view.h"
#include "common/file_contents.h"
#include "series/mdf4_load.h"
#include "wasserwarp/mdf4.h"

namespace wasserwarp {
namespace {

struct Selected {
  const mdf4::LoadedGroup* group = nullptr;
  const mdf4::Channel* channel = nullptr;
  std::string label;  // its name in the run
};

std::string Qualified(const Selected& selected) {
  return absl::StrCat(selected.group->group->name, "/", selected.channel->name);
}

// The data channels named `channel` in groups named `group` (any group where `group` is null).
std::vector<Selected> Find(const mdf4::LoadedFile& file, absl::string_view channel,
                           const absl::string_view* group) {
  std::vector<Selected> found;
  for (const mdf4::LoadedGroup& loaded : file.groups) {
    if (group != nullptr && loaded.group->name != *group) continue;
    for (const mdf4::Channel& candidate : loaded.group->channels) {
      if (!candidate.master && candidate.name == channel)
        found.push_back({&loaded, &candidate, candidate.name});
    }
  }
  return found;
}

absl::StatusOr<Selected> Lookup(const mdf4::FileView& view, const mdf4::LoadedFile& file,
                                absl::string_view name) {
  std::vector<Selected> found = Find(file, name, nullptr);
  // Not a channel's name: perhaps `group/channel`, where either may hold a '/' too.
  for (size_t slash = name.find('/'); found.empty() && slash != absl::string_view::npos;
       slash = name.find('/', slash + 1)) {
    const absl::string_view group = name.substr(0, slash);
    for (Selected& selected : Find(file, name.substr(slash + 1), &group)) {
      found.push_back(selected);
    }
  }
  if (found.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(view.source(), ": no channel named \"", name, "\""));
  }
  if (found.size() > 1) {
    std::vector<std::string> names;
    for (const Selected& selected : found) names.push_back(Qualified(selected));
    return absl::InvalidArgumentError(absl::StrCat(view.source(), ": channel \"", name,
                                                   "\" is in several groups; name one of ",
                                                   absl::StrJoin(names, ", ")));
  }
  found[0].label = std::string(name);
  return found[0];
}

// Every readable data channel of a group with a time, qualified where its name is ambiguous.
std::vector<Selected> Everything(const mdf4::LoadedFile& file) {
  std::vector<Selected> all;
  std::multiset<std::string> names;
  for (const mdf4::LoadedGroup& group : file.groups) {
    if (!group.times.has_value()) continue;
    for (const mdf4::Channel& channel : group.group->channels) {
      if (channel.master || !channel.unreadable.empty()) continue;
      all.push_back({&group, &channel, channel.name});
      names.insert(channel.name);
    }
  }
  for (Selected& selected : all) {
    if (names.count(selected.label) > 1) selected.label = Qualified(selected);
  }
  return all;
}

absl::StatusOr<std::vector<Selected>> Select(const mdf4::FileView& view,
                                             const mdf4::LoadedFile& file,
                                             const std::vector<std::string>& names) {
  std::vector<Selected> selected;
  if (names.empty()) {
    selected = Everything(file);
    if (selected.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat(view.source(), ": no readable channel in a group with a time channel"));
    }
  }
  for (const std::string& name : names) {
    absl::StatusOr<Selected> one = Lookup(view, file, AbslView(name));
    if (!one.ok()) return one.status();
    selected.push_back(*std::move(one));
  }
  for (const Selected& one : selected) {
    if (!one.channel->unreadable.empty()) {
      return absl::InvalidArgumentError(one.channel->unreadable);
    }
    if (!one.group->times.has_value()) {
      return absl::InvalidArgumentError(
          absl::StrCat(view.source(), ": channel \"", one.label, "\": its group \"",
                       one.group->group->name, "\" (##CG block at offset ",
                       one.group->group->offset, ") has no readable time master channel"));
    }
  }
  return selected;
}

// `channel`'s valid samples as (time, value) pairs.
std::vector<std::pair<double, double>> ValidSamples(const mdf4::LoadedGroup& group,
                                                    const mdf4::ChannelValues& channel) {
  std::vector<std::pair<double, double>> samples;
  for (size_t i = 0; i < channel.values.size(); ++i) {
    if (channel.valid[i] && group.times->valid[i]) {
      samples.emplace_back(group.times->values[i], channel.values[i]);
    }
  }
  return samples;
}

// Linear interpolation at `t` between `samples` (times non-decreasing), holding the end values.
double Interpolate(const std::vector<std::pair<double, double>>& samples, double t) {
  if (t <= samples.front().first) return samples.front().second;
  if (t >= samples.back().first) return samples.back().second;
  const auto hi = std::upper_bound(samples.begin(), samples.end(), t,
                                   [](double x, const auto& sample) { return x < sample.first; });
  const auto lo = hi - 1;
  return lo->second + (hi->second - lo->second) * (t - lo->first) / (hi->first - lo->first);
}

absl::StatusOr<std::vector<std::pair<double, double>>> InterpolationSource(
    const mdf4::FileView& view, const Selected& selected, const mdf4::ChannelValues& values) {
  std::vector<std::pair<double, double>> samples = ValidSamples(*selected.group, values);
  if (samples.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(view.source(), ": channel \"", selected.label, "\" has no valid samples"));
  }
  for (size_t i = 1; i < samples.size(); ++i) {
    if (samples[i].first < samples[i - 1].first) {
      return absl::InvalidArgumentError(
          absl::StrCat(view.source(), ": channel \"", selected.label, "\": the times of group \"",
                       selected.group->group->name, "\" decrease at sample ", i,
                       ", so it cannot be ", "interpolated"));
    }
  }
  return samples;
}

absl::StatusOr<Mdf4Run> Assemble(const mdf4::FileView& view, const std::vector<Selected>& selected,
                                 std::string id) {
  Mdf4Run run;
  run.series.id = std::move(id);
  const mdf4::LoadedGroup& base = *selected[0].group;
  std::vector<mdf4::ChannelValues> values;
  std::vector<uint8_t> keep = base.times->valid;
  for (const Selected& one : selected) {
    run.series.channels.push_back(one.label);
    run.series.units.push_back(one.channel->unit);
    values.push_back(mdf4::DecodeChannel(one.group->records, *one.group->group, *one.channel));
    if (one.group != &base) continue;
    for (size_t i = 0; i < keep.size(); ++i) keep[i] &= values.back().valid[i];
  }
  if (std::all_of(run.series.units.begin(), run.series.units.end(),
                  [](const std::string& unit) { return unit.empty(); })) {
    run.series.units.clear();
  }
  for (size_t i = 0; i < keep.size(); ++i) {
    if (keep[i]) run.series.times.push_back(base.times->values[i]);
  }
  if (run.series.times.size() < keep.size()) {
    run.notes.push_back(absl::StrCat(view.source(), ": ", keep.size() - run.series.times.size(),
                                     " of ", keep.size(), " samples of group \"", base.group->name,
                                     "\" dropped as invalid or not finite"));
  }
  const size_t samples = run.series.times.size();
  run.series.values.resize(samples * selected.size());
  for (size_t c = 0; c < selected.size(); ++c) {
    if (selected[c].group == &base) {
      size_t row = 0;
      for (size_t i = 0; i < keep.size(); ++i) {
        if (keep[i]) run.series.values[row++ * selected.size() + c] = values[c].values[i];
      }
      continue;
    }
    absl::StatusOr<std::vector<std::pair<double, double>>> source =
        InterpolationSource(view, selected[c], values[c]);
    if (!source.ok()) return source.status();
    for (size_t row = 0; row < samples; ++row) {
      run.series.values[row * selected.size() + c] = Interpolate(*source, run.series.times[row]);
    }
    run.notes.push_back(absl::StrCat(view.source(), ": channel \"", selected[c].label,
                                     "\" of group \"", selected[c].group->group->name,
                                     "\" interpolated linearly onto the times of group \"",
                                     base.group->name, "\""));
  }
  if (absl::Status valid = ValidateSeries(run.series); !valid.ok()) {
    return absl::Status(valid.code(), absl::StrCat(view.source(), ": ", valid.message()));
  }
  return run;
}

}  // namespace

absl::StatusOr<Mdf4Run> ParseMdf4Run(std::string_view content, std::string_view source,
                                     std::string id, const std::vector<std::string>& channels,
                                     const Mdf4Limits& limits) {
  const mdf4::FileView view(AbslView(content), AbslView(source));
  absl::StatusOr<std::unique_ptr<mdf4::LoadedFile>> loaded = mdf4::LoadFile(view, limits);
  if (!loaded.ok()) return loaded.status();
  absl::StatusOr<std::vector<Selected>> selected = Select(view, **loaded, channels);
  if (!selected.ok()) return selected.status();
  return Assemble(view, *selected, std::move(id));
}

absl::StatusOr<Mdf4Run> ReadMdf4Run(const std::string& path,
                                    const std::vector<std::string>& channels,
                                    const Mdf4Limits& limits) {
  absl::StatusOr<std::string> content = ReadFileContents(path);
  if (!content.ok()) return content.status();
  return ParseMdf4Run(*content, path, std::filesystem::path(path).stem().string(), channels,
                      limits);
}

}  // namespace wasserwarp
