#include "wasserwarp/prepare.h"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_set>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"
#include "common/named_values.h"
#include "series/channel_units.h"
#include "series/sampling_rate.h"
#include "wasserwarp/event_window.h"
#include "wasserwarp/field_error.h"
#include "wasserwarp/series.h"

namespace wasserwarp {
namespace {

constexpr NamedValue<Align> kAlignNames[] = {{Align::kNone, "none"}, {Align::kStart, "start"}};
constexpr NamedValue<Scale> kScaleNames[] = {{Scale::kNone, "none"},
                                             {Scale::kReferenceStd, "reference-std"}};
constexpr NamedValue<Resampling> kResamplingNames[] = {{Resampling::kAuto, "auto"},
                                                       {Resampling::kNone, "none"}};

absl::Status WithContext(const absl::Status& status, absl::string_view context) {
  return absl::Status(status.code(), absl::StrCat(context, ": ", status.message()));
}

// `columns[k]` is the column of `channels[k]` in `run`; the units stay those of the file.
Series SelectChannels(const Series& run, const std::vector<std::string>& channels,
                      const std::vector<size_t>& columns) {
  Series out;
  out.id = run.id;
  out.channels = channels;
  out.times = run.times;
  if (!run.units.empty()) {
    for (size_t column : columns) out.units.push_back(run.units[column]);
  }
  out.values.reserve(run.samples() * columns.size());
  for (size_t i = 0; i < run.samples(); ++i) {
    for (size_t column : columns) out.values.push_back(run.value(i, column));
  }
  return out;
}

// Column of each chosen channel in `run`; InvalidArgument for a missing one.
absl::StatusOr<std::vector<size_t>> FindColumns(const Series& run, absl::string_view side,
                                                const std::vector<std::string>& channels) {
  std::vector<size_t> columns;
  columns.reserve(channels.size());
  for (const std::string& channel : channels) {
    size_t column = 0;
    while (column < run.num_channels() && run.channels[column] != channel) ++column;
    if (column == run.num_channels()) {
      return absl::InvalidArgumentError(
          absl::StrCat(side, " run \"", run.id, "\" has no channel \"", channel,
                       "\" (it has: ", absl::StrJoin(run.channels, ", "), ")"));
    }
    columns.push_back(column);
  }
  return columns;
}

// `names` are the channels as `runs` call them, `channels` as the validation does.
absl::Status SelectAll(const RunsView& runs, absl::string_view side,
                       const std::vector<std::string>& names,
                       const std::vector<std::string>& channels, std::vector<Series>& out) {
  out.reserve(runs.size());
  for (const Series& run : runs) {
    absl::StatusOr<std::vector<size_t>> columns = FindColumns(run, side, names);
    if (!columns.ok()) return columns.status();
    out.push_back(SelectChannels(run, channels, *columns));
  }
  return absl::OkStatus();
}

void AlignToStart(Series& run) {
  const double start = run.times.front();
  for (double& t : run.times) t -= start;
}

// `run` linearly interpolated at times[0] + k / rate, k = 0, 1, ... up to its
// last timestamp. Grid times are computed from k, never accumulated, so that
// no rounding drift builds up over long runs.
Series ResampleUniform(const Series& run, double rate) {
  const double start = run.times.front();
  const size_t last = static_cast<size_t>(std::floor((run.times.back() - start) * rate));
  Series out;
  out.id = run.id;
  out.channels = run.channels;
  out.units = run.units;
  const size_t channels = run.num_channels();
  out.times.reserve(last + 1);
  out.values.reserve((last + 1) * channels);
  size_t j = 0;  // run.times[j] <= t < run.times[j + 1]
  for (size_t k = 0; k <= last; ++k) {
    const double t = start + static_cast<double>(k) / rate;
    if (t > run.times.back()) break;
    while (j + 1 < run.samples() && run.times[j + 1] <= t) ++j;
    out.times.push_back(t);
    if (j + 1 == run.samples()) {
      for (size_t c = 0; c < channels; ++c) out.values.push_back(run.value(j, c));
      continue;
    }
    const double w = (t - run.times[j]) / (run.times[j + 1] - run.times[j]);
    for (size_t c = 0; c < channels; ++c) {
      out.values.push_back(run.value(j, c) + w * (run.value(j + 1, c) - run.value(j, c)));
    }
  }
  return out;
}

// Every run of `runs` (of the `side` named in errors) interpolated onto the grid of `rate`.
absl::Status ResampleRuns(double rate, absl::string_view side, std::vector<Series>& runs) {
  for (Series& run : runs) {
    const double samples = std::floor((run.times.back() - run.times.front()) * rate) + 1;
    if (!(samples <= static_cast<double>(kMaxResampledSamples))) {
      return absl::InvalidArgumentError(
          absl::StrCat(side, " run \"", run.id, "\" would have ", absl::StrFormat("%.0f", samples),
                       " samples at ", rate, " Hz, more than the ", kMaxResampledSamples,
                       " allowed; choose a lower --resample rate"));
    }
    run = ResampleUniform(run, rate);
  }
  return absl::OkStatus();
}

// Population standard deviation of each channel over every sample of every
// run, in two passes so that a large mean does not swamp a small spread.
std::vector<double> ChannelStd(const std::vector<Series>& runs, size_t num_channels) {
  std::vector<double> mean(num_channels, 0.0);
  size_t count = 0;
  for (const Series& run : runs) {
    count += run.samples();
    for (size_t i = 0; i < run.samples(); ++i) {
      for (size_t c = 0; c < num_channels; ++c) mean[c] += run.value(i, c);
    }
  }
  for (double& m : mean) m /= static_cast<double>(count);
  std::vector<double> sum_sq(num_channels, 0.0);
  for (const Series& run : runs) {
    for (size_t i = 0; i < run.samples(); ++i) {
      for (size_t c = 0; c < num_channels; ++c) {
        const double d = run.value(i, c) - mean[c];
        sum_sq[c] += d * d;
      }
    }
  }
  std::vector<double> std_dev(num_channels);
  for (size_t c = 0; c < num_channels; ++c) {
    std_dev[c] = std::sqrt(sum_sq[c] / static_cast<double>(count));
  }
  return std_dev;
}

void DivideChannels(const std::vector<double>& divisors, std::vector<Series>& runs) {
  for (Series& run : runs) {
    for (size_t i = 0; i < run.values.size(); ++i) run.values[i] /= divisors[i % divisors.size()];
  }
}

// Shifting and scaling can, in extreme cases, merge adjacent times or
// overflow values; the output must satisfy the same contract as the input.
absl::Status ValidatePrepared(const std::vector<Series>& runs, absl::string_view side) {
  for (const Series& run : runs) {
    if (absl::Status status = ValidateSeries(run); !status.ok()) {
      return WithContext(status,
                         absl::StrCat(side, " run after alignment, resampling and scaling"));
    }
  }
  return absl::OkStatus();
}

// A window names the validated channel; the simulated runs' name of a mapped channel would find
// no reference channel, and is refused saying which name to give.
absl::Status CheckWindowChannel(const EventWindow& window,
                                const std::vector<ChannelMapping>& channel_map) {
  const ChannelMapping* by_simulated_name = nullptr;
  for (const ChannelMapping& mapping : channel_map) {
    if (mapping.reference == window.channel) return absl::OkStatus();
    if (mapping.simulation == window.channel) by_simulated_name = &mapping;
  }
  if (by_simulated_name == nullptr) return absl::OkStatus();
  return InvalidFieldError(
      "window", absl::StrCat("names \"", window.channel,
                             "\", the simulated runs' name of the mapped channel \"",
                             by_simulated_name->reference,
                             "\": a window names the validated channel, as the reference runs do"));
}

// Both sides cut to their windows (the simulated runs' on the window's channel as they name it,
// each run's level in its own unit); the cut runs, their triggers and the runs left out go to
// `prepared`.
absl::Status WindowBoth(const RunsView& simulation, const RunsView& reference,
                        const EventWindow& window, const std::vector<ChannelMapping>& channel_map,
                        PreparedRuns& prepared) {
  const std::string simulation_channel = SimulationNames({window.channel}, channel_map).front();
  // The level is in the unit the channel is validated in, as its values will be.
  const std::string unit = TargetUnitOf(window.channel, channel_map, reference).unit;
  for (auto [side, runs, channel, runs_out, triggers_out] :
       {std::tuple{"simulation", &simulation, &simulation_channel, &prepared.windowed_simulation,
                   &prepared.simulation_triggers},
        std::tuple{"reference", &reference, &window.channel, &prepared.windowed_reference,
                   &prepared.reference_triggers}}) {
    absl::StatusOr<WindowedRuns> windowed = WindowRuns(*runs, side, window, *channel, unit);
    if (!windowed.ok()) return windowed.status();
    if (windowed->runs.empty()) {
      return absl::InvalidArgumentError(absl::StrCat("no ", side, " run has its channel \"",
                                                     *channel, "\" cross ",
                                                     WindowConditionText(window)));
    }
    prepared.untriggered.insert(prepared.untriggered.end(), windowed->untriggered.begin(),
                                windowed->untriggered.end());
    *triggers_out = std::move(windowed->triggers);
    *runs_out = std::make_shared<const std::vector<Series>>(std::move(windowed->runs));
  }
  return absl::OkStatus();
}

// Each reference run the window kept, its median step as recorded (PreparedRuns::reference_steps).
std::vector<double> RecordedSteps(const RunsView& reference,
                                  const std::vector<UntriggeredRun>& untriggered) {
  std::vector<bool> left_out(reference.size(), false);
  for (const UntriggeredRun& run : untriggered) {
    if (run.side == "reference") left_out[run.index] = true;
  }
  std::vector<double> steps;
  size_t index = 0;
  for (const Series& run : reference) {
    if (!left_out[index++]) steps.push_back(MedianStep(run.times));
  }
  return steps;
}

}  // namespace

std::string_view AlignName(Align align) { return NameOf(kAlignNames, align); }
std::string_view ScaleName(Scale scale) { return NameOf(kScaleNames, scale); }
std::string_view ResamplingName(Resampling resampling) {
  return NameOf(kResamplingNames, resampling);
}

absl::StatusOr<Align> ParseAlign(std::string_view name) {
  return ParseNamed(kAlignNames, "alignment", name);
}

absl::StatusOr<Scale> ParseScale(std::string_view name) {
  return ParseNamed(kScaleNames, "scaling", name);
}

absl::StatusOr<Resampling> ParseResampling(std::string_view name) {
  return ParseNamed(kResamplingNames, "resampling", name);
}

absl::Status ValidateResampleRate(const std::optional<double>& rate) {
  if (!rate.has_value() || (*rate > 0 && std::isfinite(*rate))) return absl::OkStatus();
  return InvalidFieldError("resample_rate",
                           absl::StrCat("must be a finite number of Hz > 0, got ", *rate));
}

absl::StatusOr<PreparedRuns> PrepareRuns(const RunsView& simulation, const RunsView& reference,
                                         const PrepareOptions& options) {
  if (simulation.empty()) return absl::InvalidArgumentError("no simulated runs");
  if (reference.empty()) return absl::InvalidArgumentError("no reference runs");
  if (absl::Status status = ValidateResampleRate(options.resample_rate); !status.ok()) {
    return status;
  }
  if (absl::Status status = ValidateEventWindow(options.window); !status.ok()) return status;
  if (absl::Status status = ValidateChannelMap(options.channel_map); !status.ok()) return status;
  for (const Series& run : simulation) {
    if (absl::Status status = ValidateSeries(run); !status.ok()) {
      return WithContext(status, "simulation run");
    }
  }
  for (const Series& run : reference) {
    if (absl::Status status = ValidateSeries(run); !status.ok()) {
      return WithContext(status, "reference run");
    }
  }

  PreparedRuns prepared;
  if (options.window.has_value()) {
    if (absl::Status status = CheckWindowChannel(*options.window, options.channel_map);
        !status.ok()) {
      return status;
    }
    absl::Status status =
        WindowBoth(simulation, reference, *options.window, options.channel_map, prepared);
    if (!status.ok()) return status;
    if (!options.resample_rate.has_value()) {
      prepared.reference_steps = RecordedSteps(reference, prepared.untriggered);
    }
  }
  const RunsView simulation_runs = RunsAsCut(prepared.windowed_simulation, simulation);
  const RunsView reference_runs = RunsAsCut(prepared.windowed_reference, reference);
  prepared.channels = options.channels.empty()
                          ? ValidatedNames(simulation_runs.front().channels, options.channel_map)
                          : options.channels;
  std::unordered_set<std::string_view> seen;
  for (const std::string& channel : prepared.channels) {
    if (!seen.insert(channel).second) {
      return absl::InvalidArgumentError(
          absl::StrCat("channel \"", channel, "\" is requested more than once"));
    }
  }
  prepared.simulation_channels = SimulationNames(prepared.channels, options.channel_map);
  if (absl::Status status = SelectAll(simulation_runs, "simulation", prepared.simulation_channels,
                                      prepared.channels, prepared.simulation);
      !status.ok()) {
    return status;
  }
  if (absl::Status status = SelectAll(reference_runs, "reference", prepared.channels,
                                      prepared.channels, prepared.reference);
      !status.ok()) {
    return status;
  }
  absl::StatusOr<ChannelUnits> units =
      ConvertUnits(prepared.channels, prepared.simulation_channels, options, prepared.simulation,
                   prepared.reference);
  if (!units.ok()) return units.status();
  prepared.units = std::move(units->units);
  prepared.unit_notes = std::move(units->notes);

  if (options.align == Align::kStart) {
    for (Series& run : prepared.simulation) AlignToStart(run);
    for (Series& run : prepared.reference) AlignToStart(run);
  }
  if (options.resample_rate.has_value()) {
    for (auto [side, runs] : {std::pair{"simulation", &prepared.simulation},
                              std::pair{"reference", &prepared.reference}}) {
      if (absl::Status status = ResampleRuns(*options.resample_rate, side, *runs); !status.ok()) {
        return status;
      }
    }
  }

  prepared.channel_divisors.assign(prepared.channels.size(), 1.0);
  if (options.scale == Scale::kReferenceStd) {
    const std::vector<double> std_dev = ChannelStd(prepared.reference, prepared.channels.size());
    for (size_t c = 0; c < std_dev.size(); ++c) {
      if (!(std_dev[c] > 0.0) || !std::isfinite(std_dev[c])) {
        return absl::InvalidArgumentError(absl::StrCat(
            "channel \"", prepared.channels[c], "\": standard deviation over all reference ",
            "samples is ", std_dev[c], "; cannot scale by it"));
      }
    }
    prepared.channel_divisors = std_dev;
    DivideChannels(prepared.channel_divisors, prepared.simulation);
    DivideChannels(prepared.channel_divisors, prepared.reference);
  }

  if (absl::Status status = ValidatePrepared(prepared.simulation, "simulation"); !status.ok()) {
    return status;
  }
  if (absl::Status status = ValidatePrepared(prepared.reference, "reference"); !status.ok()) {
    return status;
  }
  return prepared;
}

RunsView RunsAsCut(const std::shared_ptr<const std::vector<Series>>& windowed,
                   const RunsView& given) {
  return windowed != nullptr ? RunsView(*windowed) : given;
}

}  // namespace wasserwarp
