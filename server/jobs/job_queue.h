// Jobs that compute on behalf of RPCs, so that gRPC threads never do: a
// fixed number run at once, a bounded number wait, and each can be
// cancelled through its CancellationToken.
//
// A running job's parallel work goes to its own oneTBB task_arena of
// threads_per_job() threads (the core creates it from
// CostMatrixOptions::max_threads). With 0, every arena may use every core:
// oneTBB lends its one worker pool to the busy arenas, so a lone job gets
// the whole machine and concurrent jobs share it without oversubscription.
//
// Fair between principals: a free slot takes the waiting job of the principal with the fewest
// jobs running here, ties to the principal that started one least recently (never first), then
// the oldest job; a principal at --max_running_jobs_per_principal waits. A principal with one
// job thus waits for at most one running job of each other principal. Jobs a store's claim
// already admitted (validations and their tiles, claimed in the same fair order across the
// replicas) go first, and count against neither per-principal limit here.

#ifndef WASSERWARP_SERVER_JOBS_JOB_QUEUE_H_
#define WASSERWARP_SERVER_JOBS_JOB_QUEUE_H_

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "ops/job_stats.h"
#include "ops/server_config.h"
#include "wasserwarp/cancellation.h"

namespace wasserwarp::service {

struct Job {
  // What the job does and on how much, for the log.
  std::string label;
  // Jobs of one group (a session) can be cancelled together.
  std::string group;
  // Whom it computes for (call_principal.h).
  std::string principal;
  // Claimed from the validation store, which applied the per-principal limits and order.
  bool admitted = false;
  // Runs once on a job thread when the job gets a slot.
  std::function<JobOutcome(const CancellationToken&)> run;
  // Runs instead of `run` when the job is cancelled while it waits.
  std::function<void()> dropped;
};

// ResourceExhausted naming --max_queued_jobs, with the delay after which a retry may succeed:
// the refusal of a job, or of a validation, when `waiting` already wait.
absl::Status QueueFullError(int64_t running, int64_t waiting, const JobLimits& limits);
// ResourceExhausted naming --max_queued_jobs_per_principal, when `principal` has `waiting` jobs
// waiting.
absl::Status PrincipalQueueFullError(std::string_view principal, int64_t waiting,
                                     const JobLimits& limits);

class JobQueue {
 public:
  using Observer = std::function<void(const JobStats&)>;

  // `observer` (optional) sees every job's stats after it ends or is dropped.
  JobQueue(const JobLimits& limits, Observer observer);
  // Drops waiting jobs, cancels running ones and waits for them.
  ~JobQueue();

  // The job's id; ResourceExhausted when --max_queued_jobs jobs already wait, or
  // --max_queued_jobs_per_principal of its principal's.
  absl::StatusOr<uint64_t> Submit(Job job);
  // A running job's token is cancelled; a waiting job is dropped, its
  // `dropped` called on this thread. Unknown (finished) ids are ignored.
  void Cancel(uint64_t id);
  void CancelGroup(std::string_view group);

  // 0: every core, shared with the other running jobs.
  int threads_per_job() const { return limits_.job_threads; }
  int running() const;
  int waiting() const;

 private:
  struct Entry {
    uint64_t id = 0;
    Job job;
    CancellationToken cancel;
    absl::Time submit_time;
  };

  static JobStats StatsOf(const Entry& entry);
  void Work();
  void Drop(std::unique_ptr<Entry> entry);
  // The waiting entry a free slot takes (see the top), or waiting_.end() when none may start.
  std::deque<std::unique_ptr<Entry>>::iterator Next() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Removes the entry with `id` from the wait queue, if it is there.
  std::unique_ptr<Entry> TakeWaiting(uint64_t id) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const JobLimits limits_;
  const Observer observer_;
  mutable absl::Mutex mu_;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  uint64_t next_id_ ABSL_GUARDED_BY(mu_) = 1;
  std::deque<std::unique_ptr<Entry>> waiting_ ABSL_GUARDED_BY(mu_);
  std::map<uint64_t, Entry*> running_ ABSL_GUARDED_BY(mu_);
  // Per principal: jobs running here, and the number of the last start (starts_ counts them).
  std::map<std::string, int, std::less<>> running_of_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, uint64_t, std::less<>> last_start_of_ ABSL_GUARDED_BY(mu_);
  uint64_t starts_ ABSL_GUARDED_BY(mu_) = 0;
  std::vector<std::thread> workers_;
};

}  // namespace wasserwarp::service

#endif  // WASSERWARP_SERVER_JOBS_JOB_QUEUE_H_
