// Over 500 lines for one reason: every step of a validation's life here (queued, claimed,
// started, run, renewed, ended, cancelled, listened to) takes the one mutex over the maps of
// queued and active validations, and the order in which the steps take and release it is what
// keeps a result from being stored twice or a listener from missing its end. Split across files,
// that order could no longer be read in one place.

#include "jobs/validation_worker.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "jobs/tiled_cost_source.h"
#include "jobs/validated_runs.h"
#include "jobs/validation_outcome.h"
#include "ops/public_url.h"
#include "wasserwarp/engine_info.h"
#include "wire/convert.h"
#include "wire/evidence.h"
#include "wire/resource_names.h"
#include "wire/state_word.h"

namespace wasserwarp::service {
namespace {

// How often the store is asked for work that another replica queued, or that a lost replica
// left behind.
constexpr absl::Duration kPollInterval = absl::Milliseconds(500);
constexpr int kCostMatrixProgressMs = 50;

// The pairs of every cost matrix the validation computes: on the runs as given, and with a
// verdict those within each group (its matrix on a common grid, when it needs one, aside).
uint64_t MatrixPairs(const SessionSnapshot& snapshot, const ValidationOptions& options) {
  const uint64_t n = snapshot.simulation.size();
  const uint64_t m = snapshot.reference.size();
  uint64_t pairs = n * m;
  if (options.verdict.has_value()) pairs += n * (n - 1) / 2 + m * (m - 1) / 2;
  return pairs;
}

std::string NameOf(const ValidationRecord& record) {
  return absl::StrCat(wire::SessionName(record.session_id), "/validations/", record.id);
}

// A validation that another replica queued, or this one before it restarted, from its session
// and its stored request.
absl::StatusOr<PreparedValidation> PrepareStored(SessionStore& sessions,
                                                 const ValidationRecord& record,
                                                 const ValidationLimits& limits) {
  absl::StatusOr<SessionSnapshot> snapshot = SnapshotOfValidation(sessions, record);
  if (!snapshot.ok()) return snapshot.status();
  v1::ValidateRequest request;
  if (!request.ParseFromString(record.request)) {
    return absl::DataLossError(
        absl::StrCat("the stored request of ", NameOf(record), " does not parse"));
  }
  absl::StatusOr<ValidationJob> job = PrepareValidationJob(request, *snapshot, limits);
  if (!job.ok()) return job.status();
  return PreparedValidation{.snapshot = *std::move(snapshot), .job = *std::move(job)};
}

// Internal, not run again, once `max_attempts` replicas lost the validation: it is likely what
// killed them, and would take down every replica in turn.
absl::Status LostTooOften(const ValidationRecord& record, int max_attempts) {
  const std::vector<std::string>& lost = record.lost_replicas;
  if (static_cast<int>(lost.size()) < max_attempts) return absl::OkStatus();
  return absl::InternalError(absl::StrCat(
      "validation ", NameOf(record), " was lost ", lost.size(),
      " times (--max_attempts=", max_attempts, "): the replicas ",
      absl::StrJoin(lost, ", ",
                    [](std::string* out, const std::string& replica) {
                      absl::StrAppend(out, "\"", absl::CHexEscape(replica), "\"");
                    }),
      " stopped renewing its lease while they ran it (crashed, killed, out of memory?); it is "
      "not run again"));
}

}  // namespace

struct ValidationWorker::Active {
  ValidationRecord record;
  SessionSnapshot snapshot;
  ValidationJob job;
  // Set when the matrices are tiles.
  std::unique_ptr<TiledCostSource> source;
  absl::Time next_renewal;

  absl::Mutex mu;
  v1::ValidateProgress progress ABSL_GUARDED_BY(mu);
  std::optional<uint64_t> job_id ABSL_GUARDED_BY(mu);
  // Why the job was cancelled, once it was.
  std::optional<absl::Status> cancel_reason ABSL_GUARDED_BY(mu);
  // Another worker holds the validation now: this one stores nothing.
  bool lease_lost ABSL_GUARDED_BY(mu) = false;
  // Cancelled by Stop: back to the queue rather than ended.
  bool handed_back ABSL_GUARDED_BY(mu) = false;

