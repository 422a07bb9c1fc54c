// What a validation reports of each pair of its transport plan: the edit path's diagnostics and
// the classic rigid metrics.

#ifndef WASSERWARP_SRC_PIPELINE_VALIDATION_PAIRS_H_
#define WASSERWARP_SRC_PIPELINE_VALIDATION_PAIRS_H_

#include <vector>

#include "absl/status/statusor.h"
#include "wasserwarp/cost_matrix.h"
#include "wasserwarp/pair_metrics.h"
#include "wasserwarp/prepare.h"
#include "wasserwarp/report.h"
#include "wasserwarp/transport.h"
#include "wasserwarp/twed.h"

namespace wasserwarp {

// The edit-path diagnostics of every pair in the plan (row-major, as pairs of the matrix), on
// SIMD lanes of pairs that share no run where the kernels allow; a plan has at most n + m - 1
// pairs, so this costs a small fraction of the cost matrix.
absl::StatusOr<std::vector<PairDiagnostics>> DiagnosePairs(const PreparedRuns& runs,
                                                           const std::vector<PlanEntry>& plan,
                                                           const TwedParams& params,
                                                           const CostMatrixOptions& compute);

// The classic metrics of every pair in the plan (plan order, then channel order), in the
// channels' own units.
std::vector<PairMetrics> MeasurePairs(const PreparedRuns& runs, const std::vector<PlanEntry>& plan,
                                      const CostMatrixOptions& compute);

}  // namespace wasserwarp

#endif  // WASSERWARP_SRC_PIPELINE_VALIDATION_PAIRS_H_
