// The validation queue without gRPC, so that TSan sees all of it: two workers (two replicas)
// on one store run each of many validations exactly once with the report a single process
// gives, whichever replica prepared it, a validation whose worker died runs again once its lease
// is out, and cancellation reaches a running job through the store.

#include "jobs/validation_worker.h"

#include <gtest/gtest.h>
#include <spdlog/spdlog.h>

#include <atomic>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "random_runs.h"
#include "rpc/validation_resources.h"
#include "sessions/session_store.h"
#include "validations/sqlite_validation_store.h"

namespace wasserwarp::service {
namespace {

constexpr absl::Duration kShortLease = absl::Seconds(1);

StoredRun RunOf(RunRole role, Series series) {
  StoredRun run;
  run.role = role;
  run.bytes = SampleBytes(static_cast<int64_t>(series.times.size()),
                          static_cast<int64_t>(series.values.size()));
  run.series = std::make_shared<const Series>(std::move(series));
  return run;
}

// One in-process "replica": its sessions are the shared `sessions`, its queue its own.
struct Replica {
  // With `tile_cells`, every validation is computed in tiles of that many DP cells.
  Replica(const std::string& name, ValidationStore& validations, SessionStore& sessions,
          const JobLimits& limits, const ValidationLimits& validation_limits,
          std::optional<uint64_t> tile_cells = std::nullopt)
      : jobs(limits, nullptr),
        worker(WorkerConfig{.name = name,
                            .lease = kShortLease,
                            .slots = limits.max_concurrent_jobs,
                            .tile_min_pairs = tile_cells.has_value() ? 0 : uint64_t{1} << 62,
                            .tile_cells = tile_cells.value_or(1)},
               validations, sessions, jobs, validation_limits),
        resources(sessions, validations, worker, limits, validation_limits) {
    worker.Begin(name);
  }

  JobQueue jobs;
  ValidationWorker worker;
  ValidationResources resources;
};

class ValidationWorkerTest : public ::testing::Test {
 protected:
  // spdlog's registry is made here, before any thread logs: TSan does not see the guard of
  // its lazy creation inside the uninstrumented library.
  static void SetUpTestSuite() { spdlog::set_level(spdlog::level::warn); }

  void SetUp() override {
    absl::StatusOr<std::unique_ptr<SqliteValidationStore>> store = SqliteValidationStore::Open("");
    ASSERT_TRUE(store.ok());
    validations_ = *std::move(store);
    job_limits_.max_concurrent_jobs = 2;
    job_limits_.job_threads = 1;
    validation_limits_ = ValidationLimitsFor(session_limits_, job_limits_);
    ASSERT_TRUE(sessions_.Create("bench", {}).ok());
    absl::StatusOr<SessionRef> ref = sessions_.Open("bench");
    ASSERT_TRUE(ref.ok());
    for (Series& run : test_data::RandomWalkRuns("sim", 3, 30, 60, 1, 5)) {
      StoredRun stored = RunOf(RunRole::kSimulation, std::move(run));
      ASSERT_TRUE(sessions_.Reserve(*ref, stored.bytes).ok());
      ASSERT_TRUE(sessions_.Commit(*ref, stored).ok());
    }
    for (Series& run : test_data::RandomWalkRuns("ref", 3, 30, 60, 1, 6)) {
      StoredRun stored = RunOf(RunRole::kReference, std::move(run));
      ASSERT_TRUE(sessions_.Reserve(*ref, stored.bytes).ok());
      ASSERT_TRUE(sessions_.Commit(*ref, stored).ok());
    }
    session_key_ = ref->key;
  }

  static v1::ValidateRequest Request(int seed) {
    v1::ValidateRequest request;
    request.set_session("sessions/bench");
    request.mutable_verdict()->set_permutations(49);
    request.mutable_verdict()->set_seed(static_cast<uint64_t>(seed));
    return request;
  }