  void CancelJob(JobQueue& jobs, absl::Status reason) {
    std::optional<uint64_t> id;
    {
      absl::MutexLock lock(&mu);
      if (!cancel_reason.has_value()) cancel_reason = std::move(reason);
      id = job_id;
    }
    if (id.has_value()) jobs.Cancel(*id);
  }
};

ValidationWorker::ValidationWorker(WorkerConfig config, ValidationStore& validations,
                                   SessionStore& sessions, JobQueue& jobs,
                                   const ValidationLimits& limits)
    : config_(std::move(config)),
      validations_(validations),
      sessions_(sessions),
      jobs_(jobs),
      limits_(limits),
      tiles_({.worker = config_.name,
              .lease = config_.lease,
              .metrics = config_.metrics,
              .queued = [this] { Wake(); }},
             validations, sessions, jobs, limits) {}

ValidationWorker::~ValidationWorker() { Stop(absl::ZeroDuration()); }

void ValidationWorker::Begin(std::string replica) {
  tiles_.SetReplica(std::move(replica));
  dispatcher_ = std::thread([this] { Dispatch(); });
}

int ValidationWorker::busy() const { return static_cast<int>(active_.size()) + tiles_.jobs(); }

void ValidationWorker::Queued(int64_t session_key, const std::string& id,
                              PreparedValidation prepared) {
  absl::MutexLock lock(&mu_);
  queued_.insert_or_assign(Key(session_key, id),
                           QueuedHere{std::move(prepared), queued_sequence_++});
  if (queued_.size() > static_cast<size_t>(std::max(config_.max_prepared, 0))) {
    queued_.erase(std::min_element(
        queued_.begin(), queued_.end(),
        [](const auto& a, const auto& b) { return a.second.sequence < b.second.sequence; }));
  }
}

void ValidationWorker::Wake() {
  absl::MutexLock lock(&mu_);
  wake_ = true;
}

bool ValidationWorker::Cancel(int64_t session_key, const std::string& id,
                              const absl::Status& reason) {
  const Key key(session_key, id);
  tiles_.CancelValidation(session_key, id);
  std::shared_ptr<Active> active;
  {
    absl::MutexLock lock(&mu_);
    queued_.erase(key);
    auto it = active_.find(key);
    if (it != active_.end()) active = it->second;
  }
  if (active == nullptr) {
    // Cancelled while queued: its streams look again now.
    Signal(key);
    return false;
  }
  active->CancelJob(jobs_, reason);
  return true;
}

void ValidationWorker::Listen(int64_t session_key, const std::string& id,
                              std::shared_ptr<ValidationEndSignal> signal) {
  absl::MutexLock lock(&mu_);
  // Streams of validations that ended elsewhere have detached by now.
  for (auto it = signals_.begin(); it != signals_.end();) {
    std::erase_if(it->second, [](const std::shared_ptr<ValidationEndSignal>& held) {
      return held->detached();
    });
    it = it->second.empty() ? signals_.erase(it) : std::next(it);
  }
  signals_[Key(session_key, id)].push_back(std::move(signal));
}

void ValidationWorker::WakeAllListeners() {
  std::vector<std::shared_ptr<ValidationEndSignal>> signals;
  {
    absl::MutexLock lock(&mu_);
    for (const auto& [key, held] : signals_)
      signals.insert(signals.end(), held.begin(), held.end());
  }
  for (const std::shared_ptr<ValidationEndSignal>& signal : signals) signal->Fire();
}

void ValidationWorker::Signal(const Key& key) {
  std::vector<std::shared_ptr<ValidationEndSignal>> signals;
  {
    absl::MutexLock lock(&mu_);
    auto it = signals_.find(key);
    if (it == signals_.end()) return;
    signals = std::move(it->second);
    signals_.erase(it);
  }
  for (const std::shared_ptr<ValidationEndSignal>& signal : signals) signal->Fire();
}

void ValidationWorker::ForgetSession(int64_t session_key) {
  tiles_.CancelSession(session_key);
  absl::MutexLock lock(&mu_);
  std::erase_if(queued_,
                [session_key](const auto& entry) { return entry.first.first == session_key; });
}

std::optional<v1::ValidateProgress> ValidationWorker::Progress(int64_t session_key,
                                                               const std::string& id) const {
  std::shared_ptr<Active> active;
  {
    absl::MutexLock lock(&mu_);
    auto it = active_.find(Key(session_key, id));
    if (it == active_.end()) return std::nullopt;
    active = it->second;
  }
  absl::MutexLock lock(&active->mu);
  return active->progress;
}

int ValidationWorker::running() const {
  absl::MutexLock lock(&mu_);
  return static_cast<int>(active_.size());
}

void ValidationWorker::Stop(absl::Duration grace) {
  {
    absl::MutexLock lock(&mu_);
    if (stopping_) return;
    stopping_ = true;
    wake_ = true;
    queued_.clear();
    // The dispatcher keeps renewing the leases of what still runs.
    const auto idle = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return active_.empty(); };
    mu_.AwaitWithTimeout(absl::Condition(&idle), grace);
  }
  std::vector<std::shared_ptr<Active>> remaining;
  {
    absl::MutexLock lock(&mu_);
    for (auto& [key, active] : active_) remaining.push_back(active);
  }
  for (const std::shared_ptr<Active>& active : remaining) {
    {
      absl::MutexLock lock(&active->mu);
      active->handed_back = true;
    }
    active->CancelJob(jobs_, absl::UnavailableError("the replica is shutting down"));
  }
  tiles_.Stop();
  {
    absl::MutexLock lock(&mu_);
    const auto idle = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return active_.empty(); };
    mu_.Await(absl::Condition(&idle));
  }
  if (dispatcher_.joinable()) dispatcher_.join();
  if (absl::Status status = validations_.Release(config_.name); !status.ok()) {
    spdlog::warn("validations of {} not handed back to the queue: {}", config_.name,
                 status.ToString());
  }
}

