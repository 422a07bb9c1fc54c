#include "wire/channel_units.h"

#include <algorithm>
#include <string>

#include "absl/strings/str_cat.h"
#include "wasserwarp/field_error.h"
#include "wasserwarp/units.h"
#include "wasserwarp/user_text.h"
#include "wire/repeated_fields.h"

namespace wasserwarp::wire {

v1::ChannelMapping ToProto(const ChannelMapping& mapping) {
  v1::ChannelMapping out;
  out.set_simulation_channel(mapping.simulation);
  out.set_reference_channel(mapping.reference);
  out.set_unit(mapping.unit);
  return out;
}

ChannelMapping FromProto(const v1::ChannelMapping& mapping) {
  return {.simulation = mapping.simulation_channel(),
          .reference = mapping.reference_channel(),
          .unit = mapping.unit()};
}

void ChannelUnitsToProto(const ValidationReport& report, v1::ReportParameters& params) {
  for (const std::string& unit : report.channel_units) params.add_channel_units(unit);
  for (const std::string& name : report.simulation_channels) params.add_simulation_channels(name);
  for (const ChannelMapping& mapping : report.channel_map)
    *params.add_channel_map() = ToProto(mapping);
  for (const std::string& warning : report.unit_warnings) params.add_unit_warnings(warning);
}

void ChannelUnitsFromProto(const v1::ReportParameters& params, ValidationReport& report) {
  report.channel_units = ToVector(params.channel_units());
  report.simulation_channels = ToVector(params.simulation_channels());
  for (const v1::ChannelMapping& mapping : params.channel_map()) {
    report.channel_map.push_back(FromProto(mapping));
  }
  report.unit_warnings = ToVector(params.unit_warnings());
}

absl::StatusOr<std::vector<std::string>> UnitsFromProto(
    const google::protobuf::RepeatedPtrField<std::string>& units,
    const std::vector<std::string>& channels, absl::string_view label) {
  if (std::all_of(units.begin(), units.end(), [](const std::string& u) { return u.empty(); })) {
    return std::vector<std::string>();
  }
  const std::vector<std::string> checked = ToVector(units);
  if (const std::string fault = UnitCountFault(checked.size(), channels.size()); !fault.empty()) {
    return InvalidFieldError("units", absl::StrCat(label, ": ", fault));
  }
  for (size_t c = 0; c < checked.size(); ++c) {
    const std::string& unit = checked[c];
    if (unit.empty()) continue;
    const std::string field = absl::StrCat("units[", c, "]");
    if (unit.size() > kMaxUnitLength) {
      return InvalidFieldError(
          field, absl::StrCat(label, ": the unit of channel ", c, " has ", unit.size(),
                              " characters, over the limit of ", kMaxUnitLength));
    }
    if (absl::Status status = CheckNoControlCharacters(field, unit, "a unit"); !status.ok()) {
      return InvalidFieldError(field, absl::StrCat(label, ": channel ", QuotedText(channels[c]),
                                                   ": ", status.message()));
    }
  }
  return checked;
}

}  // namespace wasserwarp::wire
