// The session store on its own: limits, byte accounting and idle expiry.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "random_runs.h"
#include "session_protos.h"
#include "sessions/session_store.h"

namespace wasserwarp::service {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

StoredRun RunOf(RunRole role, Series series) {
  StoredRun run;
  run.role = role;
  run.bytes = SampleBytes(static_cast<int64_t>(series.times.size()),
                          static_cast<int64_t>(series.values.size()));
  run.series = std::make_shared<const Series>(std::move(series));
  return run;
}

Series SmallRun(const std::string& id) {
  std::mt19937_64 rng(1);
  return test_data::RandomWalkRun(rng, id, 10, 1);
}

TEST(SessionStoreTest, CreateGetDeleteAndRandomIds) {
  SessionStore store(SessionLimits{});
  absl::StatusOr<v1::Session> created = test_data::AsProto(store.Create("bench", {}));
  ASSERT_TRUE(created.ok());
  EXPECT_EQ(created->name(), "sessions/bench");
  EXPECT_EQ(store.Create("bench", {}).status().code(), absl::StatusCode::kAlreadyExists);
  absl::StatusOr<v1::Session> random = test_data::AsProto(store.Create("", {}));
  ASSERT_TRUE(random.ok());
  EXPECT_THAT(random->name(), ::testing::MatchesRegex("sessions/[0-9a-f]{16}"));
  EXPECT_TRUE(store.Get("bench").ok());
  EXPECT_TRUE(store.Delete("bench").ok());
  EXPECT_EQ(store.Get("bench").status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(store.Delete("bench").code(), absl::StatusCode::kNotFound);
}

TEST(SessionStoreTest, ListsInIdOrderAfterAnId) {
  SessionStore store(SessionLimits{});
  for (const char* id : {"c", "a", "d", "b"}) ASSERT_TRUE(store.Create(id, {}).ok());
  bool more = false;
  std::vector<std::string> names;
  const absl::StatusOr<std::vector<SessionRecord>> listed = store.List("a", 2, more);
  for (const v1::Session& session : test_data::AsProtos(listed.value())) {
    names.push_back(session.name());
  }
  EXPECT_THAT(names, ElementsAre("sessions/b", "sessions/c"));
  EXPECT_TRUE(more);
  EXPECT_EQ(store.List("c", 2, more)->size(), 1u);
  EXPECT_FALSE(more);
}

TEST(SessionStoreTest, CommitCountsBytesAndRefusesDuplicatesPerRole) {
  SessionStore store(SessionLimits{});
  ASSERT_TRUE(store.Create("s", {}).ok());
  absl::StatusOr<SessionRef> ref = store.Open("s");
  ASSERT_TRUE(ref.ok());
  StoredRun run = RunOf(RunRole::kSimulation, SmallRun("r"));
  ASSERT_TRUE(store.Reserve(*ref, run.bytes).ok());
  ASSERT_TRUE(store.Commit(*ref, run).ok());
  EXPECT_EQ(store.total_bytes(), 160);
  EXPECT_EQ(store.CheckNewRun(*ref, RunRole::kSimulation, "r").code(),
            absl::StatusCode::kAlreadyExists);
  EXPECT_TRUE(store.CheckNewRun(*ref, RunRole::kReference, "r").ok());
  EXPECT_EQ(store.Commit(*ref, run).status().code(), absl::StatusCode::kAlreadyExists);
  absl::StatusOr<v1::Session> session = test_data::AsProto(store.Get("s"));
  ASSERT_TRUE(session.ok());
  EXPECT_EQ(session->bytes_held(), 160);
  EXPECT_EQ(session->simulation_run_count(), 1);
  ASSERT_TRUE(store.Delete("s").ok());
  EXPECT_EQ(store.total_bytes(), 0);
}

TEST(SessionStoreTest, ARunsInputsAreShownAndSnapshottedWithIt) {
  SessionStore store(SessionLimits{});
  ASSERT_TRUE(store.Create("s", {}).ok());
  const SessionRef ref = *store.Open("s");
  StoredRun run = RunOf(RunRole::kSimulation, SmallRun("r"));
  run.inputs.parameters = {{"mass", 1200.0}, {"cf", 8e4}};
  run.inputs.trial = "seed-7";
  ASSERT_TRUE(store.Commit(ref, run).ok());
  absl::StatusOr<v1::Session> session = test_data::AsProto(store.Get("s"));
  ASSERT_TRUE(session.ok());
  ASSERT_EQ(session->runs_size(), 1);
  EXPECT_EQ(session->runs(0).parameters().at("mass"), 1200.0);
  EXPECT_EQ(session->runs(0).parameters().at("cf"), 8e4);
  EXPECT_EQ(session->runs(0).trial(), "seed-7");
  absl::StatusOr<SessionSnapshot> snapshot = store.Snapshot("s");
  ASSERT_TRUE(snapshot.ok());
  EXPECT_EQ(snapshot->simulation[0].inputs.parameters, run.inputs.parameters);
  EXPECT_EQ(snapshot->simulation[0].inputs.trial, "seed-7");
  // Held with the run like its header text: each name, 8 bytes a value, the trial.
  EXPECT_EQ(HeaderBytes("r", {"c0"}, run.inputs), 1 + 2 + (4 + 8) + (2 + 8) + 6);
}

TEST(SessionStoreTest, ReservationsCountAgainstSessionAndTotalLimits) {
  SessionLimits limits;
  limits.max_session_bytes = 1000;
  limits.max_total_bytes = 1500;
  SessionStore store(limits);
  ASSERT_TRUE(store.Create("a", {}).ok());
  ASSERT_TRUE(store.Create("b", {}).ok());
  const SessionRef a = *store.Open("a");
  const SessionRef b = *store.Open("b");
  ASSERT_TRUE(store.Reserve(a, 800).ok());
  absl::Status status = store.Reserve(a, 201);
  EXPECT_EQ(status.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(status.message(), HasSubstr("--max_session_bytes=1000"));
  ASSERT_TRUE(store.Reserve(b, 700).ok());
  status = store.Reserve(b, 1);
  EXPECT_EQ(status.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(status.message(), HasSubstr("--max_total_bytes=1500"));
  store.Release(a, 800);
  EXPECT_TRUE(store.Reserve(b, 300).ok());
  // A reservation on a deleted session still counts in the total until released.
  ASSERT_TRUE(store.Delete("b").ok());
  EXPECT_EQ(store.total_bytes(), 1000);
  EXPECT_EQ(store.Reserve(b, 1).code(), absl::StatusCode::kNotFound);
  store.Release(b, 1000);
  EXPECT_EQ(store.total_bytes(), 0);
}

TEST(SessionStoreTest, AReusedIdIsANewInstance) {
  SessionStore store(SessionLimits{});
  ASSERT_TRUE(store.Create("s", {}).ok());
  const SessionRef old_ref = *store.Open("s");
  ASSERT_TRUE(store.Delete("s").ok());
  ASSERT_TRUE(store.Create("s", {}).ok());
  EXPECT_EQ(store.Reserve(old_ref, 8).code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(store.Commit(old_ref, RunOf(RunRole::kReference, SmallRun("r"))).status().code(),
            absl::StatusCode::kNotFound);
}

TEST(SessionStoreTest, LimitsOnSessionsAndRuns) {
  SessionLimits limits;
  limits.max_sessions = 1;
  limits.max_runs_per_session = 1;
  SessionStore store(limits);
  ASSERT_TRUE(store.Create("s", {}).ok());
  absl::Status status = store.Create("t", {}).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(status.message(), HasSubstr("--max_sessions=1"));
  const SessionRef ref = *store.Open("s");
  ASSERT_TRUE(store.Commit(ref, RunOf(RunRole::kReference, SmallRun("r"))).ok());
  status = store.CheckNewRun(ref, RunRole::kSimulation, "q");
  EXPECT_EQ(status.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(status.message(), HasSubstr("--max_runs_per_session=1"));
}

TEST(SessionStoreTest, IdleSessionsExpireAndUseResetsTheClock) {
  SessionLimits limits;
  limits.session_idle_ttl = absl::Hours(1);
  limits.max_sessions = 2;
  SessionStore store(limits);
  SessionSettings short_lived;
  short_lived.idle_ttl = absl::Minutes(1);
  ASSERT_TRUE(store.Create("short", short_lived).ok());
  ASSERT_TRUE(store.Create("long", {}).ok());
  const absl::Time now = absl::Now();
  EXPECT_TRUE(store.ExpireIdle(now).empty());
  EXPECT_THAT(store.ExpireIdle(now + absl::Minutes(2)), ElementsAre("short"));
  EXPECT_EQ(store.Get("short").status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(store.ExpireIdle(now + absl::Hours(2)), ElementsAre("long"));

  // An expired session is gone before any sweep, and frees its slot.
  SessionSettings tiny;
  tiny.idle_ttl = absl::Nanoseconds(1);
  ASSERT_TRUE(store.Create("tiny", tiny).ok());
  ASSERT_TRUE(store.Create("a", {}).ok());
  EXPECT_EQ(store.Get("tiny").status().code(), absl::StatusCode::kNotFound);
  EXPECT_TRUE(store.Create("b", {}).ok());
}

TEST(SessionStoreTest, ALeasedSessionDoesNotExpireUntilTheLeaseEnds) {
  SessionStore store(SessionLimits{});
  SessionSettings short_lived;
  short_lived.idle_ttl = absl::Minutes(1);
  ASSERT_TRUE(store.Create("s", short_lived).ok());
  const SessionRef ref = *store.Open("s");
  StoredRun run = RunOf(RunRole::kReference, SmallRun("r"));
  ASSERT_TRUE(store.Reserve(ref, run.bytes).ok());
  ASSERT_TRUE(store.Commit(ref, run).ok());
  absl::StatusOr<SessionSnapshot> snapshot = store.Snapshot("s");
  ASSERT_TRUE(snapshot.ok());
  // A validation queued or running past the TTL keeps its session and bytes.
  EXPECT_TRUE(store.ExpireIdle(absl::Now() + absl::Hours(1)).empty());
  EXPECT_TRUE(store.Get("s").ok());
  EXPECT_EQ(store.total_bytes(), 160);
  // Its end is a use: the TTL starts over from there.
  snapshot->lease.Reset();
  EXPECT_TRUE(store.ExpireIdle(absl::Now()).empty());
  EXPECT_THAT(store.ExpireIdle(absl::Now() + absl::Minutes(2)), ElementsAre("s"));
  EXPECT_EQ(store.total_bytes(), 0);
}

TEST(SessionStoreTest, DeletionRemovesALeasedSession) {
  SessionStore store(SessionLimits{});
  ASSERT_TRUE(store.Create("s", {}).ok());
  absl::StatusOr<SessionSnapshot> snapshot = store.Snapshot("s");
  ASSERT_TRUE(snapshot.ok());
  ASSERT_TRUE(store.Delete("s").ok());
  EXPECT_EQ(store.Get("s").status().code(), absl::StatusCode::kNotFound);
  // The old lease ending does not pin or unpin a new session of the same id.
  SessionSettings short_lived;
  short_lived.idle_ttl = absl::Minutes(1);
  ASSERT_TRUE(store.Create("s", short_lived).ok());
  absl::StatusOr<SessionSnapshot> other = store.Snapshot("s");
  ASSERT_TRUE(other.ok());
  snapshot->lease.Reset();
  EXPECT_TRUE(store.ExpireIdle(absl::Now() + absl::Hours(1)).empty());
  other->lease.Reset();
  EXPECT_THAT(store.ExpireIdle(absl::Now() + absl::Hours(1)), ElementsAre("s"));
}

}  // namespace
}  // namespace wasserwarp::service
