// Work on every entry of a transport plan in parallel: the pair diagnostics, metrics and
// ratings are each independent per matched pair.

#ifndef WASSERWARP_SRC_PIPELINE_PLAN_PARALLEL_H_
#define WASSERWARP_SRC_PIPELINE_PLAN_PARALLEL_H_

#include <cstddef>
#include <vector>

#include "common/arena_pool.h"
#include "tbb/blocked_range.h"
#include "tbb/parallel_for.h"
#include "wasserwarp/transport.h"

namespace wasserwarp {

// Calls `visit(k)` for every plan entry k, in parallel on at most `max_threads` threads.
template <typename Visit>
void ForEachPlanEntry(const std::vector<PlanEntry>& plan, int max_threads, const Visit& visit) {
  BorrowedArena arena(max_threads);
  arena.execute([&] {
    tbb::parallel_for(tbb::blocked_range<size_t>(0, plan.size(), 1),
                      [&](const tbb::blocked_range<size_t>& range) {
                        for (size_t k = range.begin(); k < range.end(); ++k) visit(k);
                      });
  });
}

}  // namespace wasserwarp

#endif  // WASSERWARP_SRC_PIPELINE_PLAN_PARALLEL_H_
