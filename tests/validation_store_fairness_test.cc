// The validation store's claims between owners (issue 40), on both backends: the owner with the
// fewest running validations goes first, ties to the one that started one least recently, so
// that one owner's long queue keeps nobody else waiting for more than one of its validations;
// --max_running_jobs_per_principal holds an owner back; and the replicas that lost a
// validation are kept, one per expired lease, for --max_attempts.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "validation_store_fixture.h"

namespace wasserwarp::service {
namespace {

using store_test::Kept;
using store_test::kLease;
using store_test::kStart;
using store_test::Queued;
using store_test::Result;
using store_test::ValidationStoreTest;
using ::testing::ElementsAre;
using ::testing::IsEmpty;

ValidationRecord QueuedBy(const std::string& owner, int64_t session_key, const std::string& id,
                          absl::Time created) {
  ValidationRecord record = Queued(session_key, id, created);
  record.owner = owner;
  return record;
}

// The id of what `worker` claims at `now`; "" when nothing is claimable.
std::string ClaimId(ValidationStore& store, const std::string& worker, absl::Time now,
                    const ClaimLimits& limits = {}) {
  absl::StatusOr<std::optional<ValidationRecord>> claimed =
      store.Claim(worker, now, kLease, limits);
  EXPECT_TRUE(claimed.ok()) << claimed.status();
  if (!claimed.ok() || !claimed->has_value()) return "";
  return (*claimed)->id;
}

void FinishOk(ValidationStore& store, const std::string& id, const std::string& worker,
              absl::Time now) {
  ASSERT_TRUE(
      store.Finish(1, id, worker, Result(ValidationState::kSucceeded, absl::OkStatus(), "r"), now)
          .ok());
}

TEST_P(ValidationStoreTest, AnotherOwnersValidationWaitsForAtMostOneOfAQueueAhead) {
  AddSession(1);
  for (int i = 0; i < 10; ++i) {
    ASSERT_TRUE(
        store()
            .Insert(QueuedBy("alice", 1, absl::StrCat("a", i), kStart + absl::Seconds(i)), Kept(1))
            .ok());
  }
  // One slot: alice's first runs when bob queues his one validation behind her nine.
  EXPECT_EQ(ClaimId(store(), "w", kStart + absl::Seconds(10)), "a0");
  ASSERT_TRUE(store().Insert(QueuedBy("bob", 1, "b0", kStart + absl::Seconds(11)), Kept(1)).ok());
  EXPECT_EQ(store().CountQueued("bob")->of_owner, 1);
  EXPECT_EQ(store().CountQueued("bob")->all, 10);
  FinishOk(store(), "a0", "w", kStart + absl::Seconds(12));
  // Neither runs anything now: bob never started one, alice did.
  EXPECT_EQ(ClaimId(store(), "w", kStart + absl::Seconds(13)), "b0");
  FinishOk(store(), "b0", "w", kStart + absl::Seconds(14));
  EXPECT_EQ(ClaimId(store(), "w", kStart + absl::Seconds(15)), "a1");
}

TEST_P(ValidationStoreTest, TheOwnerWithFewerRunningGoesFirstAndALimitHoldsOneBack) {
  AddSession(1);
  for (const char* id : {"a0", "a1", "a2"}) {
    ASSERT_TRUE(store().Insert(QueuedBy("alice", 1, id, kStart), Kept(1)).ok());
  }
  ASSERT_TRUE(store().Insert(QueuedBy("bob", 1, "b0", kStart + absl::Seconds(1)), Kept(1)).ok());
  ASSERT_TRUE(store().Insert(QueuedBy("bob", 1, "b1", kStart + absl::Seconds(1)), Kept(1)).ok());
  const ClaimLimits one_each{.max_running_per_owner = 1};
  // Two slots: one each, whatever the order they were queued in.
  EXPECT_EQ(ClaimId(store(), "w1", kStart, one_each), "a0");
  EXPECT_EQ(ClaimId(store(), "w2", kStart, one_each), "b0");
  // Both are at the limit: a third slot stays free.
  EXPECT_EQ(ClaimId(store(), "w3", kStart, one_each), "");
  // Without the limit, the one whose last start is older goes first.
  EXPECT_EQ(ClaimId(store(), "w3", kStart + absl::Seconds(1)), "a1");
}

TEST_P(ValidationStoreTest, EachExpiredLeaseAddsItsHolderToTheLostReplicas) {
  AddSession(1);
  ASSERT_TRUE(store().Insert(Queued(1, "v", kStart), Kept(1)).ok());
  absl::Time now = kStart;
  std::vector<std::string> lost;
  for (const char* replica : {"replica-1", "replica-2", "replica-3"}) {
    absl::StatusOr<std::optional<ValidationRecord>> claimed =
        store().Claim(replica, now, kLease, {});
    ASSERT_TRUE(claimed.ok() && claimed->has_value()) << claimed.status();
    EXPECT_EQ((*claimed)->lost_replicas, lost);
    lost.emplace_back(replica);
    now += kLease;
  }
  absl::StatusOr<std::optional<ValidationRecord>> fourth =
      store().Claim("replica-4", now, kLease, {});
  ASSERT_TRUE(fourth.ok() && fourth->has_value());
  EXPECT_THAT((*fourth)->lost_replicas, ElementsAre("replica-1", "replica-2", "replica-3"));
  EXPECT_EQ((*fourth)->attempts, 4);
  EXPECT_THAT(store().Get(1, "v", false)->lost_replicas,
              ElementsAre("replica-1", "replica-2", "replica-3"));
  // A replica that shuts down hands its validation back: it did not lose it.
  ASSERT_TRUE(store().Release("replica-4").ok());
  absl::StatusOr<std::optional<ValidationRecord>> fifth =
      store().Claim("replica-5", now, kLease, {});
  ASSERT_TRUE(fifth.ok() && fifth->has_value());
  EXPECT_EQ((*fifth)->lost_replicas.size(), 3u);
  ASSERT_TRUE(store().Insert(Queued(1, "fresh", kStart), Kept(1)).ok());
  EXPECT_THAT(store().Get(1, "fresh", false)->lost_replicas, IsEmpty());
}

}  // namespace
}  // namespace wasserwarp::service
