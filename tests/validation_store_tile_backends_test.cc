// The validation store's tiles where only one backend has something to show: SQLite's file
// reopened after its server stopped, or written by a server without tiles, and PostgreSQL's
// replicas racing for one validation's tiles.

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <cstdint>
#include <latch>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "absl/strings/str_cat.h"
#include "scratch_dir.h"
#include "storage/postgres_pool.h"
#include "validation_store_fixture.h"
#include "validations/postgres_validation_store.h"
#include "validations/sqlite_validation_store.h"

namespace wasserwarp::service {
namespace {

using store_test::AddPostgresSession;
using store_test::Kept;
using store_test::kHolder;
using store_test::kLease;
using store_test::kSimRef;
using store_test::kSimSim;
using store_test::kStart;
using store_test::NewPostgresDatabase;
using store_test::OpenSqlite;
using store_test::Place;
using store_test::Queued;
using store_test::SqliteTileRows;
using store_test::Tile;
using store_test::Values;

// --- SQLite only ---

TEST(SqliteValidationTilesTest, AReopenedFileQueuesWhatRanAndKeepsWhatWasDone) {
  test_support::ScratchDir dir("validation_tiles");
  {
    std::unique_ptr<SqliteValidationStore> store = OpenSqlite(dir.root().string());
    ASSERT_NE(store, nullptr);
    ASSERT_TRUE(store->Insert(Queued(1, "a", kStart), Kept(1)).ok());
    ASSERT_TRUE(store->Claim(kHolder, kStart, kLease, {}).ok());
    ASSERT_TRUE(store->InsertTiles(1, "a", {Tile(kSimRef, 0), Tile(kSimRef, 1)}).ok());
    ASSERT_TRUE(store->ClaimTile("w", kStart, kLease, {})->has_value());
    ASSERT_TRUE(store->FinishTile(1, "a", kSimRef, 0, "w", "r", Values(1)).ok());
    ASSERT_TRUE(store->ClaimTile("w", kStart, kLease, {})->has_value());
  }
  std::unique_ptr<SqliteValidationStore> store = OpenSqlite(dir.root().string());
  ASSERT_NE(store, nullptr);
  EXPECT_EQ(store->Get(1, "a", false)->state, ValidationState::kQueued);
  absl::StatusOr<std::vector<TileRecord>> tiles = store->ReadTiles(1, "a", kSimRef);
  ASSERT_TRUE(tiles.ok() && tiles->size() == 2) << tiles.status();
  EXPECT_EQ((*tiles)[0].state, TileState::kDone);
  EXPECT_EQ((*tiles)[0].values, Values(1));
  EXPECT_EQ((*tiles)[1].state, TileState::kQueued);
  EXPECT_EQ((*tiles)[1].attempts, 1);
  EXPECT_TRUE((*tiles)[1].lease_owner.empty());
  EXPECT_FALSE((*tiles)[1].lease_expire.has_value());
  EXPECT_EQ((*tiles)[1].cells_done, 0u);
  // Run again, the validation finds its done tile and computes the other.
  ASSERT_TRUE(store->Claim(kHolder, kStart, kLease, {}).ok());
  ASSERT_TRUE(store->InsertTiles(1, "a", {Tile(kSimRef, 0), Tile(kSimRef, 1)}).ok());
  ASSERT_EQ(Place(store->ClaimTile("w", kStart, kLease, {})), std::make_tuple(kSimRef, 1));
}

TEST(SqliteValidationTilesTest, AFileWrittenBeforeTilesGainsTheirTable) {
  test_support::ScratchDir dir("validation_tiles");
  {
    std::unique_ptr<SqliteValidationStore> store = OpenSqlite(dir.root().string());
    ASSERT_NE(store, nullptr);
    ASSERT_TRUE(store->Insert(Queued(1, "a", kStart), Kept(1)).ok());
  }
  // What a server without tiles wrote: the same format version, no table.
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(dir.Path("validations.db").c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "DROP TABLE validation_tiles", nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(db);
  std::unique_ptr<SqliteValidationStore> store = OpenSqlite(dir.root().string());
  ASSERT_NE(store, nullptr);
  ASSERT_TRUE(store->Claim(kHolder, kStart, kLease, {}).ok());
  ASSERT_TRUE(store->InsertTiles(1, "a", {Tile(kSimRef, 0)}).ok());
  EXPECT_EQ(store->CountTiles(1, "a", std::nullopt)->tiles, 1);
}

TEST(SqliteValidationTilesTest, TheTilesOfSessionsNotLiveGoWithTheirValidations) {
  test_support::ScratchDir dir("validation_tiles");
  std::unique_ptr<SqliteValidationStore> store = OpenSqlite(dir.root().string());
  ASSERT_NE(store, nullptr);
  ASSERT_TRUE(store->Insert(Queued(1, "a", kStart), Kept(1)).ok());
  ASSERT_TRUE(store->Insert(Queued(2, "b", kStart), Kept(2)).ok());
  ASSERT_TRUE(store->Claim(kHolder, kStart, kLease, {}).ok());
  ASSERT_TRUE(store->Claim(kHolder, kStart, kLease, {}).ok());
  ASSERT_TRUE(store->InsertTiles(1, "a", {Tile(kSimRef, 0)}).ok());
  ASSERT_TRUE(store->InsertTiles(2, "b", {Tile(kSimRef, 0)}).ok());
  ASSERT_EQ(SqliteTileRows(dir.Path("validations.db")), 2);
  ASSERT_EQ(store->SessionsExpired({2}, kStart + absl::Seconds(1)).value(), 1);
  ASSERT_TRUE(store->PurgeSession(1).ok());
  EXPECT_EQ(SqliteTileRows(dir.Path("validations.db")), 1);
  EXPECT_EQ(store->CountTiles(2, "b", std::nullopt)->tiles, 1);
}

// --- PostgreSQL only: replicas, each with its own pool, sharing one database ---

TEST(PostgresValidationTilesTest, RacingReplicasClaimEachTileExactlyOnce) {
  constexpr int kTiles = 60;
  const std::string url = NewPostgresDatabase();
  ASSERT_FALSE(url.empty());
  postgres::Pool pool_a(url, 2), pool_b(url, 2);
  PostgresValidationStore a(pool_a), b(pool_b);
  AddPostgresSession(pool_a, 1);
  ASSERT_TRUE(a.Insert(Queued(1, "v", kStart), Kept(1)).ok());
  ASSERT_TRUE(a.Claim(kHolder, kStart, kLease, {}).ok());
  std::vector<CostTile> tiles;
  for (int i = 0; i < kTiles; ++i) tiles.push_back(Tile(i % 2 == 0 ? kSimRef : kSimSim, i / 2));
  ASSERT_TRUE(a.InsertTiles(1, "v", tiles).ok());

  std::vector<std::tuple<CostMatrixKind, int>> claimed[2];
  absl::Status errors[2];
  std::latch start(2);
  const auto run = [&](int replica, PostgresValidationStore& store) {
    const std::string worker = absl::StrCat("replica", replica);
    start.arrive_and_wait();
    for (;;) {
      absl::StatusOr<std::optional<TileRecord>> next = store.ClaimTile(worker, kStart, kLease, {});
      if (!next.ok()) {
        errors[replica] = next.status();
        return;
      }
      if (!next->has_value()) return;
      const CostTile& tile = (*next)->tile;
      claimed[replica].emplace_back(tile.matrix, tile.index);
      errors[replica] =
          store.FinishTile(1, "v", tile.matrix, tile.index, worker, worker, Values(tile.index));
      if (!errors[replica].ok()) return;
    }
  };
  std::thread first(run, 0, std::ref(a));
  std::thread second(run, 1, std::ref(b));
  first.join();
  second.join();
  EXPECT_TRUE(errors[0].ok()) << errors[0];
  EXPECT_TRUE(errors[1].ok()) << errors[1];
  std::map<std::tuple<CostMatrixKind, int>, int> times;
  for (const auto& places : claimed) {
    for (const auto& place : places) ++times[place];
  }
  EXPECT_EQ(times.size(), static_cast<size_t>(kTiles));
  for (const auto& [place, count] : times) EXPECT_EQ(count, 1) << std::get<1>(place);
  absl::StatusOr<TileCounts> counts = b.CountTiles(1, "v", std::nullopt);
  ASSERT_TRUE(counts.ok()) << counts.status();
  EXPECT_EQ(counts->done, kTiles);
  absl::StatusOr<std::vector<TileShare>> shares = b.TileShares(1, "v");
  ASSERT_TRUE(shares.ok()) << shares.status();
  uint64_t shared = 0;
  for (const TileShare& share : *shares) shared += share.tiles;
  EXPECT_EQ(shared, static_cast<uint64_t>(kTiles));
  RecordProperty("tiles_by_replica0", static_cast<int>(claimed[0].size()));
  RecordProperty("tiles_by_replica1", static_cast<int>(claimed[1].size()));
}

}  // namespace
}  // namespace wasserwarp::service
