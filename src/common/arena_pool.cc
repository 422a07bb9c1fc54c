#include "common/arena_pool.h"

#include <map>
#include <memory>
#include <utility>
#include <vector>

#include "absl/synchronization/mutex.h"

namespace wasserwarp {
namespace {

class ArenaPool {
 public:
  std::unique_ptr<tbb::task_arena> Take(int concurrency) {
    {
      absl::MutexLock lock(&mu_);
      std::vector<std::unique_ptr<tbb::task_arena>>& idle = idle_[concurrency];
      if (!idle.empty()) {
        std::unique_ptr<tbb::task_arena> arena = std::move(idle.back());
        idle.pop_back();
        return arena;
      }
    }
    return std::make_unique<tbb::task_arena>(concurrency);
  }

  void Give(int concurrency, std::unique_ptr<tbb::task_arena> arena) {
    absl::MutexLock lock(&mu_);
    idle_[concurrency].push_back(std::move(arena));
  }

 private:
  absl::Mutex mu_;
  std::map<int, std::vector<std::unique_ptr<tbb::task_arena>>> idle_ ABSL_GUARDED_BY(mu_);
};

// Never destroyed: oneTBB may already be shutting down when static
// destructors run.
ArenaPool& Pool() {
  static ArenaPool* const pool = new ArenaPool;
  return *pool;
}

}  // namespace

BorrowedArena::BorrowedArena(int max_threads)
    : concurrency_(max_threads > 0 ? max_threads : tbb::task_arena::automatic),
      arena_(Pool().Take(concurrency_)) {}

BorrowedArena::~BorrowedArena() { Pool().Give(concurrency_, std::move(arena_)); }

}  // namespace wasserwarp
