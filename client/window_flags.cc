#include "window_flags.h"

#include <string>

#include "wasserwarp/event_window.h"
#include "wire/event_window.h"

namespace wasserwarp::cli {
namespace {

absl::Status ReadWindow(absl::string_view flag, const ParsedArgs& args,
                        ParameterSettings& settings) {
  EventWindow window;
  // Its error names field "window", which the CLI reports as this flag (flag_terms.h).
  if (absl::Status status = ParseWindowCondition(*args.Value(flag), window); !status.ok()) {
    return status;
  }
  settings.options.prepare.window = window;
  return absl::OkStatus();
}

// A number of the window, read after --window has made one.
template <double EventWindow::*field>
absl::Status ReadWindowNumber(absl::string_view flag, const ParsedArgs& args,
                              ParameterSettings& settings) {
  if (!settings.options.prepare.window.has_value()) return FlagError(flag, "needs --window");
  absl::StatusOr<double> value = GivenNumber(args, flag);
  if (!value.ok()) return value.status();
  (*settings.options.prepare.window).*field = *value;
  return absl::OkStatus();
}

absl::Status ReadSkipUntriggered(absl::string_view flag, const ParsedArgs& /*args*/,
                                 ParameterSettings& settings) {
  if (!settings.options.prepare.window.has_value()) return FlagError(flag, "needs --window");
  settings.options.prepare.window->skip_untriggered = true;
  return absl::OkStatus();
}

// --window first: the others shape the window it makes.
constexpr FlagDefinition<ParameterSettings> kWindowFlags[] = {
    {"--window", Arity::kOne, "CH>LEVEL",
     "cut every run around the first time channel CH rises above\n"
     "LEVEL (CH<LEVEL: falls below it), before anything else, and\n"
     "move its time axis so that this trigger is at 0",
     &ReadWindow},
    {"--window-before", Arity::kOne, "S", "seconds kept before the trigger (default 0)",
     &ReadWindowNumber<&EventWindow::before>},
    {"--window-after", Arity::kOne, "S", "seconds kept after the trigger (default 0)",
     &ReadWindowNumber<&EventWindow::after>},
    {"--window-hysteresis", Arity::kOne, "H",
     "count a crossing only if the channel goes on to LEVEL+H\n"
     "(LEVEL-H falling) before it crosses back, so that noise\n"
     "around LEVEL does not trigger early (default 0)",
     &ReadWindowNumber<&EventWindow::hysteresis>},
    {"--skip-untriggered", Arity::kSwitch, "",
     "leave runs without a crossing out (listed in the report)\n"
     "rather than refuse them",
     &ReadSkipUntriggered},
};

}  // namespace

std::vector<DocumentedFlag> WindowFlags() { return Documented<ParameterSettings>(kWindowFlags); }

absl::Status ReadWindowFlags(const ParsedArgs& args, ParameterSettings& settings) {
  if (absl::Status status = ReadFlags<ParameterSettings>(kWindowFlags, args, settings);
      !status.ok()) {
    return status;
  }
  if (settings.options.prepare.window.has_value()) {
    wire::ToProto(*settings.options.prepare.window, *settings.given.mutable_window());
  }
  return absl::OkStatus();
}

}  // namespace wasserwarp::cli
