// The job queue on its own: slots, the wait queue, cancellation and groups, and its fairness
// between principals (issue 40).

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "jobs/job_queue.h"
#include "wasserwarp/field_error.h"

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

// Jobs that end in start order on one slot, recording it; the first of them holds its slot until
// `release`.
class StartOrder {
 public:
  Job Make(const std::string& principal, const std::string& label,
           absl::Notification* release = nullptr, absl::Notification* started = nullptr) {
    return Job{
        .label = label,
        .group = "",
        .principal = principal,
        .run =
            [this, label, release, started](const CancellationToken&) {
              {
                absl::MutexLock lock(&mu_);
                order_.push_back(label);
              }
              if (started != nullptr) started->Notify();
              if (release != nullptr) release->WaitForNotification();
              return JobOutcome{};
            },
        .dropped = [] {},
    };
  }

  std::vector<std::string> WaitFor(size_t count) {
    absl::MutexLock lock(&mu_);
    const auto done = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return order_.size() >= count; };
    mu_.Await(absl::Condition(&done));
    return order_;
  }

 private:
  absl::Mutex mu_;
  std::vector<std::string> order_ ABSL_GUARDED_BY(mu_);
};

TEST(JobQueueTest, AnotherPrincipalsJobWaitsForAtMostOneOfAQueueAhead) {
  StartOrder jobs;
  JobQueue queue({.max_concurrent_jobs = 1, .max_queued_jobs = 64}, nullptr);
  absl::Notification release;
  absl::Notification started;
  ASSERT_TRUE(queue.Submit(jobs.Make("alice", "a0", &release, &started)).ok());
  started.WaitForNotification();
  for (int i = 1; i < 10; ++i) {
    ASSERT_TRUE(queue.Submit(jobs.Make("alice", absl::StrCat("a", i))).ok());
  }
  ASSERT_TRUE(queue.Submit(jobs.Make("bob", "b0")).ok());
  release.Notify();
  EXPECT_THAT(jobs.WaitFor(11), ::testing::ElementsAre("a0", "b0", "a1", "a2", "a3", "a4", "a5",
                                                       "a6", "a7", "a8", "a9"));
}

TEST(JobQueueTest, APrincipalAtItsRunningLimitLeavesTheSlotToAnother) {
  StartOrder jobs;
  JobQueue queue(
      {.max_concurrent_jobs = 2, .max_queued_jobs = 8, .max_running_jobs_per_principal = 1},
      nullptr);
  absl::Notification release;
  absl::Notification a_started;
  absl::Notification b_started;
  ASSERT_TRUE(queue.Submit(jobs.Make("alice", "a0", &release, &a_started)).ok());
  a_started.WaitForNotification();
  ASSERT_TRUE(queue.Submit(jobs.Make("alice", "a1")).ok());
  ASSERT_TRUE(queue.Submit(jobs.Make("bob", "b0", &release, &b_started)).ok());
  b_started.WaitForNotification();
  // a1 was first in line and a slot was free, but alice runs her one job already.
  EXPECT_EQ(queue.running(), 2);
  EXPECT_EQ(queue.waiting(), 1);
  release.Notify();
  EXPECT_THAT(jobs.WaitFor(3), ::testing::ElementsAre("a0", "b0", "a1"));
}

TEST(JobQueueTest, APrincipalsWaitingJobsAreBoundedNamingTheFlag) {
  StartOrder jobs;
  JobQueue queue(
      {.max_concurrent_jobs = 1, .max_queued_jobs = 8, .max_queued_jobs_per_principal = 2},
      nullptr);
  absl::Notification release;
  absl::Notification started;
  ASSERT_TRUE(queue.Submit(jobs.Make("alice", "a0", &release, &started)).ok());
  started.WaitForNotification();
  ASSERT_TRUE(queue.Submit(jobs.Make("alice", "a1")).ok());
  ASSERT_TRUE(queue.Submit(jobs.Make("alice", "a2")).ok());
  const absl::Status refused = queue.Submit(jobs.Make("alice", "a3")).status();
  EXPECT_EQ(refused.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(refused.message(), HasSubstr("principal \"alice\" has 2 jobs waiting"));
  EXPECT_THAT(refused.message(), HasSubstr("--max_queued_jobs_per_principal=2"));
  EXPECT_EQ(ErrorLimit(refused), "--max_queued_jobs_per_principal");
  // Another principal's job, and one a store's claim admitted, still get in.
  ASSERT_TRUE(queue.Submit(jobs.Make("bob", "b0")).ok());
  Job admitted = jobs.Make("alice", "claimed");
  admitted.admitted = true;
  ASSERT_TRUE(queue.Submit(std::move(admitted)).ok());
  release.Notify();
  // The admitted one first, then bob (who never started one), then alice's.
  EXPECT_THAT(jobs.WaitFor(5), ::testing::ElementsAre("a0", "claimed", "b0", "a1", "a2"));
}

}  // namespace
}  // namespace wasserwarp::service
