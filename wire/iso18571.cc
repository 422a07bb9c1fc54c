#include "wire/iso18571.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include "absl/strings/str_cat.h"

namespace wasserwarp::wire {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// A score is unset on the wire where it is NaN in the core: a pair too short to rate.
template <typename Setter>
void SetDefined(double value, Setter set) {
  if (!std::isnan(value)) set(value);
}

void AverageToProto(const Iso18571Average& average, v1::Iso18571Average& out) {
  SetDefined(average.r, [&](double v) { out.set_r(v); });
  SetDefined(average.z, [&](double v) { out.set_z(v); });
  SetDefined(average.ep, [&](double v) { out.set_ep(v); });
  SetDefined(average.em, [&](double v) { out.set_em(v); });
  SetDefined(average.es, [&](double v) { out.set_es(v); });
  SetDefined(average.min_r, [&](double v) { out.set_min_r(v); });
}

Iso18571Average AverageFromProto(const v1::Iso18571Average& in) {
  return {.r = in.has_r() ? in.r() : kNaN,
          .z = in.has_z() ? in.z() : kNaN,
          .ep = in.has_ep() ? in.ep() : kNaN,
          .em = in.has_em() ? in.em() : kNaN,
          .es = in.has_es() ? in.es() : kNaN,
          .min_r = in.has_min_r() ? in.min_r() : kNaN};
}

}  // namespace

void Iso18571ToProto(const ValidationReport& report, v1::ValidationReport& proto) {
  for (const PairIso18571& pair : report.iso18571) {
    v1::PairIso18571* out = proto.add_iso18571();
    const Iso18571Rating& rating = pair.rating;
    out->set_sim(pair.sim);
    out->set_ref(pair.ref);
    out->set_channel(pair.channel);
    out->set_samples(static_cast<int64_t>(rating.samples));
    if (std::isnan(rating.r)) continue;
    out->set_r(rating.r);
    out->set_z(rating.z);
    out->set_ep(rating.ep);
    out->set_em(rating.em);
    out->set_es(rating.es);
    out->set_shift_samples(rating.shift_samples);
    out->set_shift_seconds(rating.shift_seconds);
    out->set_grade(std::string(Iso18571Grade(rating.r)));
  }
  for (const Iso18571Average& average : report.iso18571_average) {
    AverageToProto(average, *proto.add_iso18571_average());
  }
  for (const std::string& warning : report.iso18571_warnings) {
    proto.add_iso18571_warnings(warning);
  }
}

absl::Status Iso18571FromProto(const v1::ValidationReport& proto, ValidationReport& report) {
  const int channels = proto.parameters().channels_size();
  for (const v1::PairIso18571& pair : proto.iso18571()) {
    if (pair.sim() < 0 || pair.sim() >= proto.simulation_size() || pair.ref() < 0 ||
        pair.ref() >= proto.reference_size() || pair.channel() < 0 || pair.channel() >= channels) {
      return absl::InvalidArgumentError(absl::StrCat("report ISO/TS 18571 rating names run pair (",
                                                     pair.sim(), ", ", pair.ref(), ") channel ",
                                                     pair.channel()));
    }
    Iso18571Rating rating{.samples = static_cast<uint64_t>(std::max<int64_t>(0, pair.samples())),
                          .r = pair.has_r() ? pair.r() : kNaN,
                          .z = pair.has_z() ? pair.z() : kNaN,
                          .ep = pair.has_ep() ? pair.ep() : kNaN,
                          .em = pair.has_em() ? pair.em() : kNaN,
                          .es = pair.has_es() ? pair.es() : kNaN,
                          .shift_samples = pair.shift_samples(),
                          .shift_seconds = pair.has_shift_seconds() ? pair.shift_seconds() : kNaN};
    report.iso18571.push_back({pair.sim(), pair.ref(), pair.channel(), rating});
  }
  if (proto.iso18571_average_size() != 0 && proto.iso18571_average_size() != channels) {
    return absl::InvalidArgumentError(absl::StrCat("report has ", proto.iso18571_average_size(),
                                                   " ISO/TS 18571 averages for ", channels,
                                                   " channels"));
  }
  for (const v1::Iso18571Average& average : proto.iso18571_average()) {
    report.iso18571_average.push_back(AverageFromProto(average));
  }
  report.iso18571_warnings.assign(proto.iso18571_warnings().begin(),
                                  proto.iso18571_warnings().end());
  return absl::OkStatus();
}

}  // namespace wasserwarp::wire
