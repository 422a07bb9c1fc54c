// Channel mappings and units (issue 43) between the core and the wire: a request's map, and the
// units and simulated names a report gives each channel.

#ifndef WASSERWARP_WIRE_CHANNEL_UNITS_H_
#define WASSERWARP_WIRE_CHANNEL_UNITS_H_

#include "wasserwarp/prepare.h"
#include "wasserwarp/report.h"
#include "wasserwarp/v1/validation.pb.h"

namespace wasserwarp::wire {

v1::ChannelMapping ToProto(const ChannelMapping& mapping);
ChannelMapping FromProto(const v1::ChannelMapping& mapping);

// ReportParameters' channel_units, simulation_channels, channel_map and unit_warnings.
void ChannelUnitsToProto(const ValidationReport& report, v1::ReportParameters& params);
void ChannelUnitsFromProto(const v1::ReportParameters& params, ValidationReport& report);

}  // namespace wasserwarp::wire

#endif  // WASSERWARP_WIRE_CHANNEL_UNITS_H_