void ValidationWorker::Dispatch() {
  for (;;) {
    bool stopping = false;
    {
      absl::MutexLock lock(&mu_);
      const auto woken = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return wake_; };
      mu_.AwaitWithTimeout(absl::Condition(&woken), kPollInterval);
      wake_ = false;
      stopping = stopping_;
      if (stopping && active_.empty()) return;
    }
    const absl::Time now = absl::Now();
    if (!stopping) ClaimWhileFree(now);
    RenewAll(now);
  }
}

void ValidationWorker::ClaimWhileFree(absl::Time now) {
  // Tiles first: validations that have started end sooner, on every replica's slots.
  int busy_now = 0;
  {
    absl::MutexLock lock(&mu_);
    if (stopping_) return;
    busy_now = busy();
  }
  tiles_.ClaimAsJobs(busy_now, config_.slots, now);
  for (;;) {
    {
      absl::MutexLock lock(&mu_);
      if (stopping_ || busy() >= config_.slots) return;
    }
    absl::StatusOr<std::optional<ValidationRecord>> claimed =
        validations_.Claim(config_.name, now, config_.lease, config_.claim_limits);
    if (!claimed.ok()) {
      spdlog::warn("claiming a validation: {}", claimed.status().ToString());
      return;
    }
    if (!claimed->has_value()) return;
    Start(**std::move(claimed));
  }
}

