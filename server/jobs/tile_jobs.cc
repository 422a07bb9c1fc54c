#include "jobs/tile_jobs.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "jobs/validated_runs.h"
#include "storage/byte_encoding.h"
#include "wire/resource_names.h"

namespace wasserwarp::service {
namespace {

constexpr size_t kInputsKept = 4;
// Prepared runs of a validation whose tiles stopped coming are dropped after this long.
constexpr absl::Duration kInputsIdle = absl::Seconds(30);

}  // namespace

struct TileJobs::Active {
  TileRecord record;
  bool is_job = false;
  absl::Time claimed;
  absl::Time next_renewal;
  std::atomic<uint64_t> cells_done{0};

  absl::Mutex mu;
  std::optional<uint64_t> job_id ABSL_GUARDED_BY(mu);
  bool cancelled ABSL_GUARDED_BY(mu) = false;

  void Cancel(JobQueue& jobs) {
    std::optional<uint64_t> id;
    {
      absl::MutexLock lock(&mu);
      cancelled = true;
      id = job_id;
    }
    if (id.has_value()) jobs.Cancel(*id);
  }
};

std::string TileValuesBytes(std::span<const double> values) {
  std::string scratch;
  return std::string(DoubleBytes(values.data(), values.size(), scratch));
}

absl::StatusOr<std::vector<double>> TileValuesFromBytes(const TileRecord& tile) {
  const size_t count = tile.tile.rows() * tile.tile.cols();
  if (tile.values.size() != count * sizeof(double)) {
    return absl::DataLossError(absl::StrFormat(
        "tile %d of the %s matrix of validation %s holds %d bytes of values, not the %d of its "
        "%d x %d pairs",
        tile.tile.index, CostMatrixKindName(tile.tile.matrix), tile.validation_id,
        tile.values.size(), count * sizeof(double), tile.tile.rows(), tile.tile.cols()));
  }
  std::vector<double> values;
  values.reserve(count);
  AppendDoubles(tile.values, values);
  return values;
}

TileJobs::TileJobs(TileJobsConfig config, ValidationStore& validations, SessionStore& sessions,
                   JobQueue& jobs, const ValidationLimits& limits)
    : config_(std::move(config)),
      validations_(validations),
      sessions_(sessions),
      jobs_(jobs),
      limits_(limits) {}

TileJobs::~TileJobs() { Stop(); }

void TileJobs::SetReplica(std::string replica) {
  absl::MutexLock lock(&mu_);
  replica_ = std::move(replica);
}

std::string TileJobs::replica() const {
  absl::MutexLock lock(&mu_);
  return replica_;
}

int TileJobs::jobs() const {
  absl::MutexLock lock(&mu_);
  return jobs_running_;
}

int TileJobs::ClaimAsJobs(int busy, int slots, absl::Time now) {
  int started = 0;
  while (busy + started < slots) {
    {
      absl::MutexLock lock(&mu_);
      if (stopping_) break;
    }
    absl::StatusOr<std::optional<TileRecord>> claimed =
        validations_.ClaimTile(config_.worker, now, config_.lease,
                               // Sharing every core, a validation held here has them all.
                               TileClaimScope{.others_only = jobs_.threads_per_job() == 0});
    if (!claimed.ok()) {
      spdlog::warn("claiming a tile: {}", claimed.status().ToString());
      break;
    }
    if (!claimed->has_value()) break;
    Submit(**std::move(claimed));
    ++started;
  }
  return started;
}

void TileJobs::Track(const std::shared_ptr<Active>& active) {
  active->claimed = absl::Now();
  active->next_renewal = active->claimed + LeaseRenewalInterval(config_.lease);
  std::string replica;
  {
    absl::MutexLock lock(&mu_);
    active_.push_back(active);
    if (active->is_job) ++jobs_running_;
    replica = replica_;
  }
  if (config_.metrics != nullptr)
    config_.metrics->TileClaimed(replica, active->record.attempts > 1);
}

void TileJobs::Untrack(const Active& active) {
  absl::MutexLock lock(&mu_);
  std::erase_if(active_,
                [&](const std::shared_ptr<Active>& held) { return held.get() == &active; });
  if (active.is_job) --jobs_running_;
}

void TileJobs::Submit(TileRecord tile) {
  auto active = std::make_shared<Active>();
  active->record = std::move(tile);
  active->is_job = true;
  Track(active);
  const TileRecord& record = active->record;
  Job job{
      .label = absl::StrFormat("Tile %d of the %s matrix of validation %s of session instance "
                               "%d (attempt %d): %d x %d runs, %d cells",
                               record.tile.index, CostMatrixKindName(record.tile.matrix),
                               record.validation_id, record.session_key, record.attempts,
                               record.tile.rows(), record.tile.cols(), record.tile.cells),
      .group = {},
      .principal = {},
      .admitted = true,
      .run = [this, active](const CancellationToken& cancel) { return RunJob(active, cancel); },
      .dropped =
          [this, active] {
            if (config_.metrics != nullptr) config_.metrics->TileEnded(replica(), false, 0);
            Untrack(*active);
          },
  };
  absl::StatusOr<uint64_t> id = jobs_.Submit(std::move(job));
  if (!id.ok()) {
    // The lease runs out and the tile is claimed again, here or elsewhere.
    spdlog::warn("tile {} of validation {} not started: {}", record.tile.index,
                 record.validation_id, id.status().ToString());
    if (config_.metrics != nullptr) config_.metrics->TileEnded(replica(), false, 0);
    Untrack(*active);
    return;
  }
  bool cancelled = false;
  {
    absl::MutexLock lock(&active->mu);
    active->job_id = *id;
    cancelled = active->cancelled;
  }
  if (cancelled) jobs_.Cancel(*id);
}

absl::StatusOr<std::shared_ptr<const TileJobs::Inputs>> TileJobs::InputsFor(const Key& key) {
  {
    absl::MutexLock lock(&mu_);
    auto it = std::find_if(inputs_.begin(), inputs_.end(),
                           [&](const KeptInputs& kept) { return kept.key == key; });
    if (it != inputs_.end()) {
      it->used = absl::Now();
      std::rotate(it, it + 1, inputs_.end());
      return inputs_.back().inputs;
    }
  }
  absl::StatusOr<ValidationRecord> record = validations_.Get(key.first, key.second, false);
  if (!record.ok()) return record.status();
  absl::StatusOr<SessionSnapshot> snapshot = SnapshotOfValidation(sessions_, *record);
  if (!snapshot.ok()) return snapshot.status();
  v1::ValidateRequest request;
  if (!request.ParseFromString(record->request)) {
    return absl::DataLossError(
        absl::StrCat("the stored request of validation ", key.second, " does not parse"));
  }
  absl::StatusOr<ValidationJob> job = PrepareValidationJob(request, *snapshot, limits_);
  if (!job.ok()) return job.status();
  absl::StatusOr<ValidationRuns> runs = PrepareValidationRuns(
      ViewOf(snapshot->simulation), ViewOf(snapshot->reference), job->options);
  if (!runs.ok()) return runs.status();
  auto inputs = std::make_shared<Inputs>(Inputs{*std::move(runs), job->options.twed});
  absl::MutexLock lock(&mu_);
  inputs_.push_back({key, inputs, absl::Now()});
  if (inputs_.size() > kInputsKept) inputs_.erase(inputs_.begin());
  return inputs;
}

JobOutcome TileJobs::RunJob(const std::shared_ptr<Active>& active,
                            const CancellationToken& cancel) {
  Active& a = *active;
  const TileRecord& record = a.record;
  JobOutcome outcome{.cells_total = record.tile.cells};
  absl::StatusOr<std::shared_ptr<const Inputs>> inputs =
      InputsFor(Key(record.session_key, record.validation_id));
  absl::StatusOr<MatrixRuns> runs =
      inputs.ok() ? RunsOf((*inputs)->runs, record.tile.matrix) : inputs.status();
  if (runs.ok()) {
    CostMatrixOptions options;
    options.max_threads = jobs_.threads_per_job();
    options.cancel = &cancel;
    outcome.status = ComputeAndStore(a, *runs->rows, *runs->cols, (*inputs)->twed, options);
  } else {
    // Not computable here (its session went, say): its lease runs out, and a validation that
    // cannot have its tile fails where it is held.
    outcome.status = runs.status();
    spdlog::warn("tile {} of the {} matrix of validation {}: {}", record.tile.index,
                 CostMatrixKindName(record.tile.matrix), record.validation_id,
                 runs.status().ToString());
    if (config_.metrics != nullptr) config_.metrics->TileEnded(replica(), false, 0);
  }
  outcome.cells_done = a.cells_done.load(std::memory_order_relaxed);
  Untrack(a);
  return outcome;
}

absl::Status TileJobs::ComputeHere(const TileRecord& tile, const std::vector<Series>& rows,
                                   const std::vector<Series>& cols, const TwedParams& params,
                                   const CostMatrixOptions& options) {
  auto active = std::make_shared<Active>();
  active->record = tile;
  Track(active);
  absl::Status status = ComputeAndStore(*active, rows, cols, params, options);
  Untrack(*active);
  return status;
}

absl::Status TileJobs::ComputeAndStore(Active& active, const std::vector<Series>& rows,
                                       const std::vector<Series>& cols, const TwedParams& params,
                                       CostMatrixOptions options) {
  const TileRecord& record = active.record;
  // Cells of this tile only: the validation's progress counts every replica's from the store.
  options.progress = [&active](const CostMatrixProgress& progress) {
    active.cells_done.store(progress.cells_done, std::memory_order_relaxed);
  };
  absl::StatusOr<CostMatrix> block = ComputeCostTile(record.tile, rows, cols, params, options);
  const std::string replica = this->replica();
  if (!block.ok()) {
    if (config_.metrics != nullptr) config_.metrics->TileEnded(replica, false, 0);
    return block.status();
  }
  absl::Status stored = validations_.FinishTile(
      record.session_key, record.validation_id, record.tile.matrix, record.tile.index,
      config_.worker, replica, TileValuesBytes(block->values));
  if (stored.ok()) {
    absl::MutexLock lock(&mu_);
    ++stored_;
  }
  const double seconds = absl::ToDoubleSeconds(absl::Now() - active.claimed);
  if (config_.metrics != nullptr) config_.metrics->TileEnded(replica, stored.ok(), seconds);
  // Aborted: another worker holds it now and stores the same values.
  if (absl::IsAborted(stored)) return absl::OkStatus();
  return stored;
}

uint64_t TileJobs::stored() const {
  absl::MutexLock lock(&mu_);
  return stored_;
}

void TileJobs::AwaitStored(uint64_t seen, absl::Duration timeout) const {
  absl::MutexLock lock(&mu_);
  const auto more = [this, seen]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return stored_ > seen; };
  mu_.AwaitWithTimeout(absl::Condition(&more), timeout);
}

