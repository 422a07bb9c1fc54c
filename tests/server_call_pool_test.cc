// The calls' own threads: work waits in a bounded queue, the next is refused naming the flag
// (but not a stream's next step), and what was queued still runs when the pool is destroyed; a
// call's log line counts the time it waited for a thread.

#include <gmock/gmock.h>
#include <grpcpp/server_context.h>
#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <regex>
#include <sstream>
#include <string>

#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "rpc/call_pool.h"
#include "rpc/logged_call.h"
#include "spdlog/sinks/ostream_sink.h"
#include "spdlog/spdlog.h"
#include "wasserwarp/field_error.h"

namespace wasserwarp::service {
namespace {

using ::testing::HasSubstr;

TEST(CallPoolTest, AFullQueueRefusesTheNextCallNamingTheFlagButNotAStreamsNextStep) {
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
    // A stream admitted earlier is not ended by a burst of calls: its next step waits its turn.
    pool.PostNextStep([&] { ++ran; });
    release.Notify();
  }
  EXPECT_EQ(ran, 4);
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

// The seconds of the `duration=` of the one rpc line in `log`; -1 without one.
double LoggedSeconds(const std::string& log) {
  std::smatch match;
  if (!std::regex_search(log, match, std::regex("rpc Slow .* duration=([0-9.]+)s"))) return -1;
  return std::stod(match[1]);
}

TEST(CallPoolTest, ACallsLogCountsTheTimeItWaitedForAThread) {
  std::ostringstream captured;
  const std::shared_ptr<spdlog::logger> previous = spdlog::default_logger();
  spdlog::set_default_logger(std::make_shared<spdlog::logger>(
      "capture", std::make_shared<spdlog::sinks::ostream_sink_mt>(captured)));
  // The test holds the only thread for at least `busy`; the call arrives before that.
  const absl::Duration busy = absl::Milliseconds(300);
  grpc::ServerContext context;
  // Declared before the pool, so that they outlive its threads' last look at them.
  absl::Notification release;
  {
    CallPool pool(/*threads=*/1, /*max_queued=*/4);
    ASSERT_TRUE(pool.Post([&] { release.WaitForNotification(); }).ok());
    ASSERT_TRUE(PostLogged(pool, RpcLog(&context, "Slow"), [](RpcLog& log) {
                  log.Done(grpc::Status::OK);
                }).ok());
    absl::SleepFor(busy);
    release.Notify();
  }
  spdlog::set_default_logger(previous);
  const double seconds = LoggedSeconds(captured.str());
  EXPECT_GE(seconds, absl::ToDoubleSeconds(busy)) << captured.str();
}

TEST(CallPoolTest, ARefusedCallIsLoggedWithItsRefusal) {
  std::ostringstream captured;
  const std::shared_ptr<spdlog::logger> previous = spdlog::default_logger();
  spdlog::set_default_logger(std::make_shared<spdlog::logger>(
      "capture", std::make_shared<spdlog::sinks::ostream_sink_mt>(captured)));
  grpc::ServerContext context;
  std::atomic<bool> ran = false;
  absl::Notification release;
  absl::Notification started;
  {
    CallPool pool(/*threads=*/1, /*max_queued=*/1);
    ASSERT_TRUE(pool.Post([&] {
                      started.Notify();
                      release.WaitForNotification();
                    })
                    .ok());
    started.WaitForNotification();
    ASSERT_TRUE(pool.Post([] {}).ok());
    const absl::Status refused =
        PostLogged(pool, RpcLog(&context, "Slow"), [&](RpcLog&) { ran = true; });
    EXPECT_TRUE(absl::IsResourceExhausted(refused)) << refused;
    release.Notify();
  }
  spdlog::set_default_logger(previous);
  EXPECT_FALSE(ran);
  EXPECT_THAT(captured.str(), HasSubstr("status=RESOURCE_EXHAUSTED"));
  EXPECT_THAT(captured.str(), HasSubstr("--max_queued_calls=1"));
}

}  // namespace
}  // namespace wasserwarp::service
