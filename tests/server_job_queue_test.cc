// The job queue on its own: slots, the wait queue, cancellation and groups.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <vector>

#include "absl/synchronization/notification.h"
#include "jobs/job_queue.h"

namespace wasserwarp::service {
namespace {

using ::testing::HasSubstr;

// A job that runs until cancelled, telling when it has started.
Job BlockingJob(std::string group, absl::Notification* started, std::atomic<int>* dropped) {
  return Job{
      .label = "blocking",
      .group = std::move(group),
      .run =
          [started](const CancellationToken& cancel) {
            started->Notify();
            while (!cancel.cancelled()) absl::SleepFor(absl::Milliseconds(1));
            return JobOutcome{.status = absl::CancelledError("stopped")};
          },
      .dropped = [dropped] { ++*dropped; },
  };
}

TEST(JobQueueTest, RunsUpToItsSlotsAndQueuesUpToItsLimit) {
  std::atomic<int> dropped = 0;
  std::atomic<int> ended = 0;
  {
    JobQueue queue({.max_concurrent_jobs = 1, .max_queued_jobs = 1, .job_threads = 3},
                   [&](const JobStats&) { ++ended; });
    EXPECT_EQ(queue.threads_per_job(), 3);
    absl::Notification first_started;
    absl::Notification second_started;
    absl::StatusOr<uint64_t> first = queue.Submit(BlockingJob("a", &first_started, &dropped));
    ASSERT_TRUE(first.ok());
    first_started.WaitForNotification();
    ASSERT_TRUE(queue.Submit(BlockingJob("b", &second_started, &dropped)).ok());
    EXPECT_EQ(queue.running(), 1);
    EXPECT_EQ(queue.waiting(), 1);
    absl::Notification never;
    absl::StatusOr<uint64_t> third = queue.Submit(BlockingJob("c", &never, &dropped));
    EXPECT_EQ(third.status().code(), absl::StatusCode::kResourceExhausted);
    EXPECT_THAT(third.status().message(), HasSubstr("--max_queued_jobs=1"));
    // Cancelling the running job frees its slot for the waiting one.
    queue.Cancel(*first);
    second_started.WaitForNotification();
    EXPECT_EQ(dropped, 0);
  }
  // The destructor cancelled the second job and waited for it.
  EXPECT_EQ(ended, 2);
}

TEST(JobQueueTest, CancellingAWaitingJobDropsIt) {
  std::atomic<int> dropped = 0;
  std::vector<JobStats> ended;
  absl::Mutex mu;
  JobQueue queue({.max_concurrent_jobs = 1, .max_queued_jobs = 4}, [&](const JobStats& stats) {
    absl::MutexLock lock(&mu);
    ended.push_back(stats);
  });
  absl::Notification started;
  absl::Notification never;
  ASSERT_TRUE(queue.Submit(BlockingJob("a", &started, &dropped)).ok());
  started.WaitForNotification();
  absl::StatusOr<uint64_t> waiting = queue.Submit(BlockingJob("b", &never, &dropped));
  ASSERT_TRUE(waiting.ok());
  queue.Cancel(*waiting);
  EXPECT_EQ(dropped, 1);
  EXPECT_EQ(queue.waiting(), 0);
  absl::MutexLock lock(&mu);
  ASSERT_EQ(ended.size(), 1u);
  EXPECT_FALSE(ended[0].started);
  EXPECT_EQ(ended[0].group, "b");
}

TEST(JobQueueTest, CancelGroupStopsRunningAndWaitingJobsOfTheGroupOnly) {
  std::atomic<int> dropped = 0;
  absl::Mutex mu;
  std::vector<std::string> ended;
  JobQueue queue({.max_concurrent_jobs = 2, .max_queued_jobs = 4}, [&](const JobStats& stats) {
    absl::MutexLock lock(&mu);
    ended.push_back(stats.group + (stats.started ? " ran" : " dropped"));
  });
  absl::Notification a_started;
  absl::Notification b_started;
  absl::Notification never;
  ASSERT_TRUE(queue.Submit(BlockingJob("a", &a_started, &dropped)).ok());
  ASSERT_TRUE(queue.Submit(BlockingJob("b", &b_started, &dropped)).ok());
  a_started.WaitForNotification();
  b_started.WaitForNotification();
  ASSERT_TRUE(queue.Submit(BlockingJob("a", &never, &dropped)).ok());
  queue.CancelGroup("a");
  absl::MutexLock lock(&mu);
  mu.Await(absl::Condition(
      +[](std::vector<std::string>* e) { return e->size() == 2; }, &ended));
  EXPECT_THAT(ended, ::testing::UnorderedElementsAre("a ran", "a dropped"));
  EXPECT_EQ(dropped, 1);
}

}  // namespace
}  // namespace wasserwarp::service
