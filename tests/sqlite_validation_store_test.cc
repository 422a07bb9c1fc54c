// The validation store's queue semantics on SQLite (in memory and on disk): claims in creation
// order, leases that expire and are claimed again, results only from the lease's holder,
// cancellation, paging and the format check of the file.

#include "sqlite_validation_store.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "scratch_dir.h"

namespace wasserwarp::service {
namespace {

using ::testing::HasSubstr;

const absl::Time kStart = absl::FromUnixSeconds(1'800'000'000);
constexpr absl::Duration kLease = absl::Seconds(30);

ValidationRecord Queued(int64_t session_key, const std::string& id, absl::Time created) {
  ValidationRecord record;
  record.session_key = session_key;
  record.session_id = "bench";
  record.id = id;
  record.owner = "alice";
  record.request = "request bytes";
  record.effective_parameters = "parameters";
  record.runs = {{.series_id = "sim0", .role = wire::RunRole::kSimulation, .checksum = 1},
                 {.series_id = "ref0", .role = wire::RunRole::kReference, .checksum = ~0ULL}};
  record.create_time = created;
  return record;
}

std::unique_ptr<SqliteValidationStore> InMemory() {
  absl::StatusOr<std::unique_ptr<SqliteValidationStore>> store = SqliteValidationStore::Open("");
  EXPECT_TRUE(store.ok()) << store.status();
  return store.ok() ? *std::move(store) : nullptr;
}

TEST(SqliteValidationStoreTest, ClaimsInCreationOrderAndEachOnce) {
  std::unique_ptr<SqliteValidationStore> store = InMemory();
  ASSERT_TRUE(store->Insert(Queued(1, "a", kStart)).ok());
  ASSERT_TRUE(store->Insert(Queued(1, "b", kStart + absl::Seconds(1))).ok());
  EXPECT_TRUE(absl::IsAlreadyExists(store->Insert(Queued(1, "a", kStart))));

  absl::StatusOr<std::optional<ValidationRecord>> first = store->Claim("w1", kStart, kLease);
  ASSERT_TRUE(first.ok() && first->has_value());
  EXPECT_EQ((*first)->id, "a");
  EXPECT_EQ((*first)->state, ValidationState::kRunning);
  EXPECT_EQ((*first)->attempts, 1);
  EXPECT_EQ((*first)->lease_owner, "w1");
  EXPECT_EQ((*first)->runs.size(), 2u);
  EXPECT_EQ((*first)->runs[1].checksum, ~0ULL);
  EXPECT_EQ((*first)->runs[1].role, wire::RunRole::kReference);
  absl::StatusOr<std::optional<ValidationRecord>> second = store->Claim("w2", kStart, kLease);
  ASSERT_TRUE(second.ok() && second->has_value());
  EXPECT_EQ((*second)->id, "b");
  absl::StatusOr<std::optional<ValidationRecord>> none = store->Claim("w3", kStart, kLease);
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->has_value());
}

TEST(SqliteValidationStoreTest, AnExpiredLeaseIsClaimedAgainAndOnlyTheNewHolderEndsIt) {
  std::unique_ptr<SqliteValidationStore> store = InMemory();
  ASSERT_TRUE(store->Insert(Queued(1, "a", kStart)).ok());
  ASSERT_TRUE(store->Claim("lost", kStart, kLease).ok());
  // Within the lease nobody else gets it.
  EXPECT_FALSE(store->Claim("w2", kStart + kLease / 2, kLease)->has_value());
  absl::StatusOr<std::optional<ValidationRecord>> again =
      store->Claim("w2", kStart + kLease, kLease);
  ASSERT_TRUE(again.ok() && again->has_value());
  EXPECT_EQ((*again)->attempts, 2);
  EXPECT_EQ((*again)->lease_owner, "w2");

  const absl::Time later = kStart + kLease + absl::Seconds(1);
  EXPECT_TRUE(absl::IsAborted(store->Renew(1, "a", "lost", later, kLease, "").status()));
  EXPECT_TRUE(absl::IsAborted(store->Finish(1, "a", "lost", ValidationState::kSucceeded,
                                            absl::OkStatus(), "stale report", later)));
  absl::StatusOr<LeaseRenewal> renewed = store->Renew(1, "a", "w2", later, kLease, "progress");
  ASSERT_TRUE(renewed.ok()) << renewed.status();
  EXPECT_FALSE(renewed->cancel_requested);
  ASSERT_TRUE(
      store
          ->Finish(1, "a", "w2", ValidationState::kSucceeded, absl::OkStatus(), "the report", later)
          .ok());
  absl::StatusOr<ValidationRecord> done = store->Get(1, "a", /*with_report=*/true);
  ASSERT_TRUE(done.ok());
  EXPECT_EQ(done->state, ValidationState::kSucceeded);
  EXPECT_EQ(done->report, "the report");
  EXPECT_EQ(done->end_time, later);
  EXPECT_TRUE(done->lease_owner.empty());
  // Ended: nobody claims it again.
  EXPECT_FALSE(store->Claim("w3", later + 10 * kLease, kLease)->has_value());
}

TEST(SqliteValidationStoreTest, CancellingEndsQueuedAtOnceAndTellsTheRunningWorker) {
  std::unique_ptr<SqliteValidationStore> store = InMemory();
  ASSERT_TRUE(store->Insert(Queued(1, "running", kStart)).ok());
  ASSERT_TRUE(store->Insert(Queued(1, "queued", kStart + absl::Seconds(1))).ok());
  ASSERT_TRUE(store->Claim("w1", kStart, kLease).ok());
  const absl::Status reason = absl::CancelledError("the validation was cancelled");

  absl::StatusOr<ValidationRecord> queued = store->RequestCancel(1, "queued", reason, kStart);
  ASSERT_TRUE(queued.ok());
  EXPECT_EQ(queued->state, ValidationState::kCancelled);
  EXPECT_EQ(queued->error, reason);
  EXPECT_EQ(*store->CountQueued(), 0);

  absl::StatusOr<ValidationRecord> running = store->RequestCancel(1, "running", reason, kStart);
  ASSERT_TRUE(running.ok());
  EXPECT_EQ(running->state, ValidationState::kRunning);
  absl::StatusOr<LeaseRenewal> renewal = store->Renew(1, "running", "w1", kStart, kLease, "");
  ASSERT_TRUE(renewal.ok());
  EXPECT_TRUE(renewal->cancel_requested);
  EXPECT_TRUE(absl::IsNotFound(store->RequestCancel(1, "unknown", reason, kStart).status()));
}

TEST(SqliteValidationStoreTest, ReleaseHandsRunningWorkBack) {
  std::unique_ptr<SqliteValidationStore> store = InMemory();
  ASSERT_TRUE(store->Insert(Queued(1, "a", kStart)).ok());
  ASSERT_TRUE(store->Claim("stopping", kStart, kLease).ok());
  ASSERT_TRUE(store->Release("stopping").ok());
  absl::StatusOr<std::optional<ValidationRecord>> again = store->Claim("w2", kStart, kLease);
  ASSERT_TRUE(again.ok() && again->has_value());
  EXPECT_EQ((*again)->attempts, 2);
}

TEST(SqliteValidationStoreTest, ListsNewestFirstInPagesAndByState) {
  std::unique_ptr<SqliteValidationStore> store = InMemory();
  for (int i = 0; i < 5; ++i) {
    ASSERT_TRUE(store->Insert(Queued(1, absl::StrCat("v", i), kStart + absl::Seconds(i))).ok());
  }
  ASSERT_TRUE(store->Insert(Queued(2, "other-session", kStart)).ok());
  ASSERT_TRUE(store->Claim("w", kStart, kLease).ok());  // v0

  absl::StatusOr<ValidationPage> page = store->List(1, std::nullopt, std::nullopt, 2);
  ASSERT_TRUE(page.ok());
  ASSERT_EQ(page->validations.size(), 2u);
  EXPECT_EQ(page->validations[0].id, "v4");
  EXPECT_EQ(page->validations[1].id, "v3");
  ASSERT_TRUE(page->next_key.has_value());
  std::vector<std::string> rest;
  std::optional<int64_t> next = page->next_key;
  while (next.has_value()) {
    absl::StatusOr<ValidationPage> more = store->List(1, std::nullopt, next, 2);
    ASSERT_TRUE(more.ok());
    for (const ValidationRecord& record : more->validations) rest.push_back(record.id);
    next = more->next_key;
  }
  EXPECT_EQ(rest, (std::vector<std::string>{"v2", "v1", "v0"}));
  absl::StatusOr<ValidationPage> running = store->List(1, ValidationState::kRunning, {}, 10);
  ASSERT_TRUE(running.ok());
  ASSERT_EQ(running->validations.size(), 1u);
  EXPECT_EQ(running->validations[0].id, "v0");

  absl::StatusOr<int64_t> dropped = store->DeleteAllBut({2});
  ASSERT_TRUE(dropped.ok());
  EXPECT_EQ(*dropped, 5);
  EXPECT_TRUE(store->Get(2, "other-session", false).ok());
}

TEST(SqliteValidationStoreTest, AFileKeepsReportsAndRequeuesWhatRanWhenItWasClosed) {
  test_support::ScratchDir dir("validations");
  {
    absl::StatusOr<std::unique_ptr<SqliteValidationStore>> store =
        SqliteValidationStore::Open(dir.root().string());
    ASSERT_TRUE(store.ok()) << store.status();
    ASSERT_TRUE((*store)->Insert(Queued(1, "done", kStart)).ok());
    ASSERT_TRUE((*store)->Insert(Queued(1, "cut-off", kStart + absl::Seconds(1))).ok());
    ASSERT_TRUE((*store)->Claim("w", kStart, kLease).ok());
    ASSERT_TRUE(
        (*store)
            ->Finish(1, "done", "w", ValidationState::kSucceeded, absl::OkStatus(), "kept", kStart)
            .ok());
    ASSERT_TRUE((*store)->Claim("w", kStart, kLease).ok());
  }
  absl::StatusOr<std::unique_ptr<SqliteValidationStore>> reopened =
      SqliteValidationStore::Open(dir.root().string());
  ASSERT_TRUE(reopened.ok()) << reopened.status();
  EXPECT_EQ((*reopened)->Get(1, "done", true)->report, "kept");
  EXPECT_EQ((*reopened)->Get(1, "cut-off", false)->state, ValidationState::kQueued);
}

TEST(SqliteValidationStoreTest, RefusesAnotherFileNamingIt) {
  test_support::ScratchDir dir("validations");
  {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open((dir.root() / "validations.db").c_str(), &db), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(db, "CREATE TABLE t (x)", nullptr, nullptr, nullptr), SQLITE_OK);
    sqlite3_close(db);
  }
  absl::StatusOr<std::unique_ptr<SqliteValidationStore>> store =
      SqliteValidationStore::Open(dir.root().string());
  ASSERT_FALSE(store.ok());
  EXPECT_EQ(store.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(store.status().message(), HasSubstr("validations.db"));
  EXPECT_THAT(store.status().message(), HasSubstr("not a wasserwarp validation database"));
}

}  // namespace
}  // namespace wasserwarp::service
