// One validation computed by three real `wasserwarp-server` replicas on one real PostgreSQL
// (Debian's, started in a scratch directory): its cost matrices split into tiles that every
// replica computes, the report equal to the embedded engine's; a replica killed while it holds
// tiles loses only those, which another replica computes again; a cancel stops every
// replica's tiles within two seconds.

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "e2e_postgres.h"
#include "e2e_process.h"
#include "metrics_scrape.h"
#include "random_runs.h"
#include "sanitized.h"
#include "scratch_dir.h"
#include "validation_client.h"
#include "wasserwarp/report_json.h"
#include "wasserwarp/validation.h"
#include "wire/convert.h"

namespace wasserwarp {
namespace {

struct Replica {
  std::string name;
  std::unique_ptr<e2e::ServerProcess> process;
  std::string metrics;
  std::unique_ptr<client::ValidationClient> client;

  double Metric(const std::string& metric) const {
    return test_support::Scrape::Of(metrics).Value(metric).value_or(0.0);
  }
};

class E2eTilesTest : public e2e::PostgresSuite {
 protected:
  // Replicas r1..r3 that tile every validation into tiles of `tile_cells` DP cells.
  void StartReplicas(int64_t tile_cells) {
    for (int k = 1; k <= 3; ++k) {
      Replica replica;
      replica.name = absl::StrCat("r", k);
      absl::StatusOr<std::unique_ptr<e2e::ServerProcess>> started = e2e::ServerProcess::Start(
          WASSERWARP_SERVER, scratch_.root().string(),
          {"--postgres_url", postgres_->url(database_), "--job_lease=2s", "--job_threads=1",
           "--max_concurrent_jobs=2", "--metrics_listen=127.0.0.1:0", "--tile_min_pairs=0",
           absl::StrCat("--tile_cells=", tile_cells),
           absl::StrCat("--replica_name=", replica.name)});
      ASSERT_TRUE(started.ok()) << started.status();
      replica.process = *std::move(started);
      replica.metrics = replica.process->MetricsAddress();
      ASSERT_FALSE(replica.metrics.empty()) << replica.process->Log();
      absl::StatusOr<std::unique_ptr<client::ValidationClient>> connected =
          client::ValidationClient::Connect(replica.process->address());
      ASSERT_TRUE(connected.ok()) << connected.status();
      replica.client = *std::move(connected);
      replicas_.push_back(std::move(replica));
    }
  }

  // A session "gate" of `count` x `count` one-channel runs of `samples` samples, uploaded
  // through the first replica.
  void Upload(size_t count, size_t samples) {
    sim_ = test_data::RandomWalkRuns("sim", count, samples, samples + 200, 1, 31);
    ref_ = test_data::RandomWalkRuns("ref", count - 2, samples, samples + 200, 1, 32);
    ASSERT_TRUE(replicas_[0].client->CreateSession("gate", {}).ok());
    ASSERT_TRUE(replicas_[0].client->UploadRuns("gate", sim_, ref_).ok());
  }

  static v1::ValidateRequest WithVerdict() {
    v1::ValidateRequest request;
    request.mutable_verdict()->set_permutations(99);
    return request;
  }

  // The embedded engine's report (what the CLI computes without --server) on the same runs.
  std::string Embedded(const v1::ValidateRequest& request) const {
    ValidationOptions options;
    options.verdict = wire::VerdictOptionsFromProto(request.verdict());
    absl::StatusOr<ValidationReport> report = Validate(sim_, ref_, options);
    EXPECT_TRUE(report.ok()) << report.status();
    return report.ok() ? Comparable(*report) : "";
  }

  // Without what only a tiled run has, and the wall time.
  static std::string Comparable(ValidationReport report) {
    report.seconds = 0.0;
    report.tiles.clear();
    return ReportToJson(report);
  }

  // Waits for the validation to run with at least `tiles_done` of its tiles stored.
  v1::Validation AwaitTiles(const std::string& name, int64_t tiles_done) {
    const absl::Time give_up = absl::Now() + absl::Seconds(60);
    for (;;) {
      absl::StatusOr<v1::Validation> now = replicas_[0].client->GetValidation(name);
      EXPECT_TRUE(now.ok()) << now.status();
      if (!now.ok() || absl::Now() > give_up || now->state() > v1::VALIDATION_STATE_RUNNING ||
          now->progress().tiles_done() >= tiles_done) {
        return now.ok() ? *now : v1::Validation();
      }
      absl::SleepFor(absl::Milliseconds(20));
    }
  }

  void StopAll() {
    for (Replica& replica : replicas_) {
      replica.client.reset();
      if (replica.process->pid() > 0) EXPECT_EQ(replica.process->Stop(), 0);
    }
  }

