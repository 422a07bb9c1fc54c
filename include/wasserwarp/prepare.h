// Preparation of simulated and reference runs before distances are taken:
// channel selection, time alignment and per-channel scaling.

#ifndef WASSERWARP_PREPARE_H_
#define WASSERWARP_PREPARE_H_

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "wasserwarp/event_window.h"
#include "wasserwarp/runs_view.h"
#include "wasserwarp/series.h"

namespace wasserwarp {

enum class Align {
  kNone,   // timestamps used as given
  kStart,  // each run shifted so that its first timestamp is 0
};

enum class Scale {
  kNone,          // channels compared in their own units
  kReferenceStd,  // each channel divided by its std over all reference samples
};

// What happens to runs recorded at different rates when no resample_rate is set.
enum class Resampling {
  // W and the plan on the runs as given; the verdict on runs thinned to the lower of the
  // groups' median rates when those differ (sampling_rate.h).
  kAuto,
  // The runs as given throughout; a verdict on groups at different rates is refused.
  kNone,
};

std::string_view AlignName(Align align);
std::string_view ScaleName(Scale scale);
std::string_view ResamplingName(Resampling resampling);
absl::StatusOr<Align> ParseAlign(std::string_view name);
absl::StatusOr<Scale> ParseScale(std::string_view name);
absl::StatusOr<Resampling> ParseResampling(std::string_view name);

// A simulated channel compared with a differently named reference channel (`--map SIM=REF`).
struct ChannelMapping {
  std::string simulation;  // its name in the simulated runs
  std::string reference;   // its name in the reference runs, and the validated channel's name
  std::string unit;        // both sides converted to it; empty: to the reference runs' unit
};

// Mappings beyond this many are refused: more than any run's channels, and a bound on the
// request's size.
inline constexpr size_t kMaxChannelMappings = 10'000;

// Ok when `mapping`, added after `earlier`, names two channels, maps neither a second time, and
// its unit (if any) is one udunits reads; otherwise InvalidArgument saying why, for the caller
// to say where (ValidateChannelMap: which mapping; ReadChannelMapCsv: which line).
absl::Status CheckChannelMapping(const ChannelMapping& mapping,
                                 const std::vector<ChannelMapping>& earlier);
// Every mapping checked by CheckChannelMapping, at most kMaxChannelMappings of them; errors
// name the field "channel_map" and the mapping (1-based).
absl::Status ValidateChannelMap(const std::vector<ChannelMapping>& channel_map);

struct PrepareOptions {
  // Channels to compare, by name. Empty: every channel of the first
  // simulated run.
  std::vector<std::string> channels;
  Align align = Align::kStart;
  Scale scale = Scale::kNone;
  // Hz. When set, every run is linearly interpolated onto a uniform grid at
  // this rate from its first timestamp (after alignment, before scaling).
  // TWED sums its costs per sample, so runs recorded at different rates
  // differ in scale even when their shapes agree; one rate for all makes
  // distances between any two runs comparable.
  std::optional<double> resample_rate;
  Resampling resampling = Resampling::kAuto;  // read when resample_rate is unset
  // When set, every run is first cut to its event window (event_window.h), before the channels
  // are selected and anything else is done. Its channel is the validated channel's name: the
  // reference runs' name, which the simulated runs carry under their own where `channel_map`
  // maps it.
  std::optional<EventWindow> window;
  // Applied before everything else: the simulated channel of each mapping is looked up by its
  // simulated name and compared as the reference channel.
  std::vector<ChannelMapping> channel_map;
  // A channel with a unit in some runs and none in others: an error rather than a note.
  bool strict_units = false;
};

// Ok when no rate is set or it is a finite number of Hz > 0.
absl::Status ValidateResampleRate(const std::optional<double>& rate);

// Runs resampled onto more samples than this are refused rather than
// allocated.
inline constexpr size_t kMaxResampledSamples = 100'000'000;

struct PreparedRuns {
  std::vector<Series> simulation;  // holds exactly `channels`, in that order
  std::vector<Series> reference;
  std::vector<std::string> channels;
  std::vector<double> channel_divisors;  // 1.0 for every channel unless scaled
  // With a window: each prepared run's trigger in its own time axis as given, and the runs
  // left out for want of one.
  std::vector<double> simulation_triggers;
  std::vector<double> reference_triggers;
  std::vector<UntriggeredRun> untriggered;
  // With a window: the triggered runs as it cut them, every channel, nothing else done to them
  // (what quantities of interest and the report's inputs read); null without one. Shared, so
  // that copies of the prepared runs (the verdict's grid) do not copy them.
  std::shared_ptr<const std::vector<Series>> windowed_simulation;
  std::shared_ptr<const std::vector<Series>> windowed_reference;
  // With a window and without resampling: each prepared reference run's median sampling step as
  // recorded, before the window cut it, which its ISO/TS 18571 grid steps at (a cut run's
  // interpolated ends would shrink its own median, and grow its grid past what a job's size
  // counted from the recording); empty otherwise, where each run's own median is the same.
  std::vector<double> reference_steps;
  // Per channel: the unit every run was converted to ("" where none), and the channel's name in
  // the simulated runs (its own name unless mapped).
  std::vector<std::string> units;
  std::vector<std::string> simulation_channels;
  // Channels with a unit in some runs and none in others, compared without conversion.
  std::vector<std::string> unit_notes;
};

// Validates every run, selects (through the channel map) and reorders the chosen channels,
// converts each run's channels to one unit per channel, aligns, resamples and scales. Errors name
// the run and the channel or sample at fault; an empty side or a channel missing from any run is
// InvalidArgument.
absl::StatusOr<PreparedRuns> PrepareRuns(const RunsView& simulation, const RunsView& reference,
                                         const PrepareOptions& options);

// One side's runs as the window cut them (PreparedRuns::windowed_*), or `given` without one.
RunsView RunsAsCut(const std::shared_ptr<const std::vector<Series>>& windowed,
                   const RunsView& given);

}  // namespace wasserwarp

#endif  // WASSERWARP_PREPARE_H_
