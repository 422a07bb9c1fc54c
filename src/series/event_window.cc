#include "wasserwarp/event_window.h"

#include <charconv>
#include <cmath>
#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"
#include "common/absl_view.h"
#include "wasserwarp/field_error.h"
#include "wasserwarp/units.h"

namespace wasserwarp {
namespace {

// A length in seconds as the options allow it.
absl::Status CheckSeconds(absl::string_view field, double value) {
  if (value >= 0 && value <= kMaxWindowSeconds) return absl::OkStatus();
  return InvalidFieldError(field, absl::StrCat("must be a number of seconds from 0 to ",
                                               kMaxWindowSeconds, ", got ", value));
}

// A falling crossing is a rising one of the negated channel: one scan serves both.
double Oriented(const EventWindow& window, double value) {
  return window.crossing == Crossing::kRising ? value : -value;
}

// `run`'s channels linearly interpolated at `t`, which lies in [times[j], times[j + 1]].
void AppendInterpolated(const Series& run, size_t j, double t, std::vector<double>& values) {
  const double w = (t - run.times[j]) / (run.times[j + 1] - run.times[j]);
  for (size_t c = 0; c < run.num_channels(); ++c) {
    values.push_back(run.value(j, c) + w * (run.value(j + 1, c) - run.value(j, c)));
  }
}

// `run` cut to [trigger - before, trigger + after], its times moved by -trigger.
Series CutWindow(const Series& run, double trigger, const EventWindow& window) {
  const double start = trigger - window.before;
  const double end = trigger + window.after;
  Series out;
  out.id = run.id;
  out.channels = run.channels;
  out.units = run.units;
  const size_t n = run.samples();
  size_t i = 0;
  while (i < n && run.times[i] < start) ++i;
  // The window's first end where the run reaches before it; its time is written exactly.
  if (i > 0 && i < n) {
    out.times.push_back(-window.before);
    AppendInterpolated(run, i - 1, start, out.values);
  }
  for (; i < n && run.times[i] <= end; ++i) {
    const double t = run.times[i] - trigger;
    // Rounding can put a sample on an end written exactly; the end stands for it.
    if ((!out.times.empty() && t <= out.times.back()) || (i + 1 < n && t >= window.after)) {
      continue;
    }
    out.times.push_back(t);
    for (size_t c = 0; c < run.num_channels(); ++c) out.values.push_back(run.value(i, c));
  }
  if (i > 0 && i < n && (out.times.empty() || out.times.back() < window.after)) {
    out.times.push_back(window.after);
    AppendInterpolated(run, i - 1, end, out.values);
  }
  return out;
}

// "channel "c" never crosses c>1 (with hysteresis 0.2)".
std::string NeverCrosses(const EventWindow& window) {
  return absl::StrCat(
      "channel \"", window.channel, "\" never crosses ", WindowConditionText(window),
      window.hysteresis > 0 ? absl::StrCat(" (with hysteresis ", window.hysteresis, ")") : "");
}

// `window` with its level and hysteresis, given in `unit`, in `run_unit` instead.
absl::StatusOr<EventWindow> InUnitOf(const EventWindow& window, std::string_view unit,
                                     const std::string& run_unit,
                                     std::map<std::string, UnitConverter>& converters) {
  if (unit.empty() || run_unit.empty() || run_unit == unit) return window;
  auto it = converters.find(run_unit);
  if (it == converters.end()) {
    absl::StatusOr<UnitConverter> converter =
        UnitConverter::Between(AbslView(unit), AbslView(run_unit));
    if (!converter.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("in \"", run_unit, "\" cannot take the window's level in \"", AbslView(unit),
                       "\": ", converter.status().message()));
    }
    it = converters.emplace(run_unit, *std::move(converter)).first;
  }
  EventWindow converted = window;
  converted.level = it->second(window.level);
  // A difference of levels: an offset (degC to K) cancels.
  converted.hysteresis = std::abs(it->second(window.level + window.hysteresis) - converted.level);
  return converted;
}

}  // namespace

std::string UntriggeredNote(const UntriggeredRun& run, const EventWindow& window) {
  return absl::StrCat(run.side, " run \"", run.id, "\" left out of the validation: its ",
                      NeverCrosses(window));
}

absl::Status ParseWindowCondition(std::string_view text, EventWindow& window) {
  const size_t at = text.find_last_of("<>");
  if (at == std::string_view::npos || at == 0) {
    return InvalidFieldError(
        "window", absl::StrCat("\"", AbslView(text), "\" is not CHANNEL>LEVEL or CHANNEL<LEVEL"));
  }
  double level = 0.0;
  const std::string_view number = text.substr(at + 1);
  if (!absl::SimpleAtod(AbslView(number), &level) || !std::isfinite(level)) {
    return InvalidFieldError(
        "window", absl::StrCat("the level of \"", AbslView(text), "\" is not a finite number"));
  }
  window.channel = std::string(text.substr(0, at));
  window.crossing = text[at] == '>' ? Crossing::kRising : Crossing::kFalling;
  window.level = level;
  return absl::OkStatus();
}

