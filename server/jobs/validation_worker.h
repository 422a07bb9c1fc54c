// The replica's side of the validation queue: claims queued validations from the store while
// it has free job slots, runs each as a job, keeps its lease renewed (recording progress with
// each renewal, so that watchers on other replicas see it) and stores the result. Only the
// lease's holder stores a result, so a validation a lost replica was running, claimed again
// here, ends once, with what a single process computes.
//
// A validation whose cost matrices hold more than tile_min_pairs pairs, and more DP cells than
// one tile, is computed in tiles (tiled_cost_source.h) that this and every other replica's
// worker claim as jobs (tile_jobs.h) while they have free slots, before they claim another
// validation.
//
// Thread-safe. One dispatch thread claims and renews; the jobs run on the job queue.

#ifndef WASSERWARP_SERVER_JOBS_VALIDATION_WORKER_H_
#define WASSERWARP_SERVER_JOBS_VALIDATION_WORKER_H_

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "jobs/job_queue.h"
#include "jobs/tile_jobs.h"
#include "jobs/validation_end_signal.h"
#include "jobs/validation_job.h"
#include "ops/metrics.h"
#include "sessions/session_store.h"
#include "validations/validation_store.h"
#include "wasserwarp/v1/validation.pb.h"

namespace wasserwarp::service {

struct WorkerConfig {
  // This replica's name in the leases it holds; unique among the replicas.
  std::string name;
  // --job_lease: a replica that stops renewing loses its validations this long after.
  absl::Duration lease = absl::Seconds(30);
  // Validations and tiles this replica runs at once (--max_concurrent_jobs).
  int slots = 2;
  // --tile_min_pairs: validations with more pairs in their matrices (and more cells than one
  // tile) are tiled; --tile_cells: the DP cells a tile is planned to take.
  uint64_t tile_min_pairs = 64;
  uint64_t tile_cells = uint64_t{1} << 30;
  // The validations queued here whose prepared jobs are kept for this replica's claim: no more
  // than this wait in the store (--max_queued_jobs plus the slots). Those another replica
  // claimed stay until their session goes, so the oldest make room; should this replica claim
  // one after all, it prepares it again from the store.
  int max_prepared = 66;
  // --max_running_jobs_per_principal: no claim takes a validation of an owner with this many
  // running (across the replicas that share the store).
  ClaimLimits claim_limits;
  // --max_attempts: a validation this many replicas lost (validation_record.h's lost_replicas)
  // ends FAILED when claimed again, naming them.
  int max_attempts = 3;
  ServiceMetrics* metrics = nullptr;  // optional
  // --http_public_url, normalised: the log line of an ended validation gives its link.
  std::string public_url;
};

// A validation as ValidationResources::Create checked it: the session's runs it is created with
// and the job they and the request resolve to.
struct PreparedValidation {
  SessionSnapshot snapshot;
  ValidationJob job;
};

class ValidationWorker {
 public:
  // Every reference must outlive the worker.
  ValidationWorker(WorkerConfig config, ValidationStore& validations, SessionStore& sessions,
                   JobQueue& jobs, const ValidationLimits& limits);
  // Stop() if not called.
  ~ValidationWorker();

  // Starts claiming, as `replica` (--replica_name: what reports say computed their tiles).
  void Begin(std::string replica);

  // A validation this replica is queueing, before it is in the store: if this replica claims
  // it, it runs as `prepared`, not prepared again from the stored request, and the snapshot's
  // lease keeps the session from expiring while it waits. Cancel forgets it again; Wake once it
  // is stored.
  void Queued(int64_t session_key, const std::string& id, PreparedValidation prepared);
  // Something may be claimable now (a validation was queued, a job ended).
  void Wake();

  // Cancels the validation if this replica runs it (its job stops; the result it stores says
  // `reason`); forgets it if it was queued here. Returns whether it ran here.
  bool Cancel(int64_t session_key, const std::string& id, const absl::Status& reason);
  // The session was deleted: its validations queued here go (with the leases they hold).
  void ForgetSession(int64_t session_key);
  // `signal` fires when the validation ends here, or when it is cancelled while queued here.
  // Signals of validations that end elsewhere stay until their streams detach.
  void Listen(int64_t session_key, const std::string& id,
              std::shared_ptr<ValidationEndSignal> signal);
  // The validation ended on another replica (the store said so): its streams here wake.
  void EndedElsewhere(int64_t session_key, const std::string& id) { Signal(Key(session_key, id)); }
  // Ends elsewhere may have gone unannounced: every stream wakes and reads the store again,
  // its signal kept.
  void WakeAllListeners();
  // What the validation is doing, if this replica runs it.
  std::optional<v1::ValidateProgress> Progress(int64_t session_key, const std::string& id) const;

  // Claims nothing more; running validations get `grace` to end, then are cancelled and
  // handed back to the queue for another replica. Idempotent.
  void Stop(absl::Duration grace);

  int running() const;

 private:
  using Key = std::pair<int64_t, std::string>;
  struct Active;
  struct QueuedHere {
    PreparedValidation prepared;
    uint64_t sequence = 0;  // the order validations were queued in
  };

  void Dispatch();
  // Claims while slots are free; false when the store failed (logged).
  void ClaimWhileFree(absl::Time now);
  void Start(ValidationRecord record);
  JobOutcome Run(const std::shared_ptr<Active>& active, const CancellationToken& cancel);
  // `report`: the report of a job that succeeded; nullptr otherwise.
  void End(const std::shared_ptr<Active>& active, absl::Status status,
           const v1::ValidationReport* report);
  void RenewAll(absl::Time now);
  // A tiled validation's progress over every replica, from the store.
  void CountTiles(Active& active);
  // Validations and tile jobs running here.
  int busy() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Fires and forgets the signals of `key`.
  void Signal(const Key& key);

  const WorkerConfig config_;
  ValidationStore& validations_;
  SessionStore& sessions_;
  JobQueue& jobs_;
  const ValidationLimits& limits_;
  TileJobs tiles_;

  mutable absl::Mutex mu_;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  bool wake_ ABSL_GUARDED_BY(mu_) = false;
  std::map<Key, QueuedHere> queued_ ABSL_GUARDED_BY(mu_);
  uint64_t queued_sequence_ ABSL_GUARDED_BY(mu_) = 0;
  std::map<Key, std::shared_ptr<Active>> active_ ABSL_GUARDED_BY(mu_);
  std::map<Key, std::vector<std::shared_ptr<ValidationEndSignal>>> signals_ ABSL_GUARDED_BY(mu_);
  std::thread dispatcher_;
};

}  // namespace wasserwarp::service

#endif  // WASSERWARP_SERVER_JOBS_VALIDATION_WORKER_H_
