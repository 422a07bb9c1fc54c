#include "comparison_flags.h"

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "wasserwarp/csv.h"
#include "wasserwarp/prepare.h"
#include "wasserwarp/twed.h"
#include "window_flags.h"
#include "wire/channel_units.h"
#include "wire/convert.h"

namespace wasserwarp::cli {
namespace {

using Parameters = v1::ValidationParameters;

// A TWED parameter: `field` of the options and `set` of the request.
template <double TwedParams::*field, void (Parameters::*set)(double)>
absl::Status ReadTwedNumber(absl::string_view flag, const ParsedArgs& args,
                            ParameterSettings& settings) {
  absl::StatusOr<double> value = GivenNumber(args, flag);
  if (!value.ok()) return value.status();
  settings.options.twed.*field = *value;
  (settings.given.*set)(*value);
  return absl::OkStatus();
}

absl::Status ReadTimeWindow(absl::string_view flag, const ParsedArgs& args,
                            ParameterSettings& settings) {
  absl::StatusOr<double> window = GivenNumber(args, flag);
  if (!window.ok()) return window.status();
  settings.options.twed.time_window = *window;
  settings.given.set_time_window(*window);
  return absl::OkStatus();
}

absl::Status ReadAlign(absl::string_view flag, const ParsedArgs& args,
                       ParameterSettings& settings) {
  const std::string& text = *args.Value(flag);
  absl::StatusOr<Align> align = ParseAlign(text);
  if (!align.ok()) return FlagError(flag, align.status().message());
  settings.options.prepare.align = *align;
  settings.given.set_align(wire::ToProto(*align));
  return absl::OkStatus();
}

absl::Status ReadChannels(absl::string_view flag, const ParsedArgs& args,
                          ParameterSettings& settings) {
  const std::string& list = *args.Value(flag);
  std::vector<std::string> channels;
  for (absl::string_view name : absl::StrSplit(list, ',')) {
    name = absl::StripAsciiWhitespace(name);
    if (name.empty()) {
      return FlagError(flag, absl::StrCat("empty channel name in \"", list, "\""));
    }
    channels.emplace_back(name);
  }
  settings.given.mutable_channels()->Assign(channels.begin(), channels.end());
  settings.options.prepare.channels = std::move(channels);
  return absl::OkStatus();
}

absl::Status ReadResample(absl::string_view flag, const ParsedArgs& args,
                          ParameterSettings& settings) {
  const std::string& value = *args.Value(flag);
  if (absl::StatusOr<Resampling> resampling = ParseResampling(value); resampling.ok()) {
    settings.options.prepare.resampling = *resampling;
    settings.given.set_resampling(wire::ToProto(*resampling));
    return absl::OkStatus();
  }
  absl::StatusOr<double> rate = GivenNumber(args, flag);
  if (!rate.ok()) return rate.status();
  if (*rate <= 0) return FlagError(flag, "must be a rate in Hz > 0");
  settings.options.prepare.resample_rate = *rate;
  settings.given.set_resample_rate(*rate);
  return absl::OkStatus();
}

// `mapping` after those read so far (--map-file's, then --map's), checked against them.
absl::Status AddMapping(absl::string_view flag, ChannelMapping mapping,
                        ParameterSettings& settings) {
  std::vector<ChannelMapping>& channel_map = settings.options.prepare.channel_map;
  if (absl::Status status = CheckChannelMapping(mapping, channel_map); !status.ok()) {
    return FlagError(flag, status.message());
  }
  *settings.given.add_channel_map() = wire::ToProto(mapping);
  channel_map.push_back(std::move(mapping));
  return absl::OkStatus();
}

absl::Status ReadMapFile(absl::string_view flag, const ParsedArgs& args,
                         ParameterSettings& settings) {
  absl::StatusOr<std::vector<ChannelMapping>> channel_map = ReadChannelMapCsv(*args.Value(flag));
  if (!channel_map.ok()) return FlagError(flag, channel_map.status().message());
  for (ChannelMapping& mapping : *channel_map) {
    if (absl::Status status = AddMapping(flag, std::move(mapping), settings); !status.ok()) {
      return status;
    }
  }
  return absl::OkStatus();
}

absl::Status ReadMap(absl::string_view flag, const ParsedArgs& args, ParameterSettings& settings) {
  const std::string& list = *args.Value(flag);
  for (absl::string_view pair : absl::StrSplit(list, ',')) {
    pair = absl::StripAsciiWhitespace(pair);
    const size_t equals = pair.find('=');
    if (equals == absl::string_view::npos) {
      return FlagError(flag,
                       absl::StrCat("expected SIM=REF, got \"", pair, "\" in \"", list, "\""));
    }
    ChannelMapping mapping{
        .simulation = std::string(absl::StripAsciiWhitespace(pair.substr(0, equals))),
        .reference = std::string(absl::StripAsciiWhitespace(pair.substr(equals + 1)))};
    if (absl::Status status = AddMapping(flag, std::move(mapping), settings); !status.ok()) {
      return status;
    }
  }
  return absl::OkStatus();
}

absl::Status ReadStrictUnits(absl::string_view, const ParsedArgs&, ParameterSettings& settings) {
  settings.options.prepare.strict_units = true;
  settings.given.set_strict_units(true);
  return absl::OkStatus();
}

// Checked together, before the preparation flags, by ValidateTwedParams.
constexpr FlagDefinition<ParameterSettings> kTwedFlags[] = {
    {"--nu", Arity::kOne, "X", "stiffness: cost per second of time mismatch (default 0.001)",
     &ReadTwedNumber<&TwedParams::nu, &Parameters::set_nu>},
    {"--lambda", Arity::kOne, "X", "cost of each deletion (default 0)",
     &ReadTwedNumber<&TwedParams::lambda, &Parameters::set_deletion_penalty>},
    {"--p", Arity::kOne, "X", "Lp norm across channels, >= 1 (default 2)",
     &ReadTwedNumber<&TwedParams::p, &Parameters::set_p>},
    {"--time-window", Arity::kOne, "S",
     "match only samples at most S seconds apart (default: no window)", &ReadTimeWindow},
};

constexpr FlagDefinition<ParameterSettings> kPreparationFlags[] = {
    {"--align", Arity::kOne, "none|start",
     "start: shift each run to begin at time 0 (default start)", &ReadAlign},
    {"--channels", Arity::kOne, "a,b",
     "channels to compare (default: every channel of the first\n"
     "simulated run)",
     &ReadChannels},
    {"--resample", Arity::kOne, "auto|none|HZ",
     "HZ: interpolate every run onto a uniform grid at HZ first, so\n"
     "that runs recorded at different rates compare like for like.\n"
     "auto (default): W on each run at its own timestamps; when the\n"
     "groups' median rates differ by more than 10 %, the verdict on\n"
     "every run resampled to the lower of them. none: the runs as\n"
     "given, and a verdict on groups at different rates refused",
     &ReadResample},
    {"--map-file", Arity::kOne, "FILE",
     "channel map, one sim_channel,ref_channel[,unit] per line:\n"
     "each simulated channel is compared as its reference channel,\n"
     "converted to the reference's unit (or both to the given one)",
     &ReadMapFile},
    {"--map", Arity::kOne, "SIM=REF,...",
     "compare simulated channel SIM as reference channel REF\n"
     "(after --map-file's mappings)",
     &ReadMap},
    {"--strict-units", Arity::kSwitch, "",
     "refuse a channel with a unit in some runs and none in others\n"
     "(default: a warning in the report)",
     &ReadStrictUnits},
};

}  // namespace

std::vector<DocumentedFlag> ComparisonFlags() {
  std::vector<DocumentedFlag> flags = Documented<ParameterSettings>(kTwedFlags);
  const std::vector<DocumentedFlag> preparation = Documented<ParameterSettings>(kPreparationFlags);
  flags.insert(flags.end(), preparation.begin(), preparation.end());
  const std::vector<DocumentedFlag> window = WindowFlags();
  flags.insert(flags.end(), window.begin(), window.end());
  return flags;
}

absl::Status ReadComparisonFlags(const ParsedArgs& args, ParameterSettings& settings) {
  if (absl::Status status = ReadFlags<ParameterSettings>(kTwedFlags, args, settings);
      !status.ok()) {
    return status;
  }
  if (absl::Status valid = ValidateTwedParams(settings.options.twed); !valid.ok()) return valid;
  if (absl::Status status = ReadFlags<ParameterSettings>(kPreparationFlags, args, settings);
      !status.ok()) {
    return status;
  }
  return ReadWindowFlags(args, settings);
}

}  // namespace wasserwarp::cli
