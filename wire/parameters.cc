#include "wire/parameters.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "wasserwarp/field_error.h"
#include "wire/channel_units.h"
#include "wire/convert.h"
#include "wire/event_window.h"
#include "wire/repeated_fields.h"

namespace wasserwarp::wire {
namespace {

// The optional numbers of ValidationParameters and their field of ParameterOverrides: the one
// table that both directions read.
struct NumberParameter {
  bool (v1::ValidationParameters::*has)() const;
  double (v1::ValidationParameters::*get)() const;
  void (v1::ValidationParameters::*set)(double);
  std::optional<double> ParameterOverrides::*field;
};

using P = v1::ValidationParameters;
const NumberParameter kNumberParameters[] = {
    {&P::has_nu, &P::nu, &P::set_nu, &ParameterOverrides::nu},
    {&P::has_deletion_penalty, &P::deletion_penalty, &P::set_deletion_penalty,
     &ParameterOverrides::lambda},
    {&P::has_p, &P::p, &P::set_p, &ParameterOverrides::p},
    {&P::has_time_window, &P::time_window, &P::set_time_window, &ParameterOverrides::time_window},
    {&P::has_order, &P::order, &P::set_order, &ParameterOverrides::order},
    {&P::has_resample_rate, &P::resample_rate, &P::set_resample_rate,
     &ParameterOverrides::resample_rate},
};

}  // namespace

absl::Status ApplyParameters(const v1::ValidationParameters& params, ValidationOptions& options) {
  absl::StatusOr<ParameterOverrides> overrides = OverridesFromProto(params);
  if (!overrides.ok()) return overrides.status();
  ApplyOverrides(*overrides, options);
  return absl::OkStatus();
}

v1::ValidationParameters ParametersOf(const ValidationOptions& options) {
  return ToProto(OverridesOf(options));
}

absl::StatusOr<ParameterOverrides> OverridesFromProto(const v1::ValidationParameters& params) {
  ParameterOverrides overrides;
  for (const NumberParameter& number : kNumberParameters) {
    if ((params.*number.has)()) overrides.*number.field = (params.*number.get)();
  }
  switch (params.align()) {
    case v1::ALIGNMENT_UNSPECIFIED:
      break;
    case v1::ALIGNMENT_NONE:
      overrides.align = Align::kNone;
      break;
    case v1::ALIGNMENT_START:
      overrides.align = Align::kStart;
      break;
    default:
      return InvalidFieldError("align", absl::StrCat("unknown value ", params.align()));
  }
  switch (params.scale()) {
    case v1::SCALING_UNSPECIFIED:
      break;
    case v1::SCALING_NONE:
      overrides.scale = Scale::kNone;
      break;
    case v1::SCALING_REFERENCE_STD:
      overrides.scale = Scale::kReferenceStd;
      break;
    default:
      return InvalidFieldError("scale", absl::StrCat("unknown value ", params.scale()));
  }
  switch (params.resampling()) {
    case v1::RESAMPLING_UNSPECIFIED:
      break;
    case v1::RESAMPLING_AUTO:
      overrides.resampling = Resampling::kAuto;
      break;
    case v1::RESAMPLING_NONE:
      overrides.resampling = Resampling::kNone;
      break;
    default:
      return InvalidFieldError("resampling", absl::StrCat("unknown value ", params.resampling()));
  }
  if (overrides.resampling.has_value() && overrides.resample_rate.has_value()) {
    return InvalidFieldError(
        "resampling",
        absl::StrCat(std::string(ResamplingName(*overrides.resampling)),
                     " contradicts resample_rate ", *overrides.resample_rate, "; set one of them"));
  }
  overrides.channels = ToVector(params.channels());
  if (params.has_window()) {
    absl::StatusOr<EventWindow> window = FromProto(params.window());
    if (!window.ok()) return window.status();
    overrides.window = *std::move(window);
  }
  for (const v1::ChannelMapping& mapping : params.channel_map()) {
    overrides.channel_map.push_back(FromProto(mapping));
  }
  if (params.has_strict_units()) overrides.strict_units = params.strict_units();
  return overrides;
}

v1::ValidationParameters ToProto(const ParameterOverrides& overrides) {
  v1::ValidationParameters params;
  for (const NumberParameter& number : kNumberParameters) {
    if (const std::optional<double>& value = overrides.*number.field) (params.*number.set)(*value);
  }
  if (overrides.align.has_value()) params.set_align(ToProto(*overrides.align));
  if (overrides.scale.has_value()) params.set_scale(ToProto(*overrides.scale));
  if (overrides.resampling.has_value()) params.set_resampling(ToProto(*overrides.resampling));
  for (const std::string& channel : overrides.channels) params.add_channels(channel);
  if (overrides.window.has_value()) ToProto(*overrides.window, *params.mutable_window());
  for (const ChannelMapping& mapping : overrides.channel_map) {
    *params.add_channel_map() = ToProto(mapping);
  }
  if (overrides.strict_units.has_value()) params.set_strict_units(*overrides.strict_units);
  return params;
}

}  // namespace wasserwarp::wire
