// Tolerance bands with time tolerance around a reference run (the absolute, relative, leading
// and lagging tolerances of Simulink Test), and how much of a matched simulated run lies inside.
#ifndef WASSERWARP_TOLERANCE_BAND_H_
#define WASSERWARP_TOLERANCE_BAND_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "wasserwarp/series.h"
#include "wasserwarp/transport.h"

namespace wasserwarp {

struct ToleranceBand {
  std::string channel;
  double abs = 0.0;   // channel units
  double rel = 0.0;   // times |reference value|
  double lead = 0.0;  // seconds the window reaches past t_k
  double lag = 0.0;   // seconds the window reaches before t_k
};

// "CHANNEL:abs=A,rel=R,lead=S,lag=S" (the channel is everything before the last ':'; any of
// the four terms may be left out for 0, none twice). The values are checked by
// ValidateToleranceBands, not here.
absl::StatusOr<ToleranceBand> ParseToleranceBand(std::string_view spec);
// The spec ParseToleranceBand reads back into `band`.
std::string ToleranceBandSpec(const ToleranceBand& band);

// InvalidArgument about field "bands" unless every term is finite and >= 0 and no channel has
// two bands.
absl::Status ValidateToleranceBands(const std::vector<ToleranceBand>& bands);

// Per reference sample t_k, [min - tol, max + tol] with min and max those of the reference
// over [t_k - lag, t_k + lead] (its samples inside and its linearly interpolated values at
// the window's ends, the window cut to the run's time range) and tol = max(abs, rel |y_k|).
// `times` increasing, `values` as many. O(n): both window ends only move forward.
struct BandEnvelope {
  std::vector<double> lower;
  std::vector<double> upper;
};
BandEnvelope ToleranceEnvelope(const std::vector<double>& times, const std::vector<double>& values,
                               const ToleranceBand& band);

// The simulated run, linearly interpolated at the reference's samples in the range both cover,
// against the band. NaN and no violation where they share no time.
struct BandScore {
  uint64_t samples = 0;
  double inside = 0.0;                    // share of the samples inside the band (bounds included)
  double max_excursion = 0.0;             // largest distance outside the band, channel units
  std::optional<double> first_violation;  // time of the first sample outside
};

// Channel `channel` of both runs, times `divisor` into the channel's units.
BandScore ScoreToleranceBand(const Series& sim, const Series& ref, size_t channel, double divisor,
                             const ToleranceBand& band);

// One band on one pair of the plan; `band` indexes the validation's bands.
struct PairBand {
  int sim = 0;
  int ref = 0;
  int band = 0;
  BandScore score;
};

// The smallest `inside` over `pairs` (NaN, a pair that shares no time, counts as 0); 1 when
// there are none.
double WorstBandInside(const std::vector<PairBand>& pairs);

}  // namespace wasserwarp

#endif  // WASSERWARP_TOLERANCE_BAND_H_