void ValidationWorker::Start(ValidationRecord record) {
  auto active = std::make_shared<Active>();
  // Streams read the progress as soon as the validation is active; it never has no phase, and
  // while it prepares it keeps the totals it was queued with rather than 0 of 0.
  {
    absl::MutexLock lock(&active->mu);
    v1::ValidateProgress queued;
    if (queued.ParseFromString(record.progress)) {
      active->progress.set_pairs_total(queued.pairs_total());
      active->progress.set_cells_total(queued.cells_total());
    }
    active->progress.set_phase(v1::PHASE_PREPARING);
  }
  const Key key(record.session_key, record.id);
  // Queued here, it runs as Create prepared it, from the same request and snapshot.
  std::optional<PreparedValidation> prepared;
  {
    absl::MutexLock lock(&mu_);
    auto it = queued_.find(key);
    if (it != queued_.end()) {
      prepared = std::move(it->second.prepared);
      queued_.erase(it);
    }
    // Stop hands what it claims now back to the queue.
    if (stopping_) return;
    active_.emplace(key, active);
  }
  active->record = std::move(record);
  active->next_renewal = absl::Now() + LeaseRenewalInterval(config_.lease);
  if (absl::Status poison = LostTooOften(active->record, config_.max_attempts); !poison.ok()) {
    End(active, poison, nullptr);
    return;
  }
  if (!prepared.has_value()) {
    absl::StatusOr<PreparedValidation> stored = PrepareStored(sessions_, active->record, limits_);
    if (!stored.ok()) {
      End(active, stored.status(), nullptr);
      return;
    }
    prepared = *std::move(stored);
  }
  active->snapshot = std::move(prepared->snapshot);
  active->job = std::move(prepared->job);
  active->job.options.compute.max_threads = jobs_.threads_per_job();
  active->job.options.compute.progress_interval_ms = kCostMatrixProgressMs;
  // A validation within one tile's cells would be one tile per matrix: nothing to share.
  // A study computes two matrices of other runs than one validation's; it is not tiled.
  if (!active->job.study.has_value() &&
      MatrixPairs(active->snapshot, active->job.options) > config_.tile_min_pairs &&
      active->job.size.dp_cells + active->job.size.pooled_dp_cells > config_.tile_cells) {
    active->source = std::make_unique<TiledCostSource>(
        validations_, tiles_, active->record.session_key, active->record.id, active->job.options,
        config_.tile_cells);
    active->job.options.cost_source = active->source.get();
  }
  {
    absl::MutexLock lock(&active->mu);
    active->progress.set_pairs_total(static_cast<int64_t>(active->snapshot.simulation.size() *
                                                          active->snapshot.reference.size()));
    active->progress.set_cells_total(static_cast<int64_t>(active->job.size.dp_cells));
  }
  Job job{
      .label = absl::StrFormat("Validate %s (attempt %d): %d x %d runs, %d cells",
                               NameOf(active->record), active->record.attempts,
                               active->snapshot.simulation.size(),
                               active->snapshot.reference.size(), active->job.size.dp_cells),
      .group = active->snapshot.id,
      .principal = active->record.owner,
      .admitted = true,
      .run = [this, active](const CancellationToken& cancel) { return Run(active, cancel); },
      .dropped =
          [this, active] {
            absl::Status reason = absl::CancelledError("the validation was cancelled");
            {
              absl::MutexLock lock(&active->mu);
              if (active->cancel_reason.has_value()) reason = *active->cancel_reason;
            }
            End(active, reason, nullptr);
          },
  };
  absl::StatusOr<uint64_t> job_id = jobs_.Submit(std::move(job));
  if (!job_id.ok()) {
    End(active, job_id.status(), nullptr);
    return;
  }
  bool cancelled = false;
  {
    absl::MutexLock lock(&active->mu);
    active->job_id = *job_id;
    cancelled = active->cancel_reason.has_value();
  }
  if (cancelled) jobs_.Cancel(*job_id);
}

JobOutcome ValidationWorker::Run(const std::shared_ptr<Active>& active,
                                 const CancellationToken& cancel) {
  Active& a = *active;
  a.job.options.compute.cancel = &cancel;
  // A tiled validation's cells are every replica's, counted by CountTiles.
  if (a.source == nullptr)
    a.job.options.compute.progress = [&a](const CostMatrixProgress& progress) {
      absl::MutexLock lock(&a.mu);
      a.progress.set_pairs_done(static_cast<int64_t>(progress.pairs_done));
      a.progress.set_pairs_total(static_cast<int64_t>(progress.pairs_total));
      a.progress.set_cells_done(static_cast<int64_t>(progress.cells_done));
      a.progress.set_cells_total(static_cast<int64_t>(progress.cells_total));
    };
  a.job.options.verdict_progress = [&a](const ResamplingProgress& progress) {
    absl::MutexLock lock(&a.mu);
    a.progress.set_resamples_done(static_cast<int64_t>(progress.done));
    a.progress.set_resamples_total(static_cast<int64_t>(progress.total));
  };
  a.job.options.on_phase = [&a](ValidationPhase phase) {
    absl::MutexLock lock(&a.mu);
    a.progress.set_phase(wire::ToProto(phase));
  };
  absl::StatusOr<v1::ValidationReport> report =
      // The session may expire once the core is done; that counts as its last use.
      RunValidationJob(a.job, a.snapshot, [&a] { a.snapshot.lease.Reset(); });
  if (report.ok() && a.source != nullptr) {
    absl::StatusOr<std::vector<TileShare>> shares =
        validations_.TileShares(a.record.session_key, a.record.id);
    if (shares.ok()) {
      for (const TileShare& share : *shares) {
        v1::TileShare* out = report->add_tiles();
        out->set_replica(share.replica);
        out->set_tiles(static_cast<int64_t>(share.tiles));
        out->set_dp_cells(static_cast<int64_t>(share.dp_cells));
      }
    } else {
      report = shares.status();
    }
  }
  JobOutcome outcome{.status = report.status()};
  absl::Status status = report.status();
  {
    absl::MutexLock lock(&a.mu);
    // A tiled validation's progress counts every replica's cells; the job computed its own.
    outcome.cells_done = a.source != nullptr ? a.source->cells_here()
                                             : static_cast<uint64_t>(a.progress.cells_done());
    outcome.cells_total = a.source != nullptr ? a.source->cells_planned()
                                              : static_cast<uint64_t>(a.progress.cells_total());
    if (absl::IsCancelled(status) && a.cancel_reason.has_value()) status = *a.cancel_reason;
  }
  End(active, std::move(status), report.ok() ? &*report : nullptr);
  return outcome;
}

