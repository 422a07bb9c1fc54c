// oneTBB task arenas, lent out and taken back instead of made and destroyed.
//
// Each parallel step (a cost matrix, the pair diagnostics, a resampling loop)
// runs in an arena of its own, so that its max_threads holds however many steps
// run at once. Debian 12's oneTBB 2021.8 keeps about 7 KiB of every task_arena
// it destroys: a server that made one per step grew by about 1 MiB a second
// under `make load`. An idle arena costs no thread, so arenas are kept and lent
// to the next step with the same concurrency; there are never more of them than
// steps that ran at the same time.

#ifndef WASSERWARP_SRC_COMMON_ARENA_POOL_H_
#define WASSERWARP_SRC_COMMON_ARENA_POOL_H_

#include <memory>
#include <utility>

#include "tbb/task_arena.h"

namespace wasserwarp {

// An arena of `max_threads` threads (0 or less: every core), the borrower's
// alone until it goes out of scope.
class BorrowedArena {
 public:
  explicit BorrowedArena(int max_threads);
  ~BorrowedArena();

  BorrowedArena(const BorrowedArena&) = delete;
  BorrowedArena& operator=(const BorrowedArena&) = delete;

  // As tbb::task_arena::execute: runs `f` in the arena and returns what it returns.
  template <typename F>
  decltype(auto) execute(F&& f) {
    return arena_->execute(std::forward<F>(f));
  }

  tbb::task_arena& arena() { return *arena_; }

 private:
  int concurrency_;
  std::unique_ptr<tbb::task_arena> arena_;
};

}  // namespace wasserwarp

#endif  // WASSERWARP_SRC_COMMON_ARENA_POOL_H_