std::string WindowConditionText(const EventWindow& window) {
  char level[32];
  const std::to_chars_result written = std::to_chars(level, level + sizeof(level), window.level);
  return absl::StrCat(window.channel, window.crossing == Crossing::kRising ? ">" : "<",
                      absl::string_view(level, static_cast<size_t>(written.ptr - level)));
}

absl::Status ValidateEventWindow(const std::optional<EventWindow>& window) {
  if (!window.has_value()) return absl::OkStatus();
  if (window->channel.empty()) return InvalidFieldError("window", "names no channel");
  if (!std::isfinite(window->level)) {
    return InvalidFieldError("window", absl::StrCat("level must be finite, got ", window->level));
  }
  if (absl::Status status = CheckSeconds("window_before", window->before); !status.ok()) {
    return status;
  }
  if (absl::Status status = CheckSeconds("window_after", window->after); !status.ok()) {
    return status;
  }
  if (!(window->hysteresis >= 0) || !std::isfinite(window->hysteresis)) {
    return InvalidFieldError("window_hysteresis",
                             absl::StrCat("must be a finite number >= 0 in the channel's units, "
                                          "got ",
                                          window->hysteresis));
  }
  if (window->before + window->after <= 0) {
    return InvalidFieldError("window_after",
                             "the window is empty: window_before and window_after are both 0");
  }
  return absl::OkStatus();
}

std::optional<double> FindTrigger(const Series& run, size_t column, const EventWindow& window) {
  const double level = Oriented(window, window.level);
  // The latest crossing since the channel was last at or below the level; it counts once the
  // channel reaches level + hysteresis, so that noise which crosses and falls back is ignored.
  std::optional<size_t> crossing;
  for (size_t i = 0; i < run.samples(); ++i) {
    const double v = Oriented(window, run.value(i, column));
    if (v <= level) {
      crossing.reset();
      continue;
    }
    if (!crossing.has_value()) {
      // Above the level since the run's start: no crossing yet.
      if (i == 0 || Oriented(window, run.value(i - 1, column)) > level) continue;
      crossing = i;
    }
    if (v >= level + window.hysteresis) {
      const size_t k = *crossing;
      const double v0 = Oriented(window, run.value(k - 1, column));
      const double v1 = Oriented(window, run.value(k, column));
      const double w = (level - v0) / (v1 - v0);
      return run.times[k - 1] + w * (run.times[k] - run.times[k - 1]);
    }
  }
  return std::nullopt;
}

absl::StatusOr<WindowedRuns> WindowRuns(const RunsView& runs, std::string_view side,
                                        const EventWindow& window, std::string_view channel,
                                        std::string_view unit) {
  const std::string name = channel.empty() ? window.channel : std::string(channel);
  // A mapped channel is named as the run has it and as the window gave it.
  const std::string mapped = name == window.channel
                                 ? ""
                                 : absl::StrCat(" (the window's channel \"", window.channel,
                                                "\" through the channel map)");
  WindowedRuns out;
  std::map<std::string, UnitConverter> converters;  // by the runs' units
  size_t index = 0;
  for (const Series& run : runs) {
    size_t column = 0;
    while (column < run.num_channels() && run.channels[column] != name) ++column;
    if (column == run.num_channels()) {
      return InvalidFieldError(
          "window", absl::StrCat(AbslView(side), " run \"", run.id, "\" has no channel \"", name,
                                 "\"", mapped, " to trigger its window on (it has: ",
                                 absl::StrJoin(run.channels, ", "), ")"));
    }
    absl::StatusOr<EventWindow> in_run_unit = InUnitOf(window, unit, run.unit(column), converters);
    if (!in_run_unit.ok()) {
      return InvalidFieldError(
          "window", absl::StrCat(AbslView(side), " run \"", run.id, "\" channel \"", name, "\"",
                                 mapped, ": ", in_run_unit.status().message()));
    }
    const std::optional<double> trigger = FindTrigger(run, column, *in_run_unit);
    if (!trigger.has_value()) {
      if (window.skip_untriggered) {
        out.untriggered.push_back({std::string(side), run.id, index++});
        continue;
      }
      return InvalidFieldError("skip_untriggered",
                               absl::StrCat("unset, and ", AbslView(side), " run \"", run.id,
                                            "\" has no trigger: its ", NeverCrosses(window)));
    }
    Series cut = CutWindow(run, *trigger, window);
    if (cut.samples() < 2) {
      return absl::InvalidArgumentError(
          absl::StrCat(AbslView(side), " run \"", run.id, "\": its window around the trigger at ",
                       *trigger, " s holds ", cut.samples(), " sample"));
    }
    out.runs.push_back(std::move(cut));
    out.triggers.push_back(*trigger);
    ++index;
  }
  return out;
}

}  // namespace wasserwarp
