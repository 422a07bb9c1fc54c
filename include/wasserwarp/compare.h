// Two model variants against the same reference runs: which is closer, by
// how much, and how sure that is.
#ifndef WASSERWARP_COMPARE_H_
#define WASSERWARP_COMPARE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "wasserwarp/cost_matrix.h"
#include "wasserwarp/prepare.h"
#include "wasserwarp/report.h"
#include "wasserwarp/series.h"
#include "wasserwarp/twed.h"

namespace wasserwarp {

struct CompareOptions {
  PrepareOptions prepare;  // reference-std scaling uses the references, so A and B share it
  TwedParams twed;
  double order = 1.0;
  int resamples = 999;
  double confidence = 0.95;  // of the interval for W_a - W_b
  uint64_t seed = 1;
  CostMatrixOptions compute;
  // Rate each variant's plan pairs by ISO/TS 18571, as `validate --iso18571` of that variant
  // rates them (CompareVariants only: CompareCostMatrices has no runs to rate).
  bool iso18571 = false;
};

// Beyond this many resamples the interval's endpoints no longer move; the cap
// keeps a typo from occupying a server for hours.
inline constexpr int kMaxResamples = 1000000;

// Ok when the TWED parameters are valid, q >= 1, 1 <= resamples <=
// kMaxResamples and confidence is in (0, 1): the checks made before any cost
// is computed. InvalidArgument naming the field otherwise.
absl::Status ValidateCompareOptions(const CompareOptions& options);

// Both variants prepared against the references: on the channels of A's first
// run unless `prepare` names them, so that B is compared on exactly A's.
// `b.reference` equals `a.reference`: scaling depends on the references only.
struct PreparedVariants {
  PreparedRuns a;
  PreparedRuns b;
};

// PrepareRuns for each variant; InvalidArgument naming the variant (and the
// run and channel, as PrepareRuns does) for an empty set or a missing channel.
absl::StatusOr<PreparedVariants> PrepareVariants(const std::vector<Series>& simulation_a,
                                                 const std::vector<Series>& simulation_b,
                                                 const std::vector<Series>& reference,
                                                 const PrepareOptions& prepare);

// W_q(A, ref), W_q(B, ref) with uniform weights, and a percentile bootstrap
// interval for their difference: each resample draws the references with
// replacement (shared by both variants) and the runs of each variant (the
// same indices for both when paired), as integer weights on the cost
// matrices computed once. Deterministic for a seed, whatever the threads.
absl::StatusOr<ComparisonReport> CompareVariants(const std::vector<Series>& simulation_a,
                                                 const std::vector<Series>& simulation_b,
                                                 const std::vector<Series>& reference,
                                                 const CompareOptions& options);

// The resampling part of CompareVariants on cost matrices computed elsewhere
// (by a server): `a_ref` is runs of A x references, `b_ref` runs of B x the
// same references in the same order; `ids_a`, `ids_b` name the rows and decide
// the pairing. Uses order, resamples, confidence, seed, and compute's
// max_threads and cancel; dp_cells stays 0 and seconds counts this call only.
absl::StatusOr<ComparisonReport> CompareCostMatrices(const CostMatrix& a_ref,
                                                     const CostMatrix& b_ref,
                                                     const std::vector<std::string>& ids_a,
                                                     const std::vector<std::string>& ids_b,
                                                     const CompareOptions& options);

}  // namespace wasserwarp

#endif  // WASSERWARP_COMPARE_H_
