// The validation parameters a session's defaults set, in plain values, so that neither the
// session store nor its databases hold proto types.

#ifndef WASSERWARP_WIRE_SESSION_RESOURCE_H_
#define WASSERWARP_WIRE_SESSION_RESOURCE_H_

#include <optional>
#include <string>
#include <vector>

#include "wasserwarp/prepare.h"

namespace wasserwarp::wire {

// The validation parameters a session's defaults set; unset fields leave the core's
// defaults (or a call's own overrides) in place. Translated by parameters.h.
struct ParameterOverrides {
  std::optional<double> nu;
  std::optional<double> lambda;
  std::optional<double> p;
  std::optional<double> time_window;
  std::optional<double> order;
  std::optional<double> resample_rate;
  std::optional<Align> align;
  std::optional<Scale> scale;
  std::optional<Resampling> resampling;
  std::vector<std::string> channels;  // empty: every channel
};

}  // namespace wasserwarp::wire

#endif  // WASSERWARP_WIRE_SESSION_RESOURCE_H_
