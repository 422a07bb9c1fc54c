// The unary calls' own threads: work waits in a bounded queue, the next is refused naming the
// flag, and what was queued still runs when the pool is destroyed.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <memory>

#include "absl/synchronization/notification.h"
#include "rpc/call_pool.h"
#include "wasserwarp/field_error.h"

namespace wasserwarp::service {
namespace {

using ::testing::HasSubstr;

TEST(CallPoolTest, AFullQueueRefusesTheNextCallNamingTheFlag) {
  absl::Notification release;
  absl::Notification started;
  std::atomic<int> ran = 0;
  {
    CallPool pool(/*threads=*/1, /*max_queued=*/2);
    ASSERT_TRUE(pool.Post([&] {
                      started.Notify();
                      release.WaitForNotification();
                      ++ran;
                    })
                    .ok());
    started.WaitForNotification();
    ASSERT_TRUE(pool.Post([&] { ++ran; }).ok());
    ASSERT_TRUE(pool.Post([&] { ++ran; }).ok());
    const absl::Status refused = pool.Post([&] { ran += 100; });
    EXPECT_TRUE(absl::IsResourceExhausted(refused)) << refused;
    EXPECT_THAT(refused.message(), HasSubstr("--max_queued_calls=2"));
    EXPECT_EQ(ErrorLimit(refused), "--max_queued_calls");
    release.Notify();
  }
  EXPECT_EQ(ran, 3);
}

TEST(CallPoolTest, ThreadsWorkSideBySide) {
  // Two pieces of work that each wait for the other end only when two threads run them.
  absl::Notification first;
  absl::Notification second;
  {
    CallPool pool(/*threads=*/2, /*max_queued=*/8);
    ASSERT_TRUE(pool.Post([&] {
                      first.Notify();
                      second.WaitForNotification();
                    })
                    .ok());
    ASSERT_TRUE(pool.Post([&] {
                      second.Notify();
                      first.WaitForNotification();
                    })
                    .ok());
  }
  EXPECT_TRUE(first.HasBeenNotified());
  EXPECT_TRUE(second.HasBeenNotified());
}

}  // namespace
}  // namespace wasserwarp::service
