// The validation store's tiles on both backends: inserted once whatever a rerun plans, claimed
// in order under leases that expire, finished once and only by their holder, counted, read
// back bit for bit, and gone with their validation. What only one backend has is in
// validation_store_tile_backends_test.cc.

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <bit>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "scratch_dir.h"
#include "storage/postgres.h"
#include "storage/postgres_pool.h"
#include "validation_store_fixture.h"
#include "validations/sqlite_validation_store.h"

namespace wasserwarp::service {
namespace {

using store_test::Backend;
using store_test::BackendName;
using store_test::Kept;
using store_test::kHolder;
using store_test::kLease;
using store_test::kSimRef;
using store_test::kSimSim;
using store_test::kStart;
using store_test::OpenSqlite;
using store_test::Place;
using store_test::Queued;
using store_test::Result;
using store_test::SqliteTileRows;
using store_test::Tile;
using store_test::Values;
using ::testing::HasSubstr;
using ::testing::Not;

class ValidationTilesTest : public store_test::ValidationStoreTest {
 protected:
  void SetUp() override {
    if (GetParam() == Backend::kPostgres) {
      ValidationStoreTest::SetUp();
      return;
    }
    // A file, so that TileRows can look at the table from a connection of its own.
    ASSERT_FALSE(dir_.root().empty());
    sqlite_ = OpenSqlite(dir_.root().string());
    ASSERT_NE(sqlite_, nullptr);
    store_ = sqlite_.get();
  }
  void TearDown() override {
    store_ = nullptr;
    sqlite_.reset();  // before dir_ goes
  }

  // A RUNNING validation `id` of session instance 1, held by `holder`, with `tiles`.
  void StartValidation(const std::string& id, absl::Time created,
                       const std::vector<CostTile>& tiles, const std::string& holder = kHolder) {
    if (!session_added_) AddSession(1);
    session_added_ = true;
    ASSERT_TRUE(store().Insert(Queued(1, id, created), Kept(1)).ok());
    absl::StatusOr<std::optional<ValidationRecord>> claimed =
        store().Claim(holder, kStart, kLease, {});
    ASSERT_TRUE(claimed.ok() && claimed->has_value()) << claimed.status();
    ASSERT_EQ((*claimed)->id, id);
    const absl::Status inserted = store().InsertTiles(1, id, tiles);
    ASSERT_TRUE(inserted.ok()) << inserted;
  }

  // The rows of validation_tiles, of every validation: what deletions must leave none of.
  int64_t TileRows() {
    if (pool_ != nullptr) {
      int64_t rows = -1;
      const absl::Status status =
          postgres::RunTransaction(*pool_, "counting tiles", [&](postgres::Connection& c) {
            absl::StatusOr<postgres::Result> result =
                c.Exec("SELECT count(*) FROM validation_tiles", "counting tiles");
            if (!result.ok()) return result.status();
            rows = result->GetInt64(0, 0).value_or(-1);
            return absl::OkStatus();
          });
      EXPECT_TRUE(status.ok()) << status;
      return rows;
    }
    return SqliteTileRows(dir_.Path("validations.db"));
  }

