// The stable JSON form of a comparison of two model variants (snake_case
// keys), written by `wasserwarp compare --json`.

#ifndef WASSERWARP_COMPARISON_JSON_H_
#define WASSERWARP_COMPARISON_JSON_H_

#include <string>

#include "wasserwarp/report.h"

namespace wasserwarp {

// {"distance_a", "distance_b", "difference", "interval": [lo, hi], "interval_method": "bca",
// "bias_correction" (z0), "acceleration" (a), "paired",
// "variance_gain" (null when not paired, or infinite), "resamples",
// "confidence", "seed", "runs": {"a", "b", "ref"}, "dp_cells", "seconds"}.
// Numbers round-trip exactly.
std::string ComparisonToJson(const ComparisonReport& report, int indent = 2);

}  // namespace wasserwarp

#endif  // WASSERWARP_COMPARISON_JSON_H_