void ValidationWorker::End(const std::shared_ptr<Active>& active, absl::Status status,
                           const v1::ValidationReport* report) {
  bool store_result = true;
  {
    absl::MutexLock lock(&active->mu);
    store_result = !active->lease_lost && !active->handed_back;
  }
  active->snapshot.lease.Reset();
  if (store_result) {
    ValidationResult result{.state = status.ok()                 ? ValidationState::kSucceeded
                                     : absl::IsCancelled(status) ? ValidationState::kCancelled
                                                                 : ValidationState::kFailed,
                            .error = status,
                            .report = {},
                            .outcome = {},
                            .engine = {}};
    if (status.ok() && report != nullptr) {
      result.report = report->SerializeAsString();
      result.outcome = OutcomeOf(*report);
      result.engine = report->engine().SerializeAsString();
    } else {
      // A validation that failed names the build it failed on too.
      v1::EngineInfo engine;
      wire::EngineToProto(ThisEngine(), engine);
      result.engine = engine.SerializeAsString();
    }
    const ValidationRecord& record = active->record;
    if (absl::Status stored =
            validations_.Finish(record.session_key, record.id, config_.name, result, absl::Now());
        !stored.ok() && !absl::IsAborted(stored)) {
      // The lease runs out and another replica runs it again.
      spdlog::warn("the result of {} was not stored: {}", NameOf(record), stored.ToString());
    } else if (stored.ok()) {
      // Where a person reads the record that a pipeline's log names.
      const std::string link = RecordLink(config_.public_url, NameOf(record));
      const std::string state = wire::StateWord(static_cast<v1::ValidationState>(result.state));
      spdlog::info("validation {} ended {}{}{}", NameOf(record), state, link.empty() ? "" : ": ",
                   link);
    }
  }
  const Key key(active->record.session_key, active->record.id);
  {
    absl::MutexLock lock(&mu_);
    active_.erase(key);
    wake_ = true;
  }
  Signal(key);
}

void ValidationWorker::CountTiles(Active& active) {
  absl::StatusOr<TileCounts> counts =
      validations_.CountTiles(active.record.session_key, active.record.id, std::nullopt);
  if (!counts.ok() || counts->tiles == 0) return;
  absl::MutexLock lock(&active.mu);
  active.progress.set_tiles_done(counts->done);
  active.progress.set_tiles_total(counts->tiles);
  active.progress.set_cells_done(static_cast<int64_t>(counts->cells_done));
  active.progress.set_cells_total(static_cast<int64_t>(counts->cells));
  active.progress.clear_pairs_done();
  active.progress.clear_pairs_total();
}

void ValidationWorker::RenewAll(absl::Time now) {
  tiles_.RenewAll(now);
  std::vector<std::shared_ptr<Active>> due;
  {
    absl::MutexLock lock(&mu_);
    for (auto& [key, active] : active_) {
      if (active->next_renewal <= now) due.push_back(active);
    }
  }
  for (const std::shared_ptr<Active>& active : due) {
    active->next_renewal = now + LeaseRenewalInterval(config_.lease);
    if (active->source != nullptr) CountTiles(*active);
    std::string progress;
    {
      absl::MutexLock lock(&active->mu);
      progress = active->progress.SerializeAsString();
    }
    absl::StatusOr<LeaseRenewal> renewal = validations_.Renew(
        active->record.session_key, active->record.id, config_.name, now, config_.lease, progress);
    if (absl::IsAborted(renewal.status())) {
      {
        absl::MutexLock lock(&active->mu);
        active->lease_lost = true;
      }
      active->CancelJob(jobs_, renewal.status());
    } else if (!renewal.ok()) {
      spdlog::warn("renewing the lease on {}: {}", NameOf(active->record),
                   renewal.status().ToString());
    } else if (renewal->cancel_requested) {
      active->CancelJob(jobs_, absl::CancelledError("the validation was cancelled"));
    }
  }
}

}  // namespace wasserwarp::service
