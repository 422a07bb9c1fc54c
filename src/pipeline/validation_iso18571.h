// A validation's ISO/TS 18571 part: every plan pair rated per channel, the plan-weighted
// averages, what a reader must know of the pairs left unrated, and the min_iso_rating rule.

#ifndef WASSERWARP_SRC_PIPELINE_VALIDATION_ISO18571_H_
#define WASSERWARP_SRC_PIPELINE_VALIDATION_ISO18571_H_

#include <string>
#include <vector>

#include "wasserwarp/iso18571.h"
#include "wasserwarp/prepare.h"
#include "wasserwarp/transport.h"
#include "wasserwarp/verdict.h"

namespace wasserwarp {

struct PlanIso18571 {
  std::vector<PairIso18571> pairs;        // plan order, then channel order
  std::vector<Iso18571Average> averages;  // one per channel
  std::vector<std::string> warnings;      // one per channel with pairs too short to rate
};

// `runs` as prepared (aligned; scaled runs are rated in the channels' units), on at most
// `max_threads` threads (0: every core).
PlanIso18571 RatePlanPairs(const PreparedRuns& runs, const std::vector<PlanEntry>& plan,
                           int max_threads);

// min_iso_rating judged on the lowest of the channels' mean ratings (NaN, and so a FAIL,
// when a channel has no rated pair).
VerdictRule MinIsoRatingRule(const std::vector<Iso18571Average>& averages, double threshold);

}  // namespace wasserwarp

#endif  // WASSERWARP_SRC_PIPELINE_VALIDATION_ISO18571_H_
