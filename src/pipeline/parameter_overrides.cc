#include "wasserwarp/parameter_overrides.h"

#include <optional>

#include "wasserwarp/validation.h"

namespace wasserwarp {
namespace {

// The optional numbers of ParameterOverrides and where each lands in the options: the one
// table that MergeOverrides, ApplyOverrides and OverridesOf read.
struct NumberParameter {
  std::optional<double> ParameterOverrides::*field;
  // The options' value; null where the options leave it unset.
  std::optional<double> (*read)(const ValidationOptions&);
  void (*write)(ValidationOptions&, double);
};

const NumberParameter kNumberParameters[] = {
    {&ParameterOverrides::nu, [](const ValidationOptions& o) { return std::optional(o.twed.nu); },
     [](ValidationOptions& o, double x) { o.twed.nu = x; }},
    {&ParameterOverrides::lambda,
     [](const ValidationOptions& o) { return std::optional(o.twed.lambda); },
     [](ValidationOptions& o, double x) { o.twed.lambda = x; }},
    {&ParameterOverrides::p, [](const ValidationOptions& o) { return std::optional(o.twed.p); },
     [](ValidationOptions& o, double x) { o.twed.p = x; }},
    {&ParameterOverrides::time_window,
     [](const ValidationOptions& o) { return o.twed.time_window; },
     [](ValidationOptions& o, double x) { o.twed.time_window = x; }},
    {&ParameterOverrides::order, [](const ValidationOptions& o) { return std::optional(o.order); },
     [](ValidationOptions& o, double x) { o.order = x; }},
    {&ParameterOverrides::resample_rate,
     [](const ValidationOptions& o) { return o.prepare.resample_rate; },
     [](ValidationOptions& o, double x) { o.prepare.resample_rate = x; }},
};

}  // namespace

ParameterOverrides MergeOverrides(ParameterOverrides base, const ParameterOverrides& overrides) {
  for (const NumberParameter& number : kNumberParameters) {
    if (overrides.*number.field) base.*number.field = overrides.*number.field;
  }
  if (overrides.align.has_value()) base.align = overrides.align;
  if (overrides.scale.has_value()) base.scale = overrides.scale;
  if (overrides.resample_rate.has_value()) base.resampling.reset();
  if (overrides.resampling.has_value()) {
    base.resampling = overrides.resampling;
    if (!overrides.resample_rate.has_value()) base.resample_rate.reset();
  }
  if (!overrides.channels.empty()) base.channels = overrides.channels;
  if (overrides.window.has_value()) base.window = overrides.window;
  if (!overrides.channel_map.empty()) base.channel_map = overrides.channel_map;
  if (overrides.strict_units.has_value()) base.strict_units = overrides.strict_units;
  return base;
}

void ApplyOverrides(const ParameterOverrides& overrides, ValidationOptions& options) {
  for (const NumberParameter& number : kNumberParameters) {
    if (const std::optional<double>& value = overrides.*number.field) {
      number.write(options, *value);
    }
  }
  if (overrides.align.has_value()) options.prepare.align = *overrides.align;
  if (overrides.scale.has_value()) options.prepare.scale = *overrides.scale;
  if (overrides.resampling.has_value()) options.prepare.resampling = *overrides.resampling;
  if (!overrides.channels.empty()) options.prepare.channels = overrides.channels;
  if (overrides.window.has_value()) options.prepare.window = overrides.window;
  if (!overrides.channel_map.empty()) options.prepare.channel_map = overrides.channel_map;
  if (overrides.strict_units.has_value()) options.prepare.strict_units = *overrides.strict_units;
}

ParameterOverrides OverridesOf(const ValidationOptions& options) {
  ParameterOverrides overrides;
  for (const NumberParameter& number : kNumberParameters) {
    overrides.*number.field = number.read(options);
  }
  overrides.align = options.prepare.align;
  overrides.scale = options.prepare.scale;
  if (!options.prepare.resample_rate.has_value()) {
    overrides.resampling = options.prepare.resampling;
  }
  overrides.channels = options.prepare.channels;
  overrides.window = options.prepare.window;
  overrides.channel_map = options.prepare.channel_map;
  if (options.prepare.strict_units) overrides.strict_units = true;
  return overrides;
}

}  // namespace wasserwarp