void TileJobs::RenewAll(absl::Time now) {
  std::vector<std::shared_ptr<Active>> due;
  {
    absl::MutexLock lock(&mu_);
    std::erase_if(inputs_, [&](const KeptInputs& kept) { return now - kept.used > kInputsIdle; });
    for (const std::shared_ptr<Active>& active : active_) {
      if (active->next_renewal <= now) due.push_back(active);
    }
  }
  for (const std::shared_ptr<Active>& active : due) {
    active->next_renewal = now + LeaseRenewalInterval(config_.lease);
    const TileRecord& record = active->record;
    absl::StatusOr<LeaseRenewal> renewal = validations_.RenewTile(
        record.session_key, record.validation_id, record.tile.matrix, record.tile.index,
        config_.worker, now, config_.lease, active->cells_done.load(std::memory_order_relaxed));
    // A validation's own tiles stop with its job, which its own renewal cancels.
    if (!active->is_job) continue;
    if (absl::IsAborted(renewal.status()) || (renewal.ok() && renewal->cancel_requested)) {
      active->Cancel(jobs_);
    } else if (!renewal.ok()) {
      spdlog::warn("renewing the lease on tile {} of validation {}: {}", record.tile.index,
                   record.validation_id, renewal.status().ToString());
    }
  }
}