  const test_support::ScratchDir scratch_{"e2e_tiles_"};
  std::vector<Replica> replicas_;
  std::vector<Series> sim_;
  std::vector<Series> ref_;
};

TEST_F(E2eTilesTest, ThreeReplicasShareTheTilesAndReportWhatTheEmbeddedEngineDoes) {
  ASSERT_NO_FATAL_FAILURE(StartReplicas(50'000'000));
  // About 3e9 DP cells: seconds of work, so that the replicas that poll find tiles too.
  ASSERT_NO_FATAL_FAILURE(Upload(24, 1500));
  const v1::ValidateRequest request = WithVerdict();
  absl::StatusOr<ValidationReport> tiled = replicas_[1].client->Validate("gate", request);
  ASSERT_TRUE(tiled.ok()) << tiled.status() << replicas_[1].process->Log();

  EXPECT_EQ(Comparable(*tiled), Embedded(request));
  uint64_t tiles = 0;
  uint64_t cells = 0;
  std::map<std::string, uint64_t> by_replica;
  for (const TileShare& share : tiled->tiles) {
    by_replica[share.replica] = share.tiles;
    tiles += share.tiles;
    cells += share.dp_cells;
  }
  RecordProperty("tiles", absl::StrCat(tiles));
  EXPECT_GE(tiles, 30u);
  EXPECT_THAT(by_replica, ::testing::ElementsAre(::testing::Pair("r1", ::testing::Gt(0u)),
                                                 ::testing::Pair("r2", ::testing::Gt(0u)),
                                                 ::testing::Pair("r3", ::testing::Gt(0u))));
  // Each tile once: the tiles' cells are the matrices' (diagonal tiles computed whole).
  EXPECT_GE(cells, tiled->dp_cells);
  double finished = 0;
  for (const Replica& replica : replicas_) {
    finished += replica.Metric("wasserwarp_tiles_finished_total");
  }
  EXPECT_EQ(finished, static_cast<double>(tiles));
  StopAll();
}

TEST_F(E2eTilesTest, AReplicaKilledWhileItHoldsTilesCostsOnlyThoseTiles) {
  // Some 20 to 30 tiles, seconds of work, so that the third replica, which polls for tiles twice
  // a second, has some when it dies: about 1.2e10 DP cells, or 2.7e9 in a sanitized build,
  // which computes them several times slower.
  ASSERT_NO_FATAL_FAILURE(StartReplicas(test_support::kSanitized ? 150'000'000 : 400'000'000));
  ASSERT_NO_FATAL_FAILURE(test_support::kSanitized ? Upload(24, 1500) : Upload(20, 4000));
  const v1::ValidateRequest request = WithVerdict();
  absl::StatusOr<v1::Validation> created = replicas_[0].client->CreateValidation("gate", request);
  ASSERT_TRUE(created.ok()) << created.status();
  // Early, while every replica computes tiles: the third holds some when it dies.
  const v1::Validation running = AwaitTiles(created->name(), 2);
  ASSERT_EQ(running.state(), v1::VALIDATION_STATE_RUNNING);
  const absl::Time give_up = absl::Now() + absl::Seconds(30);
  while (replicas_[2].Metric("wasserwarp_tiles_computing") < 1) {
    ASSERT_LT(absl::Now(), give_up) << "the third replica never computed a tile";
    absl::SleepFor(absl::Milliseconds(10));
  }
  kill(replicas_[2].process->pid(), SIGKILL);
  replicas_[2].process->Stop();

  absl::StatusOr<v1::Validation> ended = replicas_[0].client->WatchValidation(created->name());
  ASSERT_TRUE(ended.ok()) << ended.status();
  ASSERT_EQ(ended->state(), v1::VALIDATION_STATE_SUCCEEDED) << ended->error().message();
  absl::StatusOr<ValidationReport> report = replicas_[0].client->ReportOf(*ended);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_EQ(Comparable(*report), Embedded(request));
  const double reclaimed = replicas_[0].Metric("wasserwarp_tiles_reclaimed_total") +
                           replicas_[1].Metric("wasserwarp_tiles_reclaimed_total");
  RecordProperty("tiles_reclaimed", absl::StrCat(reclaimed));
  EXPECT_GE(reclaimed, 1);
  replicas_.pop_back();
  StopAll();
}

TEST_F(E2eTilesTest, ACancelStopsEveryReplicasTilesWithinTwoSeconds) {
  ASSERT_NO_FATAL_FAILURE(StartReplicas(200'000'000));
  // About 1e10 DP cells: far longer than the test waits.
  ASSERT_NO_FATAL_FAILURE(Upload(18, 5000));
  absl::StatusOr<v1::Validation> created =
      replicas_[0].client->CreateValidation("gate", WithVerdict());
  ASSERT_TRUE(created.ok()) << created.status();
  ASSERT_EQ(AwaitTiles(created->name(), 1).state(), v1::VALIDATION_STATE_RUNNING);
  const absl::Time give_up = absl::Now() + absl::Seconds(30);
  for (const Replica& replica : replicas_) {
    while (replica.Metric("wasserwarp_tiles_computing") < 1) {
      ASSERT_LT(absl::Now(), give_up) << replica.name << " never computed a tile";
      absl::SleepFor(absl::Milliseconds(10));
    }
  }
  // Through another replica than the one that created it.
  absl::StatusOr<v1::Validation> cancelled = replicas_[1].client->CancelValidation(created->name());
  ASSERT_TRUE(cancelled.ok()) << cancelled.status();
  absl::SleepFor(absl::Seconds(2));
  for (const Replica& replica : replicas_) {
    EXPECT_EQ(replica.Metric("wasserwarp_tiles_computing"), 0) << replica.name;
  }
  absl::StatusOr<v1::Validation> ended = replicas_[2].client->WatchValidation(created->name());
  ASSERT_TRUE(ended.ok()) << ended.status();
  EXPECT_EQ(ended->state(), v1::VALIDATION_STATE_CANCELLED);
  StopAll();
}

}  // namespace
}  // namespace wasserwarp
