// The flags of an event window (wasserwarp/event_window.h): --window and the flags that shape
// it, a section of the comparison flags that every command preparing runs takes.

#ifndef WASSERWARP_CLIENT_WINDOW_FLAGS_H_
#define WASSERWARP_CLIENT_WINDOW_FLAGS_H_

#include <vector>

#include "absl/status/status.h"
#include "args.h"
#include "comparison_flags.h"
#include "flag_definition.h"

namespace wasserwarp::cli {

// --window, --window-before, --window-after, --window-hysteresis, --skip-untriggered.
std::vector<DocumentedFlag> WindowFlags();

// Sets the window the flags given describe, both in the options and in the request; the flags
// that shape a window without --window are refused. Values are checked by the core.
absl::Status ReadWindowFlags(const ParsedArgs& args, ParameterSettings& settings);

}  // namespace wasserwarp::cli

#endif  // WASSERWARP_CLIENT_WINDOW_FLAGS_H_