void TileJobs::CancelMatching(std::optional<int64_t> session_key, const std::string* id) {
  const auto matches = [&](const Key& key) {
    return !session_key.has_value() ||
           (key.first == *session_key && (id == nullptr || key.second == *id));
  };
  std::vector<std::shared_ptr<Active>> cancelled;
  {
    absl::MutexLock lock(&mu_);
    for (const std::shared_ptr<Active>& active : active_) {
      const Key key(active->record.session_key, active->record.validation_id);
      if (active->is_job && matches(key)) cancelled.push_back(active);
    }
    std::erase_if(inputs_, [&](const KeptInputs& kept) { return matches(kept.key); });
  }
  for (const std::shared_ptr<Active>& active : cancelled) active->Cancel(jobs_);
}

void TileJobs::CancelValidation(int64_t session_key, const std::string& id) {
  CancelMatching(session_key, &id);
}

void TileJobs::CancelSession(int64_t session_key) { CancelMatching(session_key, nullptr); }

void TileJobs::Stop() {
  {
    absl::MutexLock lock(&mu_);
    if (stopping_) return;
    stopping_ = true;
  }
  CancelMatching(std::nullopt, nullptr);
  absl::MutexLock lock(&mu_);
  const auto idle = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return jobs_running_ == 0; };
  mu_.Await(absl::Condition(&idle));
  inputs_.clear();
}

}  // namespace wasserwarp::service
