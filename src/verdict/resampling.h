// The resamples of the verdict and of compare run on a oneTBB arena: each
// resample writes its own slot, so results are reduced in index order whatever
// the thread count, with one rate-limited progress stream and cancellation
// between resamples.

#ifndef WASSERWARP_SRC_VERDICT_RESAMPLING_H_
#define WASSERWARP_SRC_VERDICT_RESAMPLING_H_

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "common/arena_pool.h"
#include "common/progress_throttle.h"
#include "wasserwarp/verdict.h"

namespace wasserwarp::resampling {

class ResampleLoop {
 public:
  // `total_solves`: the transport solves of every Run to come, for progress.
  ResampleLoop(const VerdictContext& context, uint64_t total_solves);

  // body(k) for every k in [0, count), in parallel; each call counts as
  // `solves_per_item` solves done. Cancelled when the token is set (checked
  // before each k); otherwise the error of the lowest failing k.
  absl::Status Run(size_t count, uint64_t solves_per_item,
                   absl::FunctionRef<absl::Status(size_t)> body);

  // The last progress report, with every solve done.
  void Finish();

 private:
  void SolvesDone(uint64_t solves);
  void Report();

  const VerdictContext& context_;
  ProgressThrottle throttle_;
  const uint64_t total_;
  BorrowedArena arena_;
  std::atomic<uint64_t> done_{0};
};

}  // namespace wasserwarp::resampling

#endif  // WASSERWARP_SRC_VERDICT_RESAMPLING_H_
