// A validation's tolerance bands (tolerance_band.h): each band's channel among the prepared
// runs', every band scored on every plan pair, and the band_min_inside rule.

#ifndef WASSERWARP_SRC_PIPELINE_VALIDATION_BANDS_H_
#define WASSERWARP_SRC_PIPELINE_VALIDATION_BANDS_H_

#include <cstddef>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "wasserwarp/cost_matrix.h"
#include "wasserwarp/prepare.h"
#include "wasserwarp/tolerance_band.h"
#include "wasserwarp/transport.h"
#include "wasserwarp/verdict.h"

namespace wasserwarp {

// Each band's channel among the prepared runs' channels; InvalidArgument about field "bands"
// for a channel they do not have.
absl::StatusOr<std::vector<size_t>> BandChannels(const std::vector<ToleranceBand>& bands,
                                                 const std::vector<std::string>& channels);

// Every band on every pair in the plan (plan order, then band order), in the channels' own
// units; `band_channels` as BandChannels gives them.
std::vector<PairBand> ScoreBands(const PreparedRuns& runs, const std::vector<PlanEntry>& plan,
                                 const std::vector<ToleranceBand>& bands,
                                 const std::vector<size_t>& band_channels,
                                 const CostMatrixOptions& compute);

// band_min_inside judged on the smallest share inside over the scored pairs.
VerdictRule BandRule(const std::vector<PairBand>& bands, double min_inside);

}  // namespace wasserwarp

#endif  // WASSERWARP_SRC_PIPELINE_VALIDATION_BANDS_H_