  test_support::ScratchDir dir_{"validation_tiles"};
  bool session_added_ = false;
};

INSTANTIATE_TEST_SUITE_P(Backends, ValidationTilesTest,
                         ::testing::Values(Backend::kSqlite, Backend::kPostgres), BackendName);

TEST_P(ValidationTilesTest, InsertingAgainAddsOnlyMissingTilesAndRefusesOtherBounds) {
  StartValidation("a", kStart, {Tile(kSimRef, 0), Tile(kSimRef, 1)});
  absl::StatusOr<std::optional<TileRecord>> first = store().ClaimTile("w", kStart, kLease, {});
  ASSERT_EQ(Place(first), std::make_tuple(kSimRef, 0));
  ASSERT_TRUE(store().FinishTile(1, "a", kSimRef, 0, "w", "replica-a", Values(1)).ok());
  ASSERT_TRUE(store().ClaimTile("w", kStart, kLease, {}).ok());  // tile 1, running

  // The validation run again plans the same tiles and one more: only that one is new.
  const absl::Status again =
      store().InsertTiles(1, "a", {Tile(kSimRef, 0), Tile(kSimRef, 1), Tile(kSimRef, 2)});
  ASSERT_TRUE(again.ok()) << again;
  absl::StatusOr<std::vector<TileRecord>> tiles = store().ReadTiles(1, "a", kSimRef);
  ASSERT_TRUE(tiles.ok()) << tiles.status();
  ASSERT_EQ(tiles->size(), 3u);
  EXPECT_EQ((*tiles)[0].state, TileState::kDone);
  EXPECT_EQ((*tiles)[0].values, Values(1));
  EXPECT_EQ((*tiles)[0].replica, "replica-a");
  EXPECT_EQ((*tiles)[1].state, TileState::kRunning);
  EXPECT_EQ((*tiles)[1].lease_owner, "w");
  EXPECT_EQ((*tiles)[2].state, TileState::kQueued);
  EXPECT_EQ((*tiles)[2].attempts, 0);
  EXPECT_EQ((*tiles)[2].cells_done, 0u);
  EXPECT_EQ((*tiles)[2].tile, Tile(kSimRef, 2));

  // Planned differently: refused as a whole, naming the tile.
  CostTile wider = Tile(kSimRef, 1);
  wider.col_end = 4;
  const absl::Status refused = store().InsertTiles(1, "a", {Tile(kSimRef, 3), wider});
  EXPECT_TRUE(absl::IsInvalidArgument(refused)) << refused;
  EXPECT_THAT(std::string(refused.message()), HasSubstr("tile 1 of the simulation-reference"));
  CostTile more_cells = Tile(kSimRef, 0, 61);
  EXPECT_TRUE(absl::IsInvalidArgument(store().InsertTiles(1, "a", {more_cells})));
  EXPECT_EQ(store().CountTiles(1, "a", std::nullopt)->tiles, 3);
  // Two tiles at one place that disagree are refused too.
  CostTile taller = Tile(kSimSim, 0);
  taller.row_end = 9;
  EXPECT_TRUE(absl::IsInvalidArgument(store().InsertTiles(1, "a", {Tile(kSimSim, 0), taller})));
  EXPECT_EQ(store().CountTiles(1, "a", std::nullopt)->tiles, 3);

  EXPECT_TRUE(absl::IsNotFound(store().InsertTiles(1, "unknown", {Tile(kSimRef, 0)})));
  EXPECT_TRUE(absl::IsNotFound(store().InsertTiles(1, "unknown", {})));
  CostTile backwards = Tile(kSimRef, 5);
  backwards.row_end = 0;
  EXPECT_TRUE(absl::IsInvalidArgument(store().InsertTiles(1, "a", {backwards})));
}

TEST_P(ValidationTilesTest, ClaimsByValidationMatrixAndIndexWithinTheScope) {
  StartValidation("old", kStart, {Tile(kSimSim, 0), Tile(kSimRef, 1), Tile(kSimRef, 0)});
  StartValidation("new", kStart + absl::Seconds(1), {Tile(kSimRef, 0)});

  // Only the newer validation's.
  const TileClaimScope only_new{.session_key = 1, .validation_id = "new"};
  absl::StatusOr<std::optional<TileRecord>> scoped =
      store().ClaimTile("w", kStart, kLease, only_new);
  ASSERT_TRUE(scoped.ok() && scoped->has_value()) << scoped.status();
  EXPECT_EQ((*scoped)->session_key, 1);
  EXPECT_EQ((*scoped)->validation_id, "new");
  EXPECT_EQ((*scoped)->tile, Tile(kSimRef, 0));
  EXPECT_EQ((*scoped)->state, TileState::kRunning);
  EXPECT_EQ((*scoped)->attempts, 1);
  EXPECT_EQ((*scoped)->lease_owner, "w");
  EXPECT_EQ((*scoped)->lease_expire, kStart + kLease);
  EXPECT_EQ((*scoped)->cells_done, 0u);
  EXPECT_TRUE((*scoped)->values.empty());
  EXPECT_FALSE(store().ClaimTile("w", kStart, kLease, only_new)->has_value());
  EXPECT_FALSE(store()
                   .ClaimTile("w", kStart, kLease, {.session_key = 2, .validation_id = "old"})
                   ->has_value());

  // Any validation's: the older one's, matrix by matrix.
  std::vector<std::tuple<CostMatrixKind, int>> order;
  for (;;) {
    absl::StatusOr<std::optional<TileRecord>> next = store().ClaimTile("w", kStart, kLease, {});
    ASSERT_TRUE(next.ok()) << next.status();
    if (!next->has_value()) break;
    EXPECT_EQ((*next)->validation_id, "old");
    order.push_back(*Place(next));
  }
  EXPECT_EQ(order, (std::vector<std::tuple<CostMatrixKind, int>>{
                       {kSimRef, 0}, {kSimRef, 1}, {kSimSim, 0}}));
}

TEST_P(ValidationTilesTest, ClaimsOnlyOtherHoldersTilesWhenAskedTo) {
  StartValidation("mine", kStart, {Tile(kSimRef, 0)}, "me");
  StartValidation("theirs", kStart + absl::Seconds(1), {Tile(kSimRef, 0)}, "them");
  absl::StatusOr<std::optional<TileRecord>> claimed =
      store().ClaimTile("me", kStart, kLease, {.others_only = true});
  ASSERT_TRUE(claimed.ok() && claimed->has_value()) << claimed.status();
  EXPECT_EQ((*claimed)->validation_id, "theirs");
  EXPECT_FALSE(store().ClaimTile("me", kStart, kLease, {.others_only = true})->has_value());
  claimed = store().ClaimTile("me", kStart, kLease, {});
  ASSERT_TRUE(claimed.ok() && claimed->has_value()) << claimed.status();
  EXPECT_EQ((*claimed)->validation_id, "mine");
}

TEST_P(ValidationTilesTest, ClaimsNoTileOfAValidationNotRunningOrToBeCancelled) {
  StartValidation("cancelled", kStart, {Tile(kSimRef, 0)});
  StartValidation("released", kStart + absl::Seconds(1), {Tile(kSimRef, 0)}, "stopping");
  StartValidation("running", kStart + absl::Seconds(2), {Tile(kSimRef, 0)});
  ASSERT_TRUE(store().RequestCancel(1, "cancelled", absl::CancelledError("stop"), "", kStart).ok());
  ASSERT_TRUE(store().Release("stopping").ok());
  absl::StatusOr<std::optional<TileRecord>> claimed = store().ClaimTile("w", kStart, kLease, {});
  ASSERT_TRUE(claimed.ok() && claimed->has_value()) << claimed.status();
  EXPECT_EQ((*claimed)->validation_id, "running");
  EXPECT_FALSE(store().ClaimTile("w", kStart, kLease, {})->has_value());
  // Running again, the released one's tile is there to claim.
  ASSERT_EQ(store().Claim(kHolder, kStart, kLease, {}).value()->id, "released");
  claimed = store().ClaimTile("w", kStart, kLease, {});
  ASSERT_TRUE(claimed.ok() && claimed->has_value()) << claimed.status();
  EXPECT_EQ((*claimed)->validation_id, "released");
}

TEST_P(ValidationTilesTest, AnExpiredTileLeaseIsClaimedAgainAndOnlyTheNewHolderFinishes) {
  StartValidation("a", kStart, {Tile(kSimRef, 0)});
  ASSERT_TRUE(store().ClaimTile("lost", kStart, kLease, {})->has_value());
  EXPECT_FALSE(store().ClaimTile("w2", kStart + kLease / 2, kLease, {})->has_value());
  absl::StatusOr<std::optional<TileRecord>> again =
      store().ClaimTile("w2", kStart + kLease, kLease, {});
  ASSERT_TRUE(again.ok() && again->has_value()) << again.status();
  EXPECT_EQ((*again)->attempts, 2);
  EXPECT_EQ((*again)->lease_owner, "w2");
  EXPECT_EQ((*again)->lease_expire, kStart + 2 * kLease);

  const absl::Time later = kStart + kLease + absl::Seconds(1);
  const absl::StatusOr<LeaseRenewal> stale_renewal =
      store().RenewTile(1, "a", kSimRef, 0, "lost", later, kLease, 10);
  EXPECT_TRUE(absl::IsAborted(stale_renewal.status())) << stale_renewal.status();
  EXPECT_THAT(std::string(stale_renewal.status().message()), HasSubstr("held by worker w2"));
  const absl::Status stale = store().FinishTile(1, "a", kSimRef, 0, "lost", "r", Values(1));
  EXPECT_TRUE(absl::IsAborted(stale)) << stale;
  // Told at once, not after retries of a transaction that cannot succeed.
  EXPECT_THAT(std::string(stale.message()), Not(HasSubstr("attempts")));

  absl::StatusOr<LeaseRenewal> renewed =
      store().RenewTile(1, "a", kSimRef, 0, "w2", later, kLease, 25);
  ASSERT_TRUE(renewed.ok()) << renewed.status();
  EXPECT_FALSE(renewed->cancel_requested);
  absl::StatusOr<std::vector<TileRecord>> tiles = store().ReadTiles(1, "a", kSimRef);
  ASSERT_TRUE(tiles.ok() && tiles->size() == 1) << tiles.status();
  EXPECT_EQ((*tiles)[0].lease_expire, later + kLease);
  EXPECT_EQ((*tiles)[0].cells_done, 25u);
  EXPECT_EQ(store().CountTiles(1, "a", std::nullopt)->cells_done, 25u);
  ASSERT_TRUE(store().FinishTile(1, "a", kSimRef, 0, "w2", "r", Values(2)).ok());
  EXPECT_EQ(store().ReadTiles(1, "a", kSimRef).value()[0].values, Values(2));
}

TEST_P(ValidationTilesTest, ATileIsFinishedOnceAndCountedOnce) {
  StartValidation("a", kStart, {Tile(kSimRef, 0)});
  ASSERT_TRUE(store().ClaimTile("w", kStart, kLease, {})->has_value());
  ASSERT_TRUE(store().FinishTile(1, "a", kSimRef, 0, "w", "r", Values(1)).ok());
  const absl::Status twice = store().FinishTile(1, "a", kSimRef, 0, "w", "r", Values(1));
  EXPECT_TRUE(absl::IsAborted(twice)) << twice;
  EXPECT_THAT(std::string(twice.message()), HasSubstr("done already"));
  EXPECT_TRUE(
      absl::IsAborted(store().RenewTile(1, "a", kSimRef, 0, "w", kStart, kLease, 1).status()));
  EXPECT_FALSE(store().ClaimTile("w", kStart + 10 * kLease, kLease, {})->has_value());
  absl::StatusOr<TileCounts> counts = store().CountTiles(1, "a", std::nullopt);
  ASSERT_TRUE(counts.ok()) << counts.status();
  EXPECT_EQ(counts->done, 1);
  EXPECT_EQ(counts->cells_done, 60u);
  EXPECT_EQ(store().TileShares(1, "a").value(),
            (std::vector<TileShare>{{.replica = "r", .tiles = 1, .dp_cells = 60}}));
  // Neither a tile nor a validation that is not there.
  EXPECT_TRUE(absl::IsAborted(store().FinishTile(1, "a", kSimRef, 7, "w", "r", Values(1))));
  EXPECT_TRUE(absl::IsAborted(store().FinishTile(1, "b", kSimRef, 0, "w", "r", Values(1))));
}

TEST_P(ValidationTilesTest, CountsTheTilesOfAValidationOrOfOneMatrix) {
  StartValidation("a", kStart,
                  {Tile(kSimRef, 0, 100), Tile(kSimRef, 1, 200), Tile(kSimRef, 2, 300),
                   Tile(kSimSim, 0, 1000)});
  StartValidation("none", kStart + absl::Seconds(1), {});
  ASSERT_EQ(Place(store().ClaimTile("w", kStart, kLease, {})), std::make_tuple(kSimRef, 0));
  ASSERT_TRUE(store().FinishTile(1, "a", kSimRef, 0, "w", "r", Values(1)).ok());
  ASSERT_EQ(Place(store().ClaimTile("w", kStart, kLease, {})), std::make_tuple(kSimRef, 1));
  ASSERT_TRUE(store().RenewTile(1, "a", kSimRef, 1, "w", kStart, kLease, 50).ok());
  // A queued tile's progress counts nothing, even one that had some before it was handed back.
  ASSERT_EQ(Place(store().ClaimTile("gone", kStart, kLease, {})), std::make_tuple(kSimRef, 2));
  ASSERT_TRUE(store().RenewTile(1, "a", kSimRef, 2, "gone", kStart, kLease, 70).ok());
  ASSERT_TRUE(store().Release("gone").ok());

  absl::StatusOr<TileCounts> all = store().CountTiles(1, "a", std::nullopt);
  ASSERT_TRUE(all.ok()) << all.status();
  EXPECT_EQ(all->tiles, 4);
  EXPECT_EQ(all->done, 1);
  EXPECT_EQ(all->cells, 1600u);
  EXPECT_EQ(all->cells_done, 150u);
  absl::StatusOr<TileCounts> sim_ref = store().CountTiles(1, "a", kSimRef);
  ASSERT_TRUE(sim_ref.ok()) << sim_ref.status();
  EXPECT_EQ(sim_ref->tiles, 3);
  EXPECT_EQ(sim_ref->cells, 600u);
  EXPECT_EQ(sim_ref->cells_done, 150u);
  absl::StatusOr<TileCounts> sim_sim = store().CountTiles(1, "a", kSimSim);
  ASSERT_TRUE(sim_sim.ok()) << sim_sim.status();
  EXPECT_EQ(sim_sim->tiles, 1);
  EXPECT_EQ(sim_sim->done, 0);
  EXPECT_EQ(sim_sim->cells, 1000u);
  EXPECT_EQ(sim_sim->cells_done, 0u);
  EXPECT_EQ(store().CountTiles(1, "a", CostMatrixKind::kReferenceReference)->tiles, 0);

  absl::StatusOr<TileCounts> none = store().CountTiles(1, "none", std::nullopt);
  ASSERT_TRUE(none.ok()) << none.status();
  EXPECT_EQ(none->tiles, 0);
  EXPECT_EQ(none->cells, 0u);
  EXPECT_TRUE(store().TileShares(1, "none")->empty());
  EXPECT_TRUE(store().ReadTiles(1, "none", kSimRef)->empty());
  EXPECT_TRUE(absl::IsNotFound(store().CountTiles(1, "unknown", std::nullopt).status()));
  EXPECT_TRUE(absl::IsNotFound(store().ReadTiles(1, "unknown", kSimRef).status()));
  EXPECT_TRUE(absl::IsNotFound(store().TileShares(1, "unknown").status()));
}

TEST_P(ValidationTilesTest, ReadsValuesBackBitForBit) {
  StartValidation("a", kStart, {Tile(kSimRef, 1), Tile(kSimRef, 0), Tile(kSimSim, 0)});
  const std::vector<double> doubles = {
      -0.0, std::numeric_limits<double>::denorm_min(), 1e308,
      0.0,  std::numeric_limits<double>::quiet_NaN(),  -std::numeric_limits<double>::infinity()};
  const std::string exact = store_test::LittleEndian(doubles);
  ASSERT_EQ(Place(store().ClaimTile("w", kStart, kLease, {})), std::make_tuple(kSimRef, 0));
  ASSERT_TRUE(store().FinishTile(1, "a", kSimRef, 0, "w", "replica-0", exact).ok());
  ASSERT_EQ(Place(store().ClaimTile("w", kStart, kLease, {})), std::make_tuple(kSimRef, 1));
  ASSERT_TRUE(store().FinishTile(1, "a", kSimRef, 1, "w", "replica-1", Values(7)).ok());

  absl::StatusOr<std::vector<TileRecord>> tiles = store().ReadTiles(1, "a", kSimRef);
  ASSERT_TRUE(tiles.ok()) << tiles.status();
  ASSERT_EQ(tiles->size(), 2u);
  const TileRecord& first = (*tiles)[0];
  EXPECT_EQ(first.tile, Tile(kSimRef, 0));
  EXPECT_EQ(first.session_key, 1);
  EXPECT_EQ(first.validation_id, "a");
  EXPECT_EQ(first.state, TileState::kDone);
  EXPECT_EQ(first.replica, "replica-0");
  EXPECT_EQ(first.cells_done, first.tile.cells);
  EXPECT_TRUE(first.lease_owner.empty());
  EXPECT_FALSE(first.lease_expire.has_value());
  ASSERT_EQ(first.values.size(), 8 * doubles.size());
  EXPECT_EQ(first.values, exact);
  for (size_t i = 0; i < doubles.size(); ++i) {
    uint64_t bits = 0;
    for (int b = 7; b >= 0; --b) {
      bits = bits << 8 | static_cast<unsigned char>(first.values[8 * i + b]);
    }
    EXPECT_EQ(bits, std::bit_cast<uint64_t>(doubles[i])) << i;
  }
  EXPECT_EQ((*tiles)[1].tile.index, 1);
  EXPECT_EQ((*tiles)[1].values, Values(7));
  absl::StatusOr<std::vector<TileRecord>> other = store().ReadTiles(1, "a", kSimSim);
  ASSERT_TRUE(other.ok() && other->size() == 1) << other.status();
  EXPECT_EQ((*other)[0].state, TileState::kQueued);
  EXPECT_TRUE((*other)[0].values.empty());
  EXPECT_TRUE((*other)[0].replica.empty());
}

TEST_P(ValidationTilesTest, SharesAreTheDoneTilesByReplica) {
  StartValidation("a", kStart,
                  {Tile(kSimRef, 0, 10), Tile(kSimRef, 1, 20), Tile(kSimRef, 2, 40),
                   Tile(kSimSim, 0, 80), Tile(kSimSim, 1, 160)});
  const auto finish = [&](const std::string& replica, CostMatrixKind matrix, int index) {
    ASSERT_EQ(Place(store().ClaimTile(replica, kStart, kLease, {})),
              std::make_tuple(matrix, index));
    ASSERT_TRUE(store().FinishTile(1, "a", matrix, index, replica, replica, Values(index)).ok());
  };
  finish("replica-b", kSimRef, 0);
  finish("replica-a", kSimRef, 1);
  finish("replica-b", kSimRef, 2);
  finish("replica-a", kSimSim, 0);
  ASSERT_TRUE(store().ClaimTile("replica-c", kStart, kLease, {})->has_value());  // running
  EXPECT_EQ(store().TileShares(1, "a").value(),
            (std::vector<TileShare>{{.replica = "replica-a", .tiles = 2, .dp_cells = 100},
                                    {.replica = "replica-b", .tiles = 2, .dp_cells = 50}}));
}

TEST_P(ValidationTilesTest, ARenewalSaysWhenTheValidationIsToStop) {
  StartValidation("a", kStart, {Tile(kSimRef, 0), Tile(kSimRef, 1)});
  ASSERT_TRUE(store().ClaimTile("w", kStart, kLease, {})->has_value());
  EXPECT_FALSE(store().RenewTile(1, "a", kSimRef, 0, "w", kStart, kLease, 1)->cancel_requested);
  ASSERT_TRUE(store().RequestCancel(1, "a", absl::CancelledError("stop"), "", kStart).ok());
  absl::StatusOr<LeaseRenewal> renewal =
      store().RenewTile(1, "a", kSimRef, 0, "w", kStart, kLease, 2);
  ASSERT_TRUE(renewal.ok()) << renewal.status();
  EXPECT_TRUE(renewal->cancel_requested);
  EXPECT_FALSE(store().ClaimTile("w", kStart, kLease, {})->has_value());
}

TEST_P(ValidationTilesTest, AValidationsEndTakesItsTilesAlong) {
  StartValidation("a", kStart, {Tile(kSimRef, 0), Tile(kSimRef, 1)});
  StartValidation("b", kStart + absl::Seconds(1), {Tile(kSimRef, 0)});
  ASSERT_TRUE(store().ClaimTile("w", kStart, kLease, {})->has_value());
  ASSERT_TRUE(store().FinishTile(1, "a", kSimRef, 0, "w", "r", Values(1)).ok());
  ASSERT_TRUE(store().ClaimTile("w", kStart, kLease, {})->has_value());  // a's tile 1
  EXPECT_EQ(TileRows(), 3);
  ASSERT_TRUE(store()
                  .Finish(1, "a", kHolder,
                          Result(ValidationState::kSucceeded, absl::OkStatus(), "report"), kStart)
                  .ok());
  EXPECT_EQ(store().CountTiles(1, "a", std::nullopt)->tiles, 0);
  EXPECT_TRUE(store().ReadTiles(1, "a", kSimRef)->empty());
  EXPECT_TRUE(store().TileShares(1, "a")->empty());
  EXPECT_EQ(TileRows(), 1);
  const absl::StatusOr<LeaseRenewal> renewal =
      store().RenewTile(1, "a", kSimRef, 1, "w", kStart, kLease, 1);
  EXPECT_TRUE(absl::IsAborted(renewal.status())) << renewal.status();
  EXPECT_THAT(std::string(renewal.status().message()), HasSubstr("gone"));
  EXPECT_TRUE(absl::IsAborted(store().FinishTile(1, "a", kSimRef, 1, "w", "r", Values(1))));

  // A validation cancelled while queued ends too.
  ASSERT_TRUE(store().Release(kHolder).ok());
  ASSERT_TRUE(store().RequestCancel(1, "b", absl::CancelledError("stop"), "", kStart).ok());
  EXPECT_EQ(TileRows(), 0);
}

TEST_P(ValidationTilesTest, PurgingTheSessionsTombstoneDeletesTheTiles) {
  StartValidation("a", kStart, {Tile(kSimRef, 0), Tile(kSimRef, 1)});
  AddSession(2);
  ASSERT_TRUE(store().Insert(Queued(2, "other", kStart), Kept(2)).ok());
  ASSERT_EQ(store().Claim(kHolder, kStart, kLease, {}).value()->id, "other");
  ASSERT_TRUE(store().InsertTiles(2, "other", {Tile(kSimRef, 0)}).ok());
  ASSERT_TRUE(store().ClaimTile("w", kStart, kLease, {})->has_value());
  ASSERT_TRUE(store().FinishTile(1, "a", kSimRef, 0, "w", "r", Values(1)).ok());
  EXPECT_EQ(TileRows(), 3);
  ASSERT_TRUE(store().SessionGone(1, RecordedSessionState::kDeleted, "alice", kStart).ok());
  ASSERT_TRUE(store().PurgeSession(1).ok());
  EXPECT_EQ(TileRows(), 1);
  EXPECT_TRUE(absl::IsNotFound(store().CountTiles(1, "a", std::nullopt).status()));
  EXPECT_EQ(store().CountTiles(2, "other", std::nullopt)->tiles, 1);
}

TEST_P(ValidationTilesTest, ReleaseHandsAWorkersTilesBack) {
  StartValidation("a", kStart, {Tile(kSimRef, 0), Tile(kSimRef, 1), Tile(kSimRef, 2)});
  ASSERT_TRUE(store().ClaimTile("stopping", kStart, kLease, {})->has_value());
  ASSERT_TRUE(store().FinishTile(1, "a", kSimRef, 0, "stopping", "r", Values(1)).ok());
  ASSERT_TRUE(store().ClaimTile("stopping", kStart, kLease, {})->has_value());
  ASSERT_TRUE(store().ClaimTile("staying", kStart, kLease, {})->has_value());
  ASSERT_TRUE(store().Release("stopping").ok());

  // The validation is another worker's: it runs on.
  EXPECT_EQ(store().Get(1, "a", false)->state, ValidationState::kRunning);
  absl::StatusOr<std::vector<TileRecord>> tiles = store().ReadTiles(1, "a", kSimRef);
  ASSERT_TRUE(tiles.ok() && tiles->size() == 3) << tiles.status();
  EXPECT_EQ((*tiles)[0].state, TileState::kDone);
  EXPECT_EQ((*tiles)[1].state, TileState::kQueued);
  EXPECT_TRUE((*tiles)[1].lease_owner.empty());
  EXPECT_FALSE((*tiles)[1].lease_expire.has_value());
  EXPECT_EQ((*tiles)[2].state, TileState::kRunning);
  EXPECT_EQ((*tiles)[2].lease_owner, "staying");
  absl::StatusOr<std::optional<TileRecord>> again = store().ClaimTile("w", kStart, kLease, {});
  ASSERT_EQ(Place(again), std::make_tuple(kSimRef, 1));
  EXPECT_EQ((*again)->attempts, 2);
}

}  // namespace
}  // namespace wasserwarp::service
