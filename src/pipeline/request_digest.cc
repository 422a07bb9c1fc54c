#include "wasserwarp/request_digest.h"

#include <bit>
#include <cstdint>
#include <optional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "wasserwarp/run_checksum.h"
#include "wasserwarp/run_role.h"
#include "wasserwarp/sha256.h"

namespace wasserwarp {
namespace {

absl::string_view View(std::string_view s) { return absl::string_view(s.data(), s.size()); }

// The words of the canonical form (request_digest.h), each after a space.
class Line {
 public:
  explicit Line(std::string_view name) : text_(name) {}

  Line& Number(uint64_t value) {
    absl::StrAppend(&text_, " ", value);
    return *this;
  }
  Line& Double(double value) {
    absl::StrAppend(&text_, " ", absl::StrFormat("%016x", std::bit_cast<uint64_t>(value)));
    return *this;
  }
  Line& Double(const std::optional<double>& value) {
    return value.has_value() ? Double(*value) : Absent();
  }
  Line& String(std::string_view value) {
    absl::StrAppend(&text_, " ", value.size(), ":", View(value));
    return *this;
  }
  Line& Word(std::string_view word) {
    absl::StrAppend(&text_, " ", View(word));
    return *this;
  }
  Line& Absent() { return Word("-"); }
  Line& Doubles(const std::vector<double>& values) {
    Number(values.size());
    for (double value : values) Double(value);
    return *this;
  }

  void AppendTo(std::string& out) const { absl::StrAppend(&out, text_, "\n"); }

 private:
  std::string text_;
};

void AppendVerdict(const std::optional<VerdictOptions>& verdict, std::string& out) {
  Line line("verdict");
  if (!verdict.has_value()) {
    line.Absent().AppendTo(out);
    return;
  }
  line.Number(static_cast<uint64_t>(verdict->permutations))
      .Number(verdict->seed)
      .Double(verdict->max_distance)
      .Double(verdict->max_ratio)
      .Double(verdict->alpha)
      .Number(verdict->subtract_sampling_floor ? 1 : 0)
      .Word(RatioRuleName(verdict->ratio_rule))
      .Double(verdict->ratio_confidence)
      .AppendTo(out);
  // Only when given, so that the digests of requests without it stay as they were.
  if (verdict->band_min_inside.has_value()) {
    Line("band_min_inside").Double(verdict->band_min_inside).AppendTo(out);
  }
}

void AppendRuns(RunRole role, const RunsView& runs, std::string& out) {
  for (const Series& run : runs) {
    Line("run")
        .Word(RoleName(role))
        .String(run.id)
        .Word(RunChecksumHex(RunChecksum(run)))
        .AppendTo(out);
    // Units change what the samples mean; a run without any leaves the form as it was.
    if (!run.units.empty()) {
      Line units("units");
      units.Number(run.units.size());
      for (const std::string& unit : run.units) units.String(unit);
      units.AppendTo(out);
    }
  }
}

}  // namespace

std::string RequestDigestText(const ValidationOptions& options, const RunsView& simulation,
                              const RunsView& reference, std::string_view study) {
  std::string out = "wasserwarp.request_digest.v1\n";
  Line("order").Double(options.order).AppendTo(out);
  Line("nu").Double(options.twed.nu).AppendTo(out);
  Line("lambda").Double(options.twed.lambda).AppendTo(out);
  Line("p").Double(options.twed.p).AppendTo(out);
  Line("time_window").Double(options.twed.time_window).AppendTo(out);
  Line channels("channels");
  channels.Number(options.prepare.channels.size());
  for (const std::string& channel : options.prepare.channels) channels.String(channel);
  channels.AppendTo(out);
  Line("align").Word(AlignName(options.prepare.align)).AppendTo(out);
  Line("scale").Word(ScaleName(options.prepare.scale)).AppendTo(out);
  Line("resample_rate").Double(options.prepare.resample_rate).AppendTo(out);
  // The mode is read only without a rate (prepare.h).
  Line resampling("resampling");
  if (options.prepare.resample_rate.has_value()) {
    resampling.Absent();
  } else {
    resampling.Word(ResamplingName(options.prepare.resampling));
  }
  resampling.AppendTo(out);
  // Lines only where set, so that the digests of requests without them stay as they were.
  if (!options.prepare.channel_map.empty()) {
    Line channel_map("channel_map");
    channel_map.Number(options.prepare.channel_map.size());
    for (const ChannelMapping& mapping : options.prepare.channel_map) {
      channel_map.String(mapping.simulation).String(mapping.reference).String(mapping.unit);
    }
    channel_map.AppendTo(out);
  }
  if (options.prepare.strict_units) Line("strict_units").Number(1).AppendTo(out);
  Line("simulation_weights").Doubles(options.simulation_weights).AppendTo(out);
  Line("reference_weights").Doubles(options.reference_weights).AppendTo(out);
  AppendVerdict(options.verdict, out);
  Line quantities("quantities");
  quantities.Number(options.quantities.size());
  for (const QuantityOfInterest& quantity : options.quantities) {
    quantities.String(absl::StrCat(quantity.channel, ":", quantity.quantity()));
  }
  quantities.AppendTo(out);
  if (!options.bands.empty()) {
    Line bands("bands");
    bands.Number(options.bands.size());
    for (const ToleranceBand& band : options.bands) bands.String(ToleranceBandSpec(band));
    bands.AppendTo(out);
  }
  // Only with a window, so that the digests of requests without one stay as they were.
  if (const std::optional<EventWindow>& window = options.prepare.window; window.has_value()) {
    Line("window")
        .String(WindowConditionText(*window))
        .Double(window->before)
        .Double(window->after)
        .Double(window->hysteresis)
        .Word(window->skip_untriggered ? "skip_untriggered" : "refuse_untriggered")
        .AppendTo(out);
  }
  Line("study").String(study).AppendTo(out);
  // Written only when asked for, so that the digests of requests without them stay as they were.
  if (options.iso18571) Line("iso18571").AppendTo(out);
  if (options.verdict.has_value() && options.verdict->min_iso_rating.has_value()) {
    Line("min_iso_rating").Double(options.verdict->min_iso_rating).AppendTo(out);
  }
  Line("runs").Number(simulation.size() + reference.size()).AppendTo(out);
  AppendRuns(RunRole::kSimulation, simulation, out);
  AppendRuns(RunRole::kReference, reference, out);
  return out;
}

std::string RequestDigest(const ValidationOptions& options, const RunsView& simulation,
                          const RunsView& reference, std::string_view study) {
  return Sha256Hex(RequestDigestText(options, simulation, reference, study));
}

}  // namespace wasserwarp
