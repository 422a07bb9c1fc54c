// Choices made here:
// - A unit given in identical spelling on both sides is never parsed, so units udunits does not
//   know (MDF 4 tools write "-" or "Nm" freely) still compare with themselves.
// - A unit on one side only is noted once per channel and side, not once per run.

#include "series/channel_units.h"

#include <map>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "wasserwarp/field_error.h"
#include "wasserwarp/units.h"
#include "wasserwarp/user_text.h"

namespace wasserwarp {
namespace {

const ChannelMapping* MappingOf(const std::vector<ChannelMapping>& channel_map,
                                const std::string& reference) {
  for (const ChannelMapping& mapping : channel_map) {
    if (mapping.reference == reference) return &mapping;
  }
  return nullptr;
}

std::string Described(absl::string_view side, const Series& run, const std::string& channel,
                      const std::string& unit) {
  return absl::StrCat(side, " run ", QuotedText(run.id), " channel ", QuotedText(channel),
                      unit.empty() ? " without a unit" : absl::StrCat(" in ", QuotedText(unit)));
}

// Converts channel `c` of `run` to `target`, through `converters` (by source unit).
absl::Status ConvertChannel(size_t c, const std::string& name, const UnitTarget& target,
                            absl::string_view side, Series& run,
                            std::map<std::string, UnitConverter>& converters) {
  const std::string& unit = run.unit(c);
  if (unit == target.unit) return absl::OkStatus();
  auto it = converters.find(unit);
  if (it == converters.end()) {
    absl::StatusOr<UnitConverter> converter = UnitConverter::Between(unit, target.unit);
    if (!converter.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(Described(side, run, name, unit),
                                                     " cannot be compared with ", target.origin,
                                                     ": ", converter.status().message()));
    }
    it = converters.emplace(unit, *std::move(converter)).first;
  }
  const size_t channels = run.num_channels();
  for (size_t i = c; i < run.values.size(); i += channels)
    run.values[i] = it->second(run.values[i]);
  return absl::OkStatus();
}

}  // namespace

UnitTarget TargetUnitOf(const std::string& channel, const std::vector<ChannelMapping>& channel_map,
                        const RunsView& reference) {
  if (const ChannelMapping* mapping = MappingOf(channel_map, channel);
      mapping != nullptr && !mapping->unit.empty()) {
    return {mapping->unit,
            absl::StrCat("the mapping ", QuotedText(mapping->simulation), "=",
                         QuotedText(mapping->reference), " in ", QuotedText(mapping->unit))};
  }
  for (const Series& run : reference) {
    for (size_t c = 0; c < run.num_channels(); ++c) {
      if (run.channels[c] == channel && !run.unit(c).empty()) {
        return {run.unit(c), Described("reference", run, channel, run.unit(c))};
      }
    }
  }
  return {};
}

absl::Status CheckChannelMapping(const ChannelMapping& mapping,
                                 const std::vector<ChannelMapping>& earlier) {
  if (mapping.simulation.empty() || mapping.reference.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("a mapping needs a simulated and a reference channel, got ",
                     QuotedText(mapping.simulation), "=", QuotedText(mapping.reference)));
  }
  for (const ChannelMapping& other : earlier) {
    const bool same_simulation = other.simulation == mapping.simulation;
    if (same_simulation || other.reference == mapping.reference) {
      return absl::InvalidArgumentError(absl::StrCat(
          "channel ", QuotedText(same_simulation ? mapping.simulation : mapping.reference),
          " is mapped twice (", other.simulation, "=", other.reference, " and ", mapping.simulation,
          "=", mapping.reference, ")"));
    }
  }
  if (!mapping.unit.empty()) {
    if (absl::Status known = CheckUnit(mapping.unit); !known.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("the mapping of ", QuotedText(mapping.simulation), ": ", known.message()));
    }
  }
  return absl::OkStatus();
}

absl::Status ValidateChannelMap(const std::vector<ChannelMapping>& channel_map) {
  if (channel_map.size() > kMaxChannelMappings) {
    return InvalidFieldError("channel_map",
                             absl::StrCat(channel_map.size(), " mappings, more than the ",
                                          kMaxChannelMappings, " allowed"));
  }
  std::vector<ChannelMapping> earlier;
  earlier.reserve(channel_map.size());
  for (const ChannelMapping& mapping : channel_map) {
    if (absl::Status status = CheckChannelMapping(mapping, earlier); !status.ok()) {
      return InvalidFieldError(
          "channel_map", absl::StrCat("mapping ", earlier.size() + 1, ": ", status.message()));
    }
    earlier.push_back(mapping);
  }
  return absl::OkStatus();
}

std::vector<std::string> ValidatedNames(const std::vector<std::string>& channels,
                                        const std::vector<ChannelMapping>& channel_map) {
  std::vector<std::string> names = channels;
  for (std::string& name : names) {
    for (const ChannelMapping& mapping : channel_map) {
      if (mapping.simulation == name) {
        name = mapping.reference;
        break;
      }
    }
  }
  return names;
}

std::vector<std::string> SimulationNames(const std::vector<std::string>& channels,
                                         const std::vector<ChannelMapping>& channel_map) {
  std::vector<std::string> names;
  names.reserve(channels.size());
  for (const std::string& channel : channels) {
    const ChannelMapping* mapping = MappingOf(channel_map, channel);
    names.push_back(mapping != nullptr ? mapping->simulation : channel);
  }
  return names;
}

absl::StatusOr<ChannelUnits> ConvertUnits(const std::vector<std::string>& channels,
                                          const std::vector<std::string>& simulation_channels,
                                          const PrepareOptions& options,
                                          std::vector<Series>& simulation,
                                          std::vector<Series>& reference) {
  ChannelUnits result;
  std::set<std::string> noted;
  for (size_t c = 0; c < channels.size(); ++c) {
    const UnitTarget target = TargetUnitOf(channels[c], options.channel_map, reference);
    std::map<std::string, UnitConverter> converters;
    for (auto [side, runs, names] : {std::tuple{"simulation", &simulation, &simulation_channels},
                                     std::tuple{"reference", &reference, &channels}}) {
      for (Series& run : *runs) {
        const std::string& name = (*names)[c];
        if (run.unit(c).empty() == target.unit.empty()) {
          if (run.unit(c).empty()) continue;
          if (absl::Status status = ConvertChannel(c, name, target, side, run, converters);
              !status.ok()) {
            return status;
          }
          continue;
        }
        // A unit on one side only: nothing to convert by, so the numbers are taken as they are.
        const std::string note =
            absl::StrCat(Described(side, run, name, run.unit(c)), ", but ",
                         target.unit.empty() ? "no reference run gives a unit" : target.origin,
                         ": compared without conversion");
        if (options.strict_units) return InvalidFieldError("strict_units", note);
        if (noted.insert(absl::StrCat(c, side)).second) result.notes.push_back(note);
      }
    }
    result.units.push_back(target.unit);
  }
  bool any = false;
  for (const std::string& unit : result.units) any |= !unit.empty();
  for (auto* runs : {&simulation, &reference}) {
    for (Series& run : *runs) {
      run.units.clear();
      if (any) run.units = result.units;
    }
  }
  return result;
}

}  // namespace wasserwarp
