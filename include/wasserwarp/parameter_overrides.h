// The validation parameters a caller sets, each one optional: a session's defaults and a call's
// own parameters before they resolve, over the core's defaults, to the ValidationOptions a
// validation runs with. Front ends translate their own forms (the wire's ValidationParameters)
// to this one; how overrides combine, and where each lands in the options, is decided here.

#ifndef WASSERWARP_PARAMETER_OVERRIDES_H_
#define WASSERWARP_PARAMETER_OVERRIDES_H_

#include <optional>
#include <string>
#include <vector>

#include "wasserwarp/prepare.h"

namespace wasserwarp {

struct ValidationOptions;

// Unset fields leave the core's defaults, or the overrides below these, in place.
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
  std::vector<std::string> channels;        // empty: every channel
  std::vector<ChannelMapping> channel_map;  // empty: none
  std::optional<bool> strict_units;
  std::optional<EventWindow> window;
};

// `base` with every field `overrides` sets in its place; channels and the channel map replace
// base's when non-empty. A rate and a resampling mode exclude each other: whichever `overrides`
// gives wins.
ParameterOverrides MergeOverrides(ParameterOverrides base, const ParameterOverrides& overrides);

// Sets the fields of `options` that `overrides` sets. Values are checked later, by
// ValidateValidationOptions.
void ApplyOverrides(const ParameterOverrides& overrides, ValidationOptions& options);

// The parameters `options` resolve to, every field set but the resampling mode where a rate
// is, which the rate makes moot, and strict_units where false (its default), so that what
// requests without it resolve to reads as before.
ParameterOverrides OverridesOf(const ValidationOptions& options);

}  // namespace wasserwarp

#endif  // WASSERWARP_PARAMETER_OVERRIDES_H_
