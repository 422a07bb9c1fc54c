// The validation store's contract on both backends: claims in creation order, leases that
// expire and are claimed again, results only from the lease's holder, cancellation, paging and
// deletion, on SQLite in memory and on a real PostgreSQL 15 (one server for the binary, a
// database of its own for each test). Then what only one backend has: SQLite's file (reopened,
// another file refused), and PostgreSQL's replicas racing for one queue and a database that
// goes away and comes back.

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <latch>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "postgres_fixture.h"
#include "scratch_dir.h"
#include "storage/postgres.h"
#include "storage/postgres_pool.h"
#include "validation_store_fixture.h"
#include "validations/postgres_validation_store.h"
#include "validations/sqlite_validation_store.h"

namespace wasserwarp::service {
namespace {

using store_test::AddPostgresSession;
using store_test::Backend;
using store_test::BackendName;
using store_test::IdsOf;
using store_test::InMemory;
using store_test::Kept;
using store_test::kLease;
using store_test::kStart;
using store_test::NewPostgresDatabase;
using store_test::OfOwner;
using store_test::OfSession;
using store_test::Queued;
using store_test::Result;
using store_test::ValidationStoreTest;
using ::testing::HasSubstr;
using ::testing::Not;

INSTANTIATE_TEST_SUITE_P(Backends, ValidationStoreTest,
                         ::testing::Values(Backend::kSqlite, Backend::kPostgres), BackendName);

TEST_P(ValidationStoreTest, ClaimsInCreationOrderAndEachOnce) {
  AddSession(1);
  ASSERT_TRUE(store().Insert(Queued(1, "a", kStart), Kept(1)).ok());
  ASSERT_TRUE(store().Insert(Queued(1, "b", kStart + absl::Seconds(1)), Kept(1)).ok());
  EXPECT_TRUE(absl::IsAlreadyExists(store().Insert(Queued(1, "a", kStart), Kept(1))));

  absl::StatusOr<std::optional<ValidationRecord>> first = store().Claim("w1", kStart, kLease, {});
  ASSERT_TRUE(first.ok() && first->has_value()) << first.status();
  EXPECT_EQ((*first)->id, "a");
  EXPECT_EQ((*first)->session_id, "bench-1");
  EXPECT_EQ((*first)->effective_parameters, "parameters");
  EXPECT_EQ((*first)->request, "request bytes");
  EXPECT_EQ((*first)->state, ValidationState::kRunning);
  EXPECT_EQ((*first)->attempts, 1);
  EXPECT_EQ((*first)->lease_owner, "w1");
  EXPECT_EQ((*first)->start_time, kStart);
  EXPECT_EQ((*first)->lease_expire, kStart + kLease);
  EXPECT_EQ((*first)->create_time, kStart);
  EXPECT_EQ((*first)->runs.size(), 2u);
  EXPECT_EQ((*first)->runs[1].checksum, ~0ULL);
  EXPECT_EQ((*first)->runs[1].role, RunRole::kReference);
  absl::StatusOr<std::optional<ValidationRecord>> second = store().Claim("w2", kStart, kLease, {});
  ASSERT_TRUE(second.ok() && second->has_value());
  EXPECT_EQ((*second)->id, "b");
  absl::StatusOr<std::optional<ValidationRecord>> none = store().Claim("w3", kStart, kLease, {});
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->has_value());
  EXPECT_TRUE(absl::IsNotFound(store().Get(1, "unknown", false).status()));
}

TEST_P(ValidationStoreTest, AnExpiredLeaseIsClaimedAgainAndOnlyTheNewHolderEndsIt) {
  AddSession(1);
  ASSERT_TRUE(store().Insert(Queued(1, "a", kStart), Kept(1)).ok());
  ASSERT_TRUE(store().Claim("lost", kStart, kLease, {}).ok());
  // Within the lease nobody else gets it.
  EXPECT_FALSE(store().Claim("w2", kStart + kLease / 2, kLease, {})->has_value());
  absl::StatusOr<std::optional<ValidationRecord>> again =
      store().Claim("w2", kStart + kLease, kLease, {});
  ASSERT_TRUE(again.ok() && again->has_value());
  EXPECT_EQ((*again)->attempts, 2);
  EXPECT_EQ((*again)->lease_owner, "w2");

  const absl::Time later = kStart + kLease + absl::Seconds(1);
  EXPECT_TRUE(absl::IsAborted(store().Renew(1, "a", "lost", later, kLease, "").status()));
  const absl::Status stale = store().Finish(
      1, "a", "lost", Result(ValidationState::kSucceeded, absl::OkStatus(), "stale report"), later);
  EXPECT_TRUE(absl::IsAborted(stale)) << stale;
  // Told at once, not after retries of a transaction that cannot succeed.
  EXPECT_THAT(std::string(stale.message()), HasSubstr("no longer this worker's"));
  EXPECT_THAT(std::string(stale.message()), Not(HasSubstr("attempts")));
  absl::StatusOr<LeaseRenewal> renewed = store().Renew(1, "a", "w2", later, kLease, "progress");
  ASSERT_TRUE(renewed.ok()) << renewed.status();
  EXPECT_FALSE(renewed->cancel_requested);
  EXPECT_EQ(store().Get(1, "a", false)->progress, "progress");
  const std::string report("the\0report", 10);
  ASSERT_TRUE(store()
                  .Finish(1, "a", "w2",
                          Result(ValidationState::kSucceeded, absl::OkStatus(), report), later)
                  .ok());
  absl::StatusOr<ValidationRecord> done = store().Get(1, "a", /*with_report=*/true);
  ASSERT_TRUE(done.ok());
  EXPECT_EQ(done->state, ValidationState::kSucceeded);
  EXPECT_EQ(done->report, report);
  EXPECT_EQ(done->end_time, later);
  EXPECT_TRUE(done->error.ok());
  EXPECT_TRUE(done->lease_owner.empty());
  EXPECT_FALSE(done->lease_expire.has_value());
  EXPECT_TRUE(store().Get(1, "a", /*with_report=*/false)->report.empty());
  // Ended: nobody claims it again, nor ends it twice.
  EXPECT_FALSE(store().Claim("w3", later + 10 * kLease, kLease, {})->has_value());
  EXPECT_TRUE(absl::IsAborted(store().Finish(
      1, "a", "w2", Result(ValidationState::kFailed, absl::InternalError("x"), ""), later)));
}

TEST_P(ValidationStoreTest, AFailureKeepsItsError) {
  AddSession(1);
  ASSERT_TRUE(store().Insert(Queued(1, "a", kStart), Kept(1)).ok());
  ASSERT_TRUE(store().Claim("w", kStart, kLease, {}).ok());
  const absl::Status error = absl::ResourceExhaustedError("too big");
  ASSERT_TRUE(
      store().Finish(1, "a", "w", Result(ValidationState::kFailed, error, "ignored"), kStart).ok());
  absl::StatusOr<ValidationRecord> failed = store().Get(1, "a", /*with_report=*/true);
  ASSERT_TRUE(failed.ok());
  EXPECT_EQ(failed->state, ValidationState::kFailed);
  EXPECT_EQ(failed->error, error);
  EXPECT_TRUE(failed->report.empty());
}

TEST_P(ValidationStoreTest, CancellingEndsQueuedAtOnceAndTellsTheRunningWorker) {
  AddSession(1);
  ASSERT_TRUE(store().Insert(Queued(1, "running", kStart), Kept(1)).ok());
  ASSERT_TRUE(store().Insert(Queued(1, "queued", kStart + absl::Seconds(1)), Kept(1)).ok());
  ASSERT_TRUE(store().Claim("w1", kStart, kLease, {}).ok());
  const absl::Status reason = absl::CancelledError("the validation was cancelled");

  absl::StatusOr<ValidationRecord> queued = store().RequestCancel(1, "queued", reason, "", kStart);
  ASSERT_TRUE(queued.ok());
  EXPECT_EQ(queued->state, ValidationState::kCancelled);
  EXPECT_EQ(queued->error, reason);
  EXPECT_EQ(store().CountQueued("")->all, 0);

  absl::StatusOr<ValidationRecord> running =
      store().RequestCancel(1, "running", reason, "", kStart);
  ASSERT_TRUE(running.ok());
  EXPECT_EQ(running->state, ValidationState::kRunning);
  EXPECT_TRUE(running->cancel_requested);
  absl::StatusOr<LeaseRenewal> renewal = store().Renew(1, "running", "w1", kStart, kLease, "");
  ASSERT_TRUE(renewal.ok());
  EXPECT_TRUE(renewal->cancel_requested);
  EXPECT_TRUE(absl::IsNotFound(store().RequestCancel(1, "unknown", reason, "", kStart).status()));
}

TEST_P(ValidationStoreTest, ReleaseHandsRunningWorkBack) {
  AddSession(1);
  ASSERT_TRUE(store().Insert(Queued(1, "a", kStart), Kept(1)).ok());
  ASSERT_TRUE(store().Claim("stopping", kStart, kLease, {}).ok());
  ASSERT_TRUE(store().Release("stopping").ok());
  EXPECT_EQ(store().Get(1, "a", false)->state, ValidationState::kQueued);
  absl::StatusOr<std::optional<ValidationRecord>> again = store().Claim("w2", kStart, kLease, {});
  ASSERT_TRUE(again.ok() && again->has_value());
  EXPECT_EQ((*again)->attempts, 2);
}

TEST_P(ValidationStoreTest, ListsNewestFirstInPagesAndByState) {
  AddSession(1);
  AddSession(2);
  for (int i = 0; i < 5; ++i) {
    ASSERT_TRUE(
        store().Insert(Queued(1, absl::StrCat("v", i), kStart + absl::Seconds(i)), Kept(1)).ok());
  }
  ASSERT_TRUE(store().Insert(Queued(2, "other-session", kStart), Kept(2)).ok());
  ASSERT_TRUE(store().Claim("w", kStart, kLease, {}).ok());  // v0

  EXPECT_EQ(IdsOf(store(), OfSession(1)), (std::vector<std::string>{"v4", "v3", "v2", "v1", "v0"}));
  EXPECT_EQ(IdsOf(store(), OfSession(1, ValidationOrder::kOldestFirst), 3),
            (std::vector<std::string>{"v0", "v1", "v2", "v3", "v4"}));
  EXPECT_EQ(IdsOf(store(), OfOwner("alice"), 4),
            // Created at the same time as v0, later by key.
            (std::vector<std::string>{"v4", "v3", "v2", "v1", "other-session", "v0"}));
  EXPECT_TRUE(IdsOf(store(), OfOwner("bob")).empty());
  EXPECT_EQ(IdsOf(store(), OfSession(1, ValidationOrder::kNewestFirst, ValidationState::kRunning)),
            (std::vector<std::string>{"v0"}));

  absl::StatusOr<ValidationStore::Counts> counts = store().CountAll(kStart);
  ASSERT_TRUE(counts.ok()) << counts.status();
  EXPECT_EQ(counts->by_state[static_cast<int>(ValidationState::kQueued)], 5);
  EXPECT_EQ(counts->by_state[static_cast<int>(ValidationState::kRunning)], 1);
  EXPECT_EQ(counts->leases_held, 1);
  EXPECT_EQ(store().CountAll(kStart + kLease)->leases_held, 0);

  // A deleted session's records stay, its tombstone answers for it, until it is purged.
  ASSERT_TRUE(store().SessionGone(1, RecordedSessionState::kDeleted, "alice", kStart).ok());
  absl::StatusOr<ValidationRecord> kept = store().Get(1, "v3", false);
  ASSERT_TRUE(kept.ok()) << kept.status();
  ASSERT_FALSE(kept->events.empty());
  EXPECT_EQ(kept->events.back().kind, ValidationEventKind::kSessionDelete);
  EXPECT_EQ(kept->events.back().principal, "alice");
  absl::StatusOr<std::optional<RecordedSession>> tombstone = store().FindSession("bench-1");
  ASSERT_TRUE(tombstone.ok() && tombstone->has_value());
  EXPECT_EQ((*tombstone)->state, RecordedSessionState::kDeleted);
  EXPECT_EQ((*tombstone)->summary, "session summary");
  EXPECT_EQ(store().ListTombstones("alice", "", 10)->size(), 1u);
  EXPECT_TRUE(store().ListTombstones("bob", "", 10)->empty());
  ASSERT_TRUE(store().PurgeSession(1).ok());
  EXPECT_TRUE(IdsOf(store(), OfSession(1)).empty());
  EXPECT_FALSE(store().FindSession("bench-1")->has_value());
  EXPECT_TRUE(absl::IsNotFound(store().PurgeSession(1)));
  EXPECT_TRUE(store().Get(2, "other-session", false).ok());
}

// --- SQLite only ---

TEST(SqliteValidationStoreTest, KeepsTheRecordsOfSessionsNotLiveAsTombstones) {
  std::unique_ptr<SqliteValidationStore> store = InMemory();
  for (int i = 0; i < 5; ++i)
    ASSERT_TRUE(store->Insert(Queued(1, absl::StrCat("v", i), kStart), Kept(1)).ok());
  ASSERT_TRUE(store->Insert(Queued(2, "other-session", kStart), Kept(2)).ok());
  // A sweep that began before the records were created may have read the live keys before their
  // sessions existed: they wait for the next sweep.
  EXPECT_EQ(store->SessionsExpired({2}, kStart).value(), 0);
  absl::StatusOr<int64_t> expired = store->SessionsExpired({2}, kStart + absl::Seconds(1));
  ASSERT_TRUE(expired.ok()) << expired.status();
  EXPECT_EQ(*expired, 1);
  EXPECT_EQ(store->SessionsExpired({2}, kStart + absl::Seconds(1)).value(), 0);
  EXPECT_EQ(IdsOf(*store, OfSession(1)).size(), 5u);
  EXPECT_EQ(store->Get(1, "v0", false)->events.back().kind, ValidationEventKind::kSessionExpire);
  EXPECT_EQ(store->FindSession("bench-1").value()->state, RecordedSessionState::kExpired);
  EXPECT_EQ(store->FindSession("bench-2").value()->state, RecordedSessionState::kActive);
}

TEST(SqliteValidationStoreTest, AFileKeepsReportsAndRequeuesWhatRanWhenItWasClosed) {
  test_support::ScratchDir dir("validations");
  {
    absl::StatusOr<std::unique_ptr<SqliteValidationStore>> store =
        SqliteValidationStore::Open(dir.root().string());
    ASSERT_TRUE(store.ok()) << store.status();
    ASSERT_TRUE((*store)->Insert(Queued(1, "done", kStart), Kept(1)).ok());
    ASSERT_TRUE((*store)->Insert(Queued(1, "cut-off", kStart + absl::Seconds(1)), Kept(1)).ok());
    ASSERT_TRUE((*store)->Claim("w", kStart, kLease, {}).ok());
    ASSERT_TRUE((*store)
                    ->Finish(1, "done", "w",
                             Result(ValidationState::kSucceeded, absl::OkStatus(), "kept"), kStart)
                    .ok());
    ASSERT_TRUE((*store)->Claim("w", kStart, kLease, {}).ok());
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

// --- PostgreSQL only: replicas, each with its own pool, sharing one database ---

class PostgresReplicasTest : public ::testing::Test {
 protected:
  struct Replica {
    explicit Replica(const std::string& url, postgres::TransactionOptions options = {})
        : pool(url, 2), store(pool, options) {}
    postgres::Pool pool;
    PostgresValidationStore store;
  };

  void SetUp() override {
    url_ = NewPostgresDatabase();
    ASSERT_FALSE(url_.empty());
  }

  std::string url_;
};

TEST_F(PostgresReplicasTest, RacingReplicasClaimEachValidationExactlyOnce) {
  constexpr int kValidations = 50;
  Replica a(url_), b(url_);
  AddPostgresSession(a.pool, 1);
  for (int i = 0; i < kValidations; ++i) {
    ASSERT_TRUE(
        a.store.Insert(Queued(1, absl::StrCat("v", i), kStart + absl::Seconds(i)), Kept(1)).ok());
  }
  std::vector<std::string> claimed[2];
  absl::Status errors[2];
  std::latch start(2);
  const auto run = [&](int replica, PostgresValidationStore& store) {
    const std::string worker = absl::StrCat("replica", replica);
    start.arrive_and_wait();
    for (;;) {
      absl::StatusOr<std::optional<ValidationRecord>> next =
          store.Claim(worker, kStart, kLease, {});
      if (!next.ok()) {
        errors[replica] = next.status();
        return;
      }
      if (!next->has_value()) return;
      claimed[replica].push_back((*next)->id);
    }
  };
  std::thread first(run, 0, std::ref(a.store));
  std::thread second(run, 1, std::ref(b.store));
  first.join();
  second.join();
  EXPECT_TRUE(errors[0].ok()) << errors[0];
  EXPECT_TRUE(errors[1].ok()) << errors[1];
  std::map<std::string, int> times;
  for (const std::vector<std::string>& ids : claimed) {
    for (const std::string& id : ids) ++times[id];
  }
  EXPECT_EQ(times.size(), static_cast<size_t>(kValidations));
  for (const auto& [id, count] : times) EXPECT_EQ(count, 1) << id;
  absl::StatusOr<ValidationStore::Counts> counts = b.store.CountAll(kStart);
  ASSERT_TRUE(counts.ok()) << counts.status();
  EXPECT_EQ(counts->by_state[static_cast<int>(ValidationState::kRunning)], kValidations);
  EXPECT_EQ(counts->leases_held, kValidations);
  EXPECT_FALSE(a.store.Claim("replica0", kStart, kLease, {})->has_value());
  // Both get some, unless one was much faster: reported rather than failed on a slow machine.
  RecordProperty("claimed_by_replica0", static_cast<int>(claimed[0].size()));
  RecordProperty("claimed_by_replica1", static_cast<int>(claimed[1].size()));
}

TEST_F(PostgresReplicasTest, AnExpiredLeaseGoesToTheOtherReplica) {
  Replica a(url_), b(url_);
  AddPostgresSession(a.pool, 1);
  ASSERT_TRUE(a.store.Insert(Queued(1, "a", kStart), Kept(1)).ok());
  ASSERT_TRUE(a.store.Claim("a", kStart, kLease, {})->has_value());
  EXPECT_FALSE(b.store.Claim("b", kStart + kLease - absl::Nanoseconds(1), kLease, {})->has_value());
  absl::StatusOr<std::optional<ValidationRecord>> taken =
      b.store.Claim("b", kStart + kLease, kLease, {});
  ASSERT_TRUE(taken.ok() && taken->has_value()) << taken.status();
  EXPECT_EQ((*taken)->attempts, 2);
  EXPECT_EQ((*taken)->lease_owner, "b");
  const absl::Time later = kStart + kLease + absl::Seconds(1);
  EXPECT_TRUE(absl::IsAborted(a.store.Renew(1, "a", "a", later, kLease, "").status()));
  EXPECT_TRUE(absl::IsAborted(a.store.Finish(
      1, "a", "a", Result(ValidationState::kSucceeded, absl::OkStatus(), "stale"), later)));
  ASSERT_TRUE(b.store
                  .Finish(1, "a", "b",
                          Result(ValidationState::kSucceeded, absl::OkStatus(), "fresh"), later)
                  .ok());
  EXPECT_EQ(a.store.Get(1, "a", /*with_report=*/true)->report, "fresh");
  // Even ending it just as the new holder did, the old one is refused.
  EXPECT_TRUE(absl::IsAborted(a.store.Finish(
      1, "a", "a", Result(ValidationState::kSucceeded, absl::OkStatus(), "stale"), later)));
  EXPECT_EQ(a.store.Get(1, "a", /*with_report=*/true)->report, "fresh");
}

TEST_F(PostgresReplicasTest, ValidationsNeedTheirSessionAndOutliveIt) {
  Replica a(url_);
  EXPECT_TRUE(absl::IsNotFound(a.store.Insert(Queued(7, "a", kStart), Kept(7))));
  AddPostgresSession(a.pool, 7);
  ASSERT_TRUE(a.store.Insert(Queued(7, "a", kStart), Kept(7)).ok());
  // The shared sessions table, not this replica's live keys, says which sessions expired.
  EXPECT_EQ(a.store.SessionsExpired({}, kStart).value(), 0);
  EXPECT_TRUE(a.store.Get(7, "a", false).ok());
  const absl::Status deleted = postgres::RunTransaction(a.pool, "deleting", [](auto& c) {
    return c.Exec("DELETE FROM sessions WHERE key = 7", "deleting").status();
  });
  ASSERT_TRUE(deleted.ok()) << deleted;
  EXPECT_EQ(a.store.SessionsExpired({7}, kStart).value(), 1);
  absl::StatusOr<ValidationRecord> kept = a.store.Get(7, "a", false);
  ASSERT_TRUE(kept.ok()) << kept.status();
  EXPECT_EQ(kept->events.back().kind, ValidationEventKind::kSessionExpire);
  EXPECT_EQ(a.store.FindSession("bench-7").value()->state, RecordedSessionState::kExpired);
}

TEST_F(PostgresReplicasTest, AStoppedDatabaseIsUnavailableUntilItIsBack) {
  postgres::TransactionOptions options;
  options.acquire_wait = absl::Seconds(1);
  Replica a(url_, options);
  AddPostgresSession(a.pool, 1);
  ASSERT_TRUE(a.store.Insert(Queued(1, "a", kStart), Kept(1)).ok());
  ASSERT_TRUE(postgres::server->Stop());
  const absl::StatusOr<ValidationRecord> get = a.store.Get(1, "a", false);
  EXPECT_TRUE(absl::IsUnavailable(get.status())) << get.status();
  postgres::ExpectRedacted(get.status());
  const absl::StatusOr<std::optional<ValidationRecord>> claim =
      a.store.Claim("a", kStart, kLease, {});
  EXPECT_TRUE(absl::IsUnavailable(claim.status())) << claim.status();
  ASSERT_TRUE(postgres::server->Start());
  EXPECT_EQ(a.store.Get(1, "a", false)->state, ValidationState::kQueued);
  absl::StatusOr<std::optional<ValidationRecord>> claimed = a.store.Claim("a", kStart, kLease, {});
  ASSERT_TRUE(claimed.ok() && claimed->has_value()) << claimed.status();
  EXPECT_EQ((*claimed)->attempts, 1);
}

}  // namespace
}  // namespace wasserwarp::service
