// Event-triggered windows: each run cut to a window around the first time one of its channels
// crosses a level, and its time axis moved so that this trigger is at 0. A bench recording starts
// seconds before the manoeuvre, a simulation at it; cutting both at the same event lines them up
// before any other preparation (prepare.h).

#ifndef WASSERWARP_EVENT_WINDOW_H_
#define WASSERWARP_EVENT_WINDOW_H_

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "wasserwarp/runs_view.h"
#include "wasserwarp/series.h"

namespace wasserwarp {

enum class Crossing {
  kRising,   // CHANNEL>LEVEL: from <= level to > level
  kFalling,  // CHANNEL<LEVEL: from >= level to < level
};

struct EventWindow {
  std::string channel;
  Crossing crossing = Crossing::kRising;
  double level = 0.0;
  double before = 0.0;  // seconds kept before the trigger
  double after = 0.0;   // seconds kept after it
  // A crossing counts only if the channel goes on to at least level + hysteresis (a falling one:
  // level - hysteresis) before it is back at or below the level, so that noise which crosses the
  // level and falls back before the event does not trigger early. The trigger is still the
  // crossing's time.
  double hysteresis = 0.0;
  // Runs without a crossing are left out (and listed) rather than refused.
  bool skip_untriggered = false;
};

// Seconds beyond which window lengths and hysteresis are refused as surely mistaken.
inline constexpr double kMaxWindowSeconds = 1e9;

// "yaw_rate>0.5" or "steer<-10": the channel, the crossing and the level of `window`; the other
// fields are left as they are. InvalidArgument with field "window" otherwise.
absl::Status ParseWindowCondition(std::string_view text, EventWindow& window);
// The condition as ParseWindowCondition reads it.
std::string WindowConditionText(const EventWindow& window);

// Ok without a window; otherwise a channel, a finite level, and before, after and hysteresis
// finite, >= 0 and at most kMaxWindowSeconds (hysteresis: finite, >= 0), before + after > 0.
// Errors name the field: window, window_before, window_after, window_hysteresis.
absl::Status ValidateEventWindow(const std::optional<EventWindow>& window);

// The time of the first counted crossing of `column` of `run` (linear interpolation between the
// two samples that straddle the level), or nullopt. A rising crossing is a sample at or below the
// level followed by one above it; it counts as `hysteresis` says.
std::optional<double> FindTrigger(const Series& run, size_t column, const EventWindow& window);

// A run skipped for want of a crossing.
struct UntriggeredRun {
  std::string side;  // "simulation" or "reference"
  std::string id;
  size_t index = 0;  // in its side's runs as given
};

// What a report says of a run left out: which, and that its channel never crosses the level.
std::string UntriggeredNote(const UntriggeredRun& run, const EventWindow& window);

struct WindowedRuns {
  std::vector<Series> runs;      // triggered runs, in their order, trigger at time 0
  std::vector<double> triggers;  // each kept run's trigger in its own time axis
  std::vector<UntriggeredRun> untriggered;
};

// Every run of `runs` (the `side` named in errors) cut to [-before, after] around its trigger.
// Window ends inside a run are interpolated samples at exactly -before and +after; a run that
// does not reach that far keeps what it has. A run without a crossing is InvalidArgument naming
// it, or left out with skip_untriggered. A run whose window holds a single sample is refused.
// `channel` is the window's channel as these runs name it (the simulated runs' name where a
// channel map maps it, prepare.h); empty: window.channel. `unit` is the unit the window's level
// and hysteresis are given in (the validated channel's, prepare.h): a run whose channel is in
// another unit has them converted to its own, and one that cannot be is refused naming both;
// empty, or a run without a unit: taken as they are.
absl::StatusOr<WindowedRuns> WindowRuns(const RunsView& runs, std::string_view side,
                                        const EventWindow& window, std::string_view channel = {},
                                        std::string_view unit = {});

}  // namespace wasserwarp

#endif  // WASSERWARP_EVENT_WINDOW_H_
