#include "wire/parameters.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "wasserwarp/field_error.h"
#include "wire/convert.h"
#include "wire/repeated_fields.h"

namespace wasserwarp::wire {
namespace {

// The optional numbers of ValidationParameters, their field of ParameterOverrides and where
// each lands in the core's options: the one table that every translation here reads.
struct NumberParameter {
  bool (v1::ValidationParameters::*has)() const;
  double (v1::ValidationParameters::*get)() const;
  void (v1::ValidationParameters::*set)(double);
  std::optional<double> ParameterOverrides::*field;
  // The core's value; null where the core leaves it unset.
  std::optional<double> (*read)(const ValidationOptions&);
  void (*write)(ValidationOptions&, double);
};

using P = v1::ValidationParameters;
const NumberParameter kNumberParameters[] = {
    {&P::has_nu, &P::nu, &P::set_nu, &ParameterOverrides::nu,
     [](const ValidationOptions& o) { return std::optional(o.twed.nu); },
     [](ValidationOptions& o, double x) { o.twed.nu = x; }},
    {&P::has_deletion_penalty, &P::deletion_penalty, &P::set_deletion_penalty,
     &ParameterOverrides::lambda,
     [](const ValidationOptions& o) { return std::optional(o.twed.lambda); },
     [](ValidationOptions& o, double x) { o.twed.lambda = x; }},
    {&P::has_p, &P::p, &P::set_p, &ParameterOverrides::p,
     [](const ValidationOptions& o) { return std::optional(o.twed.p); },
     [](ValidationOptions& o, double x) { o.twed.p = x; }},
    {&P::has_time_window, &P::time_window, &P::set_time_window, &ParameterOverrides::time_window,
     [](const ValidationOptions& o) { return o.twed.time_window; },
     [](ValidationOptions& o, double x) { o.twed.time_window = x; }},
    {&P::has_order, &P::order, &P::set_order, &ParameterOverrides::order,
     [](const ValidationOptions& o) { return std::optional(o.order); },
     [](ValidationOptions& o, double x) { o.order = x; }},
    {&P::has_resample_rate, &P::resample_rate, &P::set_resample_rate,
     &ParameterOverrides::resample_rate,
     [](const ValidationOptions& o) { return o.prepare.resample_rate; },
     [](ValidationOptions& o, double x) { o.prepare.resample_rate = x; }},
};

}  // namespace

void MergeParameters(const v1::ValidationParameters& overrides, v1::ValidationParameters& base) {
  for (const NumberParameter& number : kNumberParameters) {
    if ((overrides.*number.has)()) (base.*number.set)((overrides.*number.get)());
  }
  if (overrides.align() != v1::ALIGNMENT_UNSPECIFIED) base.set_align(overrides.align());
  if (overrides.scale() != v1::SCALING_UNSPECIFIED) base.set_scale(overrides.scale());
  // A rate and a resampling mode exclude each other: whichever the overrides give wins.
  if (overrides.has_resample_rate()) base.clear_resampling();
  if (overrides.resampling() != v1::RESAMPLING_UNSPECIFIED) {
    base.set_resampling(overrides.resampling());
    if (!overrides.has_resample_rate()) base.clear_resample_rate();
  }
  if (!overrides.channels().empty()) *base.mutable_channels() = overrides.channels();
}

absl::Status ApplyParameters(const v1::ValidationParameters& params, ValidationOptions& options) {
  absl::StatusOr<ParameterOverrides> overrides = OverridesFromProto(params);
  if (!overrides.ok()) return overrides.status();
  for (const NumberParameter& number : kNumberParameters) {
    if (const std::optional<double>& value = (*overrides).*number.field) {
      number.write(options, *value);
    }
  }
  if (overrides->align.has_value()) options.prepare.align = *overrides->align;
  if (overrides->scale.has_value()) options.prepare.scale = *overrides->scale;
  if (overrides->resampling.has_value()) options.prepare.resampling = *overrides->resampling;
  if (!overrides->channels.empty()) options.prepare.channels = std::move(overrides->channels);
  return absl::OkStatus();
}

v1::ValidationParameters ParametersOf(const ValidationOptions& options) {
  v1::ValidationParameters params;
  for (const NumberParameter& number : kNumberParameters) {
    if (const std::optional<double> value = number.read(options)) (params.*number.set)(*value);
  }
  params.set_align(ToProto(options.prepare.align));
  params.set_scale(ToProto(options.prepare.scale));
  if (!options.prepare.resample_rate.has_value()) {
    params.set_resampling(ToProto(options.prepare.resampling));
  }
  for (const std::string& channel : options.prepare.channels) params.add_channels(channel);
  return params;
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
  return params;
}

}  // namespace wasserwarp::wire