  // Polls until every one of `ids` has ended; their records.
  std::map<std::string, ValidationRecord> AwaitEnded(const std::vector<std::string>& ids) {
    std::map<std::string, ValidationRecord> ended;
    const absl::Time give_up = absl::Now() + absl::Seconds(60);
    while (ended.size() < ids.size() && absl::Now() < give_up) {
      for (const std::string& id : ids) {
        absl::StatusOr<ValidationRecord> record =
            validations_->Get(session_key_, id, /*with_report=*/true);
        if (record.ok() && IsFinal(record->state)) ended.insert_or_assign(id, *record);
      }
      absl::SleepFor(absl::Milliseconds(20));
    }
    return ended;
  }

  static std::string IdOf(const v1::Validation& validation) {
    return validation.name().substr(validation.name().rfind('/') + 1);
  }

  SessionLimits session_limits_;
  JobLimits job_limits_;
  ValidationLimits validation_limits_;
  SessionStore sessions_{session_limits_};
  std::unique_ptr<SqliteValidationStore> validations_;
  int64_t session_key_ = 0;
};

TEST_F(ValidationWorkerTest, TwoReplicasRunEachValidationOnceWithTheSameReport) {
  Replica a("a", *validations_, sessions_, job_limits_, validation_limits_);
  Replica b("b", *validations_, sessions_, job_limits_, validation_limits_);
  std::vector<std::string> ids;
  for (int i = 0; i < 16; ++i) {
    Replica& creator = i % 2 == 0 ? a : b;
    // Every request twice: once each with seeds 0..7.
    absl::StatusOr<v1::Validation> created = creator.resources.Create(Request(i / 2), "");
    ASSERT_TRUE(created.ok()) << created.status();
    ids.push_back(IdOf(*created));
  }
  std::map<std::string, ValidationRecord> ended = AwaitEnded(ids);
  ASSERT_EQ(ended.size(), ids.size());
  for (size_t i = 0; i < ids.size(); ++i) {
    const ValidationRecord& record = ended.at(ids[i]);
    EXPECT_EQ(record.state, ValidationState::kSucceeded) << record.error;
    EXPECT_EQ(record.attempts, 1) << "validation " << i << " ran more than once";
  }
  for (size_t i = 0; i + 1 < ids.size(); i += 2) {
    v1::ValidationReport first, second;
    ASSERT_TRUE(first.ParseFromString(ended.at(ids[i]).report));
    ASSERT_TRUE(second.ParseFromString(ended.at(ids[i + 1]).report));
    first.clear_seconds();
    second.clear_seconds();
    EXPECT_EQ(first.SerializeAsString(), second.SerializeAsString()) << "seed " << i / 2;
  }
}

// A stream reads a running validation's progress at any moment, the first included: it always
// names a phase. A watcher polls every validation while a replica starts them.
TEST_F(ValidationWorkerTest, ARunningValidationsProgressAlwaysNamesAPhase) {
  Replica replica("a", *validations_, sessions_, job_limits_, validation_limits_);
  std::vector<std::string> ids;
  for (int i = 0; i < 16; ++i) {
    absl::StatusOr<v1::Validation> created = replica.resources.Create(Request(i), "");
    ASSERT_TRUE(created.ok()) << created.status();
    ids.push_back(IdOf(*created));
  }
  std::atomic<bool> done = false;
  int64_t seen = 0;
  int64_t without_phase = 0;
  std::thread watcher([&] {
    while (!done.load()) {
      for (const std::string& id : ids) {
        std::optional<v1::ValidateProgress> progress = replica.worker.Progress(session_key_, id);
        if (!progress.has_value()) continue;
        ++seen;
        if (progress->phase() == v1::PHASE_UNSPECIFIED) ++without_phase;
      }
    }
  });
  std::map<std::string, ValidationRecord> ended = AwaitEnded(ids);
  done = true;
  watcher.join();
  EXPECT_EQ(ended.size(), ids.size());
  EXPECT_GT(seen, 0);
  EXPECT_EQ(without_phase, 0) << "of " << seen << " progress reads";
}

// The SQLite store runs the tiles' code path in one process: with one replica and two on one
// store, the report is the one computed without tiles, and every tile counts once.
TEST_F(ValidationWorkerTest, TiledValidationsReportWhatUntiledOnesDo) {
  const auto report_of = [&](Replica& replica) {
    absl::StatusOr<v1::Validation> created = replica.resources.Create(Request(5), "");
    EXPECT_TRUE(created.ok()) << created.status();
    std::map<std::string, ValidationRecord> ended = AwaitEnded({IdOf(*created)});
    v1::ValidationReport report;
    EXPECT_EQ(ended.size(), 1u);
    if (ended.size() != 1) return report;
    EXPECT_EQ(ended.begin()->second.state, ValidationState::kSucceeded)
        << ended.begin()->second.error;
    EXPECT_TRUE(report.ParseFromString(ended.begin()->second.report));
    report.clear_seconds();
    return report;
  };
  v1::ValidationReport whole;
  {
    Replica alone("alone", *validations_, sessions_, job_limits_, validation_limits_);
    whole = report_of(alone);
  }
  EXPECT_EQ(whole.tiles_size(), 0);
  for (int replicas : {1, 2}) {
    Replica a("a", *validations_, sessions_, job_limits_, validation_limits_, 2000);
    std::optional<Replica> b;
    if (replicas == 2)
      b.emplace("b", *validations_, sessions_, job_limits_, validation_limits_, 2000);
    v1::ValidationReport tiled = report_of(a);
    int64_t tiles = 0;
    int64_t cells = 0;
    for (const v1::TileShare& share : tiled.tiles()) {
      tiles += share.tiles();
      cells += share.dp_cells();
    }
    // 3 x 3 runs of 30 to 60 samples: a tile per simulated run (the columns are cut in whole
    // lane multiples only), and one for each group's pairs.
    EXPECT_EQ(tiles, 5) << replicas << " replicas";
    EXPECT_GE(cells, tiled.dp_cells());
    tiled.clear_tiles();
    EXPECT_EQ(tiled.SerializeAsString(), whole.SerializeAsString()) << replicas << " replicas";
  }
}

// A validation claimed by the replica that created it runs on the job that Create prepared; one
// claimed by another replica is prepared there from the stored request: the same report.
TEST_F(ValidationWorkerTest, AValidationPreparedWhereItWasCreatedReportsWhatTheStoredRequestDoes) {
  std::string from_store;
  {
    // Its creator claims nothing: another replica runs it.
    Replica creator("creator", *validations_, sessions_, job_limits_, validation_limits_);
    creator.worker.Stop(absl::ZeroDuration());
    absl::StatusOr<v1::Validation> created = creator.resources.Create(Request(4), "");
    ASSERT_TRUE(created.ok()) << created.status();
    from_store = IdOf(*created);
  }
  Replica runner("runner", *validations_, sessions_, job_limits_, validation_limits_);
  absl::StatusOr<v1::Validation> created = runner.resources.Create(Request(4), "");
  ASSERT_TRUE(created.ok()) << created.status();
  const std::string prepared_here = IdOf(*created);
  std::map<std::string, ValidationRecord> ended = AwaitEnded({from_store, prepared_here});
  ASSERT_EQ(ended.size(), 2u);
  std::vector<std::string> reports;
  for (const std::string& id : {from_store, prepared_here}) {
    EXPECT_EQ(ended.at(id).state, ValidationState::kSucceeded) << ended.at(id).error;
    v1::ValidationReport report;
    ASSERT_TRUE(report.ParseFromString(ended.at(id).report));
    report.clear_seconds();
    reports.push_back(report.SerializeAsString());
  }
  EXPECT_EQ(reports[0], reports[1]);
}

TEST_F(ValidationWorkerTest, AValidationWhoseWorkerDiedRunsAgainOnceItsLeaseIsOut) {
  absl::StatusOr<v1::Validation> created = [&] {
    // Created by a replica that claims it and then dies: its worker never renews.
    Replica doomed("doomed", *validations_, sessions_, job_limits_, validation_limits_);
    doomed.worker.Stop(absl::ZeroDuration());
    return doomed.resources.Create(Request(3), "");
  }();
  ASSERT_TRUE(created.ok()) << created.status();
  const std::string id = IdOf(*created);
  absl::StatusOr<std::optional<ValidationRecord>> claimed =
      validations_->Claim("dead", absl::Now(), kShortLease, {});
  ASSERT_TRUE(claimed.ok() && claimed->has_value());

  const absl::Time killed = absl::Now();
  Replica survivor("survivor", *validations_, sessions_, job_limits_, validation_limits_);
  std::map<std::string, ValidationRecord> ended = AwaitEnded({id});
  ASSERT_EQ(ended.count(id), 1u);
  const ValidationRecord& record = ended.at(id);
  EXPECT_EQ(record.state, ValidationState::kSucceeded) << record.error;
  EXPECT_EQ(record.attempts, 2);
  ASSERT_TRUE(record.start_time.has_value());
  EXPECT_GE(*record.start_time - killed, kShortLease - absl::Milliseconds(50));
  // The dead worker's late result is refused.
  ValidationResult late;
  late.state = ValidationState::kFailed;
  late.error = absl::InternalError("late");
  EXPECT_TRUE(absl::IsAborted(validations_->Finish(session_key_, id, "dead", late, absl::Now())));

  // The same request run by one process alone gives the same report.
  absl::StatusOr<v1::Validation> alone = survivor.resources.Create(Request(3), "");
  ASSERT_TRUE(alone.ok());
  std::map<std::string, ValidationRecord> single = AwaitEnded({IdOf(*alone)});
  ASSERT_EQ(single.size(), 1u);
  v1::ValidationReport rerun, reference;
  ASSERT_TRUE(rerun.ParseFromString(record.report));
  ASSERT_TRUE(reference.ParseFromString(single.begin()->second.report));
  rerun.clear_seconds();
  reference.clear_seconds();
  EXPECT_EQ(rerun.SerializeAsString(), reference.SerializeAsString());
}

TEST_F(ValidationWorkerTest, ACancellationRecordedInTheStoreReachesTheRunningJob) {
  // A validation long enough to be running when the other replica cancels it.
  ASSERT_TRUE(sessions_.Create("big", {}).ok());
  absl::StatusOr<SessionRef> ref = sessions_.Open("big");
  ASSERT_TRUE(ref.ok());
  for (const char* prefix : {"sim", "ref"}) {
    // About 9e9 DP cells on one thread: seconds on any machine.
    for (Series& run : test_data::RandomWalkRuns(prefix, 16, 6000, 6000, 1, 9)) {
      StoredRun stored =
          RunOf(prefix[0] == 's' ? RunRole::kSimulation : RunRole::kReference, std::move(run));
      ASSERT_TRUE(sessions_.Reserve(*ref, stored.bytes).ok());
      ASSERT_TRUE(sessions_.Commit(*ref, stored).ok());
    }
  }
  Replica runner("runner", *validations_, sessions_, job_limits_, validation_limits_);
  v1::ValidateRequest request;
  request.set_session("sessions/big");
  // Every pair: the lazy transport could prove most irrelevant and end before the cancel.
  request.set_exhaustive(true);
  absl::StatusOr<v1::Validation> created = runner.resources.Create(request, "");
  ASSERT_TRUE(created.ok());
  const std::string id = IdOf(*created);
  for (const absl::Time give_up = absl::Now() + absl::Seconds(10);
       validations_->Get(ref->key, id, false)->state != ValidationState::kRunning &&
       absl::Now() < give_up;) {
    absl::SleepFor(absl::Milliseconds(5));
  }
  // Recorded by another replica: only the store carries it to the runner.
  ASSERT_TRUE(
      validations_->RequestCancel(ref->key, id, absl::CancelledError("stop"), "", absl::Now())
          .ok());
  const absl::Time give_up = absl::Now() + absl::Seconds(10);
  absl::StatusOr<ValidationRecord> record = validations_->Get(ref->key, id, false);
  while (record.ok() && !IsFinal(record->state) && absl::Now() < give_up) {
    absl::SleepFor(absl::Milliseconds(20));
    record = validations_->Get(ref->key, id, false);
  }
  ASSERT_TRUE(record.ok());
  EXPECT_EQ(record->state, ValidationState::kCancelled);
}

}  // namespace
}  // namespace wasserwarp::service
