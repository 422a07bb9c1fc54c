// This replica's part in the tiles of validations (cost_tiles.h, validation_store.h): tiles it
// claims and computes as jobs, for validations any replica holds, and tiles that a validation it
// holds computes on its own job thread (TiledCostSource). Every such tile's lease is renewed
// here; a tile job stops within a renewal of its validation's cancel or deletion, and a result
// is stored only by the tile's lease holder, so that no tile counts twice.
//
// Thread-safe. The worker's dispatch thread claims and renews through it.

#ifndef WASSERWARP_SERVER_JOBS_TILE_JOBS_H_
#define WASSERWARP_SERVER_JOBS_TILE_JOBS_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "jobs/job_queue.h"
#include "jobs/validation_job.h"
#include "ops/metrics.h"
#include "sessions/session_store.h"
#include "validations/validation_store.h"
#include "wasserwarp/cost_tiles.h"
#include "wasserwarp/validation.h"

namespace wasserwarp::service {

struct TileJobsConfig {
  // The lease owner's name: unique among replicas and their lifetimes (the worker's).
  std::string worker;
  absl::Duration lease = absl::Seconds(30);
  ServiceMetrics* metrics = nullptr;  // optional
  // Called when a validation here has queued tiles, so that free slots claim them at once
  // rather than at the next poll.
  std::function<void()> queued;
};

class TileJobs {
 public:
  // Every reference must outlive this.
  TileJobs(TileJobsConfig config, ValidationStore& validations, SessionStore& sessions,
           JobQueue& jobs, const ValidationLimits& limits);
  // Stop() if not called.
  ~TileJobs();

  // --replica_name, which the results say computed them; before the first claim.
  void SetReplica(std::string replica);

  // Claims tiles of any validation while fewer than `slots` jobs of the caller (`busy`, tile
  // jobs included) run; each becomes a job. Returns the tile jobs it started.
  int ClaimAsJobs(int busy, int slots, absl::Time now);
  int jobs() const;

  // Computes `tile` (claimed by this worker) on the calling thread from runs the caller holds
  // and stores it. Ok also when another worker took it over meanwhile; Cancelled with the
  // token of `options`.
  absl::Status ComputeHere(const TileRecord& tile, const std::vector<Series>& rows,
                           const std::vector<Series>& cols, const TwedParams& params,
                           const CostMatrixOptions& options);

  // Tiles stored here so far; AwaitStored returns once more than `seen` are, or after `timeout`.
  uint64_t stored() const;
  void AwaitStored(uint64_t seen, absl::Duration timeout) const;

  // A validation here queued tiles.
  void Queued() const {
    if (config_.queued) config_.queued();
  }

  // Renews the leases that are due; a tile job whose validation is to stop is cancelled.
  void RenewAll(absl::Time now);
  // This replica's tile jobs of the validation, or of every validation of the session, stop.
  void CancelValidation(int64_t session_key, const std::string& id);
  void CancelSession(int64_t session_key);
  // Cancels every tile job and waits for them; their tiles go back to the queue with the
  // worker's validations (ValidationStore::Release).
  void Stop();

  const std::string& worker() const { return config_.worker; }
  std::string replica() const;
  absl::Duration lease() const { return config_.lease; }

 private:
  struct Active;
  // A validation's runs as its tiles need them, prepared once per replica.
  struct Inputs {
    ValidationRuns runs;
    TwedParams twed;
  };
  using Key = std::pair<int64_t, std::string>;
  struct KeptInputs {
    Key key;
    std::shared_ptr<const Inputs> inputs;
    absl::Time used;
  };

  void Submit(TileRecord tile);
  JobOutcome RunJob(const std::shared_ptr<Active>& active, const CancellationToken& cancel);
  absl::StatusOr<std::shared_ptr<const Inputs>> InputsFor(const Key& key);
  absl::Status ComputeAndStore(Active& active, const std::vector<Series>& rows,
                               const std::vector<Series>& cols, const TwedParams& params,
                               CostMatrixOptions options);
  void Track(const std::shared_ptr<Active>& active);
  void Untrack(const Active& active);
  // Tile jobs of the session instance (every one when unset), of validation `id` when given.
  void CancelMatching(std::optional<int64_t> session_key, const std::string* id);

  const TileJobsConfig config_;
  ValidationStore& validations_;
  SessionStore& sessions_;
  JobQueue& jobs_;
  const ValidationLimits& limits_;

  mutable absl::Mutex mu_;
  std::string replica_ ABSL_GUARDED_BY(mu_);
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  std::vector<std::shared_ptr<Active>> active_ ABSL_GUARDED_BY(mu_);
  int jobs_running_ ABSL_GUARDED_BY(mu_) = 0;
  uint64_t stored_ ABSL_GUARDED_BY(mu_) = 0;
  // Most recently used last; a few validations' worth.
  std::vector<KeptInputs> inputs_ ABSL_GUARDED_BY(mu_);
};

// A tile's values as stored: float64, little-endian.
std::string TileValuesBytes(std::span<const double> values);
absl::StatusOr<std::vector<double>> TileValuesFromBytes(const TileRecord& tile);

}  // namespace wasserwarp::service

#endif  // WASSERWARP_SERVER_JOBS_TILE_JOBS_H_
