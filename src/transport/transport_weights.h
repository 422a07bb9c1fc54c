// The weights of a transport problem as the solvers take them: normalised, and rounded to
// integer supplies and demands of one total for the network simplex and the corner rule, with
// how far that rounding moved them.

#ifndef WASSERWARP_SRC_TRANSPORT_TRANSPORT_WEIGHTS_H_
#define WASSERWARP_SRC_TRANSPORT_TRANSPORT_WEIGHTS_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace wasserwarp::transport_weights {

// A side's requested weights: uniform (empty or all equal, transported
// exactly), or normalised to sum to 1.
struct SideWeights {
  bool uniform = true;
  std::vector<double> normalised;
};

// `weights` of `count` entries (empty: uniform) checked and normalised; errors name the field
// `name` and the entry, and count the matrix's `unit` ("rows", "columns").
absl::StatusOr<SideWeights> NormaliseWeights(absl::string_view name,
                                             const std::vector<double>& weights, size_t count,
                                             absl::string_view unit);

// Integer supplies and demands standing in for the weights, and how far their rounding moved
// the weights.
struct IntegerSides {
  std::vector<int64_t> supply;
  std::vector<int64_t> demand;
  int64_t total = 0;
  double variation = 0.0;  // TV(requested, transported), rows and columns added
};

// Exact for uniform sides (a total divisible by n and m); otherwise each weight moves by less
// than 1 / total, total near 2^50.
absl::StatusOr<IntegerSides> ToIntegerSides(const SideWeights& rows, size_t n,
                                            const SideWeights& cols, size_t m);

}  // namespace wasserwarp::transport_weights

#endif  // WASSERWARP_SRC_TRANSPORT_TRANSPORT_WEIGHTS_H_
