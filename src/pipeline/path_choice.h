// Which way the simulation x reference transport is solved (issue 41): lazily, computing only
// the TWEDs that can matter but solving the transport once per round, or exhaustively, every
// TWED and one solve. The lazy rounds pay where the TWEDs they leave out cost more than the
// solves they add: on long runs (a pair's DP has millions of cells) by far, on runs of a few
// samples (a pair's DP has a few cells, a solve of 2000 x 2000 costs a second) not at all.
// The choice is made from the sizes alone, so the same inputs take the same path on every run.

#ifndef WASSERWARP_SRC_PIPELINE_PATH_CHOICE_H_
#define WASSERWARP_SRC_PIPELINE_PATH_CHOICE_H_

#include <vector>

#include "wasserwarp/series.h"
#include "wasserwarp/transport.h"

namespace wasserwarp {

// How many transport solves the lazy rounds on `rows` x `cols` may spend before they give up
// and compute every pair: those that cost at most a tenth of the exhaustive path's estimate, so
// that giving up costs at most about a tenth more than computing every pair at once.
int LazyRoundBudget(const std::vector<Series>& rows, const std::vector<Series>& cols,
                    const TransportOptions& transport);

// Whether the lazy rounds are worth starting: their budget covers twice the few solves (the seed,
// the 16-bit and single-precision bounds, the last) that even a run that prunes well needs.
bool LazyPathPays(const std::vector<Series>& rows, const std::vector<Series>& cols,
                  const TransportOptions& transport);

}  // namespace wasserwarp

#endif  // WASSERWARP_SRC_PIPELINE_PATH_CHOICE_H_
