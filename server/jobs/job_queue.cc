#include "jobs/job_queue.h"

#include <algorithm>
#include <tuple>
#include <utility>

#include "absl/strings/str_cat.h"
#include "sessions/principal_quota.h"
#include "spdlog/spdlog.h"
#include "wasserwarp/field_error.h"
#include "wire/status_to_grpc.h"

namespace wasserwarp::service {
namespace {

// What a client refused for a full queue or a shutdown is told to wait: a job slot frees up,
// or another replica takes over, on about this scale.
constexpr absl::Duration kRetryDelay = absl::Seconds(1);

std::string ThreadsName(int threads) {
  return threads > 0 ? absl::StrCat(threads, " threads") : "all cores, shared";
}

}  // namespace

absl::Status QueueFullError(int64_t running, int64_t waiting, const JobLimits& limits) {
  return wire::WithRetryDelay(
      WithLimit(absl::ResourceExhaustedError(
                    absl::StrCat("the job queue is full: ", running, " jobs running, ", waiting,
                                 " waiting (--max_concurrent_jobs=", limits.max_concurrent_jobs,
                                 ", --max_queued_jobs=", limits.max_queued_jobs, ")")),
                "--max_queued_jobs"),
      kRetryDelay);
}

absl::Status PrincipalQueueFullError(std::string_view principal, int64_t waiting,
                                     const JobLimits& limits) {
  return wire::WithRetryDelay(
      WithLimit(absl::ResourceExhaustedError(
                    absl::StrCat(PrincipalName(principal), " has ", waiting,
                                 " jobs waiting, its limit (--max_queued_jobs_per_principal=",
                                 limits.max_queued_jobs_per_principal, ")")),
                "--max_queued_jobs_per_principal"),
      kRetryDelay);
}

JobStats JobQueue::StatsOf(const Entry& entry) {
  JobStats stats;
  stats.id = entry.id;
  stats.label = entry.job.label;
  stats.group = entry.job.group;
  return stats;
}

JobQueue::JobQueue(const JobLimits& limits, Observer observer)
    : limits_(limits), observer_(std::move(observer)) {
  for (int i = 0; i < limits_.max_concurrent_jobs; ++i) workers_.emplace_back([this] { Work(); });
}

JobQueue::~JobQueue() {
  std::deque<std::unique_ptr<Entry>> dropped;
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
    dropped.swap(waiting_);
    for (auto& [id, entry] : running_) entry->cancel.Cancel();
  }
  for (std::unique_ptr<Entry>& entry : dropped) Drop(std::move(entry));
  for (std::thread& worker : workers_) worker.join();
}

absl::StatusOr<uint64_t> JobQueue::Submit(Job job) {
  auto entry = std::make_unique<Entry>();
  entry->job = std::move(job);
  entry->submit_time = absl::Now();
  absl::MutexLock lock(&mu_);
  if (stopping_) {
    return wire::WithRetryDelay(absl::UnavailableError("the server is shutting down"), kRetryDelay);
  }
  // Jobs a free worker has not picked up yet count as waiting, so the
  // capacity is exactly slots plus queue.
  const int free_slots = limits_.max_concurrent_jobs - static_cast<int>(running_.size());
  if (static_cast<int>(waiting_.size()) - free_slots >= limits_.max_queued_jobs) {
    return QueueFullError(static_cast<int64_t>(running_.size()),
                          static_cast<int64_t>(waiting_.size()), limits_);
  }
  if (!entry->job.admitted) {
    const std::string& principal = entry->job.principal;
    const int64_t waiting =
        std::count_if(waiting_.begin(), waiting_.end(), [&](const std::unique_ptr<Entry>& other) {
          return !other->job.admitted && other->job.principal == principal;
        });
    // As above, jobs a free slot takes at once are not waiting; slots the principal may not
    // use (it is at --max_running_jobs_per_principal) are not free for it.
    const auto running_it = running_of_.find(principal);
    const int running = running_it == running_of_.end() ? 0 : running_it->second;
    const int64_t usable_slots =
        std::max(0, std::min(free_slots, limits_.max_running_jobs_per_principal - running));
    if (waiting - usable_slots >= limits_.max_queued_jobs_per_principal) {
      return PrincipalQueueFullError(principal, waiting, limits_);
    }
  }
  entry->id = next_id_++;
  const uint64_t id = entry->id;
  waiting_.push_back(std::move(entry));
  return id;
}

void JobQueue::Cancel(uint64_t id) {
  std::unique_ptr<Entry> dropped;
  {
    absl::MutexLock lock(&mu_);
    if (const auto it = running_.find(id); it != running_.end()) {
      it->second->cancel.Cancel();
      return;
    }
    dropped = TakeWaiting(id);
  }
  if (dropped != nullptr) Drop(std::move(dropped));
}

