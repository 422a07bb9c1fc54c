// The channel map and the units of the channels as PrepareRuns applies them: which simulated
// channel each validated channel is, and one unit per channel that every run is converted to.

#ifndef WASSERWARP_SRC_SERIES_CHANNEL_UNITS_H_
#define WASSERWARP_SRC_SERIES_CHANNEL_UNITS_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "wasserwarp/prepare.h"
#include "wasserwarp/runs_view.h"
#include "wasserwarp/series.h"

namespace wasserwarp {

// `channels` of the simulated runs under the names they are validated by (mapped to the
// reference's name where `channel_map` maps them).
std::vector<std::string> ValidatedNames(const std::vector<std::string>& channels,
                                        const std::vector<ChannelMapping>& channel_map);

// The simulated runs' name of each validated channel of `channels`.
std::vector<std::string> SimulationNames(const std::vector<std::string>& channels,
                                         const std::vector<ChannelMapping>& channel_map);

// The unit a validated channel is compared in, and where it came from (for messages).
struct UnitTarget {
  std::string unit;    // "" where neither the mapping nor any reference run gives one
  std::string origin;  // `reference run "r1" channel "yaw" in "deg/s"`, or the mapping
};

// The mapping's unit for `channel` (a validated channel's name), else the unit of the first run
// of `reference` that has one on its channel of that name.
UnitTarget TargetUnitOf(const std::string& channel, const std::vector<ChannelMapping>& channel_map,
                        const RunsView& reference);

struct ChannelUnits {
  std::vector<std::string> units;  // per channel, "" where none
  std::vector<std::string> notes;  // channels with a unit on one side only
};

// Converts each channel of every run (selected: `channels` in order, each run's `units` as its
// file gave them) to the channel's unit: the mapping's, else the first reference run's that has
// one (TargetUnitOf). InvalidArgument naming both runs, channels and units where they cannot be
// converted, and
// (`strict`) where a channel has a unit in some runs and none in others.
absl::StatusOr<ChannelUnits> ConvertUnits(const std::vector<std::string>& channels,
                                          const std::vector<std::string>& simulation_channels,
                                          const PrepareOptions& options,
                                          std::vector<Series>& simulation,
                                          std::vector<Series>& reference);

}  // namespace wasserwarp

#endif  // WASSERWARP_SRC_SERIES_CHANNEL_UNITS_H_
