// BorrowedArena lends each borrower an arena of its own with the concurrency
// it asked for, and lends the same arenas again instead of making new ones
// (arena_pool.h says why).

#include "common/arena_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <set>
#include <thread>
#include <vector>

#include "tbb/parallel_for.h"
#include "tbb/task_arena.h"

namespace wasserwarp {
namespace {

TEST(ArenaPoolTest, ArenasHaveTheConcurrencyAskedFor) {
  BorrowedArena one(1);
  BorrowedArena three(3);
  BorrowedArena every_core(0);
  EXPECT_EQ(one.arena().max_concurrency(), 1);
  EXPECT_EQ(three.arena().max_concurrency(), 3);
  EXPECT_EQ(every_core.arena().max_concurrency(), tbb::this_task_arena::max_concurrency());
}

TEST(ArenaPoolTest, BorrowersAtTheSameTimeGetDifferentArenas) {
  BorrowedArena first(2);
  BorrowedArena second(2);
  EXPECT_NE(&first.arena(), &second.arena());
}

TEST(ArenaPoolTest, AReturnedArenaIsLentAgain) {
  tbb::task_arena* lent = nullptr;
  {
    BorrowedArena arena(2);
    lent = &arena.arena();
  }
  BorrowedArena again(2);
  EXPECT_EQ(&again.arena(), lent);
}

TEST(ArenaPoolTest, ManyStepsFromManyThreadsUseNoMoreArenasThanRanAtOnce) {
  constexpr int kThreads = 4;
  constexpr int kStepsPerThread = 500;
  std::vector<std::set<tbb::task_arena*>> seen(kThreads);
  std::atomic<int> sum = 0;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int step = 0; step < kStepsPerThread; ++step) {
        BorrowedArena arena(2);
        seen[t].insert(&arena.arena());
        arena.execute([&] { tbb::parallel_for(0, 8, [&](int i) { sum += i; }); });
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  std::set<tbb::task_arena*> all;
  for (const std::set<tbb::task_arena*>& arenas : seen) all.insert(arenas.begin(), arenas.end());
  EXPECT_LE(all.size(), static_cast<size_t>(kThreads));
  EXPECT_EQ(sum, kThreads * kStepsPerThread * 28);
}

}  // namespace
}  // namespace wasserwarp