void JobQueue::CancelGroup(std::string_view group) {
  std::vector<std::unique_ptr<Entry>> dropped;
  {
    absl::MutexLock lock(&mu_);
    for (auto& [id, entry] : running_) {
      if (entry->job.group == group) entry->cancel.Cancel();
    }
    for (auto it = waiting_.begin(); it != waiting_.end();) {
      if ((*it)->job.group == group) {
        dropped.push_back(std::move(*it));
        it = waiting_.erase(it);
      } else {
        ++it;
      }
    }
  }
  for (std::unique_ptr<Entry>& entry : dropped) Drop(std::move(entry));
}

int JobQueue::running() const {
  absl::MutexLock lock(&mu_);
  return static_cast<int>(running_.size());
}

int JobQueue::waiting() const {
  absl::MutexLock lock(&mu_);
  return static_cast<int>(waiting_.size());
}

void JobQueue::Work() {
  while (true) {
    std::unique_ptr<Entry> entry;
    {
      absl::MutexLock lock(&mu_);
      mu_.Await(absl::Condition(
          +[](JobQueue* queue) ABSL_EXCLUSIVE_LOCKS_REQUIRED(queue->mu_) {
            return queue->stopping_ || queue->Next() != queue->waiting_.end();
          },
          this));
      if (stopping_) return;
      const auto next = Next();
      entry = std::move(*next);
      waiting_.erase(next);
      running_.emplace(entry->id, entry.get());
      ++running_of_[entry->job.principal];
      last_start_of_[entry->job.principal] = ++starts_;
    }
    const absl::Time start = absl::Now();
    JobStats stats = StatsOf(*entry);
    stats.started = true;
    stats.waited = start - entry->submit_time;
    spdlog::info("job {} start: {} (waited {:.3f} s, {})", stats.id, stats.label,
                 absl::ToDoubleSeconds(stats.waited), ThreadsName(limits_.job_threads));
    stats.outcome = entry->job.run(entry->cancel);
    stats.ran = absl::Now() - start;
    {
      absl::MutexLock lock(&mu_);
      running_.erase(entry->id);
      if (const auto it = running_of_.find(entry->job.principal); --it->second == 0) {
        running_of_.erase(it);
      }
    }
    spdlog::info("job {} end: {}: {} in {:.3f} s, {} of {} cells", stats.id, stats.label,
                 stats.outcome.status.ok() ? "OK" : stats.outcome.status.ToString(),
                 absl::ToDoubleSeconds(stats.ran), stats.outcome.cells_done,
                 stats.outcome.cells_total);
    if (observer_) observer_(stats);
  }
}

void JobQueue::Drop(std::unique_ptr<Entry> entry) {
  JobStats stats = StatsOf(*entry);
  stats.outcome.status = absl::CancelledError("cancelled while waiting");
  stats.waited = absl::Now() - entry->submit_time;
  spdlog::info("job {} dropped: {} (waited {:.3f} s)", stats.id, stats.label,
               absl::ToDoubleSeconds(stats.waited));
  entry->job.dropped();
  if (observer_) observer_(stats);
}

std::deque<std::unique_ptr<JobQueue::Entry>>::iterator JobQueue::Next() {
  const auto admitted =
      std::find_if(waiting_.begin(), waiting_.end(),
                   [](const std::unique_ptr<Entry>& entry) { return entry->job.admitted; });
  if (admitted != waiting_.end()) return admitted;
  // (jobs running, last start, id) of the principal's oldest job: the smallest goes next.
  const auto rank = [this](const Entry& entry) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    const auto running = running_of_.find(entry.job.principal);
    const auto last_start = last_start_of_.find(entry.job.principal);
    return std::tuple(running == running_of_.end() ? 0 : running->second,
                      last_start == last_start_of_.end() ? 0 : last_start->second, entry.id);
  };
  auto best = waiting_.end();
  for (auto it = waiting_.begin(); it != waiting_.end(); ++it) {
    if (std::get<0>(rank(**it)) >= limits_.max_running_jobs_per_principal) continue;
    if (best == waiting_.end() || rank(**it) < rank(**best)) best = it;
  }
  return best;
}

std::unique_ptr<JobQueue::Entry> JobQueue::TakeWaiting(uint64_t id) {
  const auto it =
      std::find_if(waiting_.begin(), waiting_.end(),
                   [id](const std::unique_ptr<Entry>& entry) { return entry->id == id; });
  if (it == waiting_.end()) return nullptr;
  std::unique_ptr<Entry> entry = std::move(*it);
  waiting_.erase(it);
  return entry;
}

}  // namespace wasserwarp::service
