// ReturnFreeHeapMemory gives back what threads freed but malloc kept. The
// check needs glibc's allocator: under a sanitizer, malloc is the
// sanitizer's, and the test only checks that the call is harmless.

#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "ops/heap_trim.h"
#include "sanitized.h"

namespace wasserwarp::service {
namespace {

using test_support::kSanitized;

// Anonymous resident memory of this process in bytes, from /proc.
int64_t AnonymousResidentBytes() {
  std::ifstream status("/proc/self/status");
  std::string key;
  while (status >> key) {
    if (key == "RssAnon:") {
      int64_t kib = 0;
      status >> kib;
      return kib * 1024;
    }
  }
  return -1;
}

TEST(HeapTrimTest, ReturnsWhatThreadsFreedBehindALiveBlock) {
  constexpr int kThreads = 4;
  constexpr int64_t kBytesPerThread = int64_t{32} << 20;
  constexpr size_t kBlock = 1024;
  // Each thread fills its arena with small blocks, keeps the last one, which
  // stops malloc from trimming the arena's top by itself, and frees the rest.
  std::vector<std::unique_ptr<char[]>> kept(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&kept, t] {
      std::vector<std::unique_ptr<char[]>> blocks;
      for (int64_t bytes = 0; bytes < kBytesPerThread; bytes += kBlock) {
        blocks.push_back(std::make_unique<char[]>(kBlock));
        blocks.back()[0] = 1;
      }
      kept[t] = std::move(blocks.back());
      blocks.pop_back();
    });
  }
  for (std::thread& thread : threads) thread.join();
  const int64_t before = AnonymousResidentBytes();
  ASSERT_GT(before, 0);

  const bool returned = ReturnFreeHeapMemory();
  const int64_t after = AnonymousResidentBytes();
  if (kSanitized) GTEST_SKIP() << "malloc is the sanitizer's; the call returned " << returned;
  EXPECT_TRUE(returned);
  // Nearly all of the 128 MiB the threads freed.
  EXPECT_LT(after, before - kThreads * kBytesPerThread / 2) << before << " -> " << after;
}

TEST(HeapTrimTest, NothingToReturnIsFine) {
  ReturnFreeHeapMemory();
  ReturnFreeHeapMemory();
}

}  // namespace
}  // namespace wasserwarp::service
