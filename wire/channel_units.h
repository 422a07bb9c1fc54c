// Channel mappings and units (issue 43) between the core and the wire: a request's map, and the
// units and simulated names a report gives each channel.

#ifndef WASSERWARP_WIRE_CHANNEL_UNITS_H_
#define WASSERWARP_WIRE_CHANNEL_UNITS_H_

#include <cstddef>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "google/protobuf/repeated_ptr_field.h"
#include "wasserwarp/prepare.h"
#include "wasserwarp/report.h"
#include "wasserwarp/v1/validation.pb.h"

namespace wasserwarp::wire {

v1::ChannelMapping ToProto(const ChannelMapping& mapping);
ChannelMapping FromProto(const v1::ChannelMapping& mapping);

// ReportParameters' channel_units, simulation_channels, channel_map and unit_warnings.
void ChannelUnitsToProto(const ValidationReport& report, v1::ReportParameters& params);
void ChannelUnitsFromProto(const v1::ReportParameters& params, ValidationReport& report);

// A run's units as a message gives them (SeriesHeader.units, InlineSeries.units), parallel to
// `channels`: none, or only "", is a run without units (an empty vector). The count is checked by
// the core (UnitCountFault), each unit for control characters and at most kMaxUnitLength
// characters; errors name the field (`units`, `units[2]`) and start with `label` (`simulation run
// "sim_3"`). A unit udunits cannot read is kept, as the embedded engine keeps a file's: it
// compares with the same spelling (MDF 4's "-") and is refused only where a validation must
// convert it.
absl::StatusOr<std::vector<std::string>> UnitsFromProto(
    const google::protobuf::RepeatedPtrField<std::string>& units,
    const std::vector<std::string>& channels, absl::string_view label);

// The longest unit a message may give a channel, as long as a channel's name may be.
inline constexpr size_t kMaxUnitLength = 256;

}  // namespace wasserwarp::wire

#endif  // WASSERWARP_WIRE_CHANNEL_UNITS_H_
