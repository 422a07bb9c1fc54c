#include "wire/channel_units.h"

#include <string>

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

}  // namespace wasserwarp::wire
