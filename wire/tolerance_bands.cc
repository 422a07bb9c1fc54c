#include "wire/tolerance_bands.h"

#include <cmath>
#include <limits>

#include "absl/strings/str_cat.h"

namespace wasserwarp::wire {

void BandsToProto(const ValidationReport& report, v1::ValidationReport& proto) {
  for (const ToleranceBand& band : report.tolerance_bands) {
    v1::ToleranceBand* out = proto.add_tolerance_bands();
    out->set_channel(band.channel);
    out->set_abs(band.abs);
    out->set_rel(band.rel);
    out->set_lead(band.lead);
    out->set_lag(band.lag);
  }
  for (const PairBand& pair : report.bands) {
    v1::PairBand* out = proto.add_bands();
    out->set_sim(pair.sim);
    out->set_ref(pair.ref);
    out->set_band(pair.band);
    out->set_samples(static_cast<int64_t>(pair.score.samples));
    // NaN without samples: the wire leaves both unset.
    if (!std::isnan(pair.score.inside)) out->set_inside(pair.score.inside);
    if (!std::isnan(pair.score.max_excursion)) out->set_max_excursion(pair.score.max_excursion);
    if (pair.score.first_violation.has_value()) {
      out->set_first_violation(*pair.score.first_violation);
    }
  }
}

absl::Status BandsFromProto(const v1::ValidationReport& proto, ValidationReport& report) {
  for (const v1::ToleranceBand& band : proto.tolerance_bands()) {
    report.tolerance_bands.push_back({.channel = band.channel(),
                                      .abs = band.abs(),
                                      .rel = band.rel(),
                                      .lead = band.lead(),
                                      .lag = band.lag()});
  }
  constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
  for (const v1::PairBand& pair : proto.bands()) {
    if (pair.sim() < 0 || pair.sim() >= proto.simulation_size() || pair.ref() < 0 ||
        pair.ref() >= proto.reference_size() || pair.band() < 0 ||
        pair.band() >= proto.tolerance_bands_size()) {
      return absl::InvalidArgumentError(absl::StrCat("report band names run pair (", pair.sim(),
                                                     ", ", pair.ref(), ") band ", pair.band()));
    }
    BandScore score{.samples = static_cast<uint64_t>(pair.samples()),
                    .inside = pair.has_inside() ? pair.inside() : kNaN,
                    .max_excursion = pair.has_max_excursion() ? pair.max_excursion() : kNaN,
                    .first_violation = {}};
    if (pair.has_first_violation()) score.first_violation = pair.first_violation();
    report.bands.push_back({pair.sim(), pair.ref(), pair.band(), score});
  }
  return absl::OkStatus();
}

}  // namespace wasserwarp::wire
