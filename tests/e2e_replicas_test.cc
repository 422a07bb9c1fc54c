// Several real `wasserwarp-server` processes on one real PostgreSQL (Debian's, started in a
// scratch directory) behave as one service: a session created through one replica, filled
// through another and validated through a third gives the report one process gives; a
// validation whose replica is killed runs again elsewhere and a watcher on a third replica sees
// it end; replicas refuse a database of another application.
// Over 500 lines: every test needs the same PostgreSQL suite, replica processes and clients.

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "e2e_postgres.h"
#include "e2e_process.h"
#include "process_runner.h"
#include "random_runs.h"
#include "scratch_dir.h"
#include "storage/postgres.h"
#include "validation_client.h"
#include "wasserwarp/report_json.h"
#include "wasserwarp/validation.h"

namespace wasserwarp {
namespace {

using ::testing::HasSubstr;

class E2eReplicasTest : public e2e::PostgresSuite {
 protected:
  std::unique_ptr<e2e::ServerProcess> StartReplica(std::vector<std::string> extra = {}) {
    return e2e::StartReplica(WASSERWARP_SERVER, scratch_.root().string(), postgres_->url(database_),
                             extra);
  }

  static std::unique_ptr<client::ValidationClient> Connect(const e2e::ServerProcess& server) {
    return e2e::Connect(server);
  }

  static std::string Comparable(ValidationReport report) {
    report.seconds = 0.0;
    return ReportToJson(report);
  }

  const test_support::ScratchDir scratch_{"e2e_replicas_"};
};

TEST_F(E2eReplicasTest, ASessionSpreadOverThreeReplicasValidatesAsOneProcessDoes) {
  std::unique_ptr<e2e::ServerProcess> a = StartReplica();
  std::unique_ptr<e2e::ServerProcess> b = StartReplica();
  std::unique_ptr<e2e::ServerProcess> c = StartReplica();
  ASSERT_TRUE(a && b && c);
  std::unique_ptr<client::ValidationClient> on_a = Connect(*a);
  std::unique_ptr<client::ValidationClient> on_b = Connect(*b);
  std::unique_ptr<client::ValidationClient> on_c = Connect(*c);
  const std::vector<Series> sim = test_data::RandomWalkRuns("sim", 5, 60, 140, 2, 21);
  const std::vector<Series> ref = test_data::RandomWalkRuns("ref", 4, 60, 140, 2, 22);

  ASSERT_TRUE(on_a->CreateSession("bench", {}).ok());
  EXPECT_EQ(on_b->CreateSession("bench", {}).status().code(), absl::StatusCode::kAlreadyExists);
  ASSERT_TRUE(on_b->UploadRuns("bench", {sim[0], sim[1], sim[2]}, {}).ok());
  ASSERT_TRUE(on_c->UploadRuns("bench", {sim[3], sim[4]}, ref).ok());
  // A duplicate through another replica than the one that committed it.
  EXPECT_EQ(on_a->UploadRuns("bench", {sim[0]}, {}).status().code(),
            absl::StatusCode::kAlreadyExists);
  absl::StatusOr<v1::Session> seen = on_a->GetSession("bench");
  ASSERT_TRUE(seen.ok()) << seen.status();
  ASSERT_EQ(seen->runs_size(), 9);
  EXPECT_EQ(seen->runs(3).series_id(), "sim3");

  v1::ValidateRequest request;
  request.mutable_verdict()->set_permutations(99);
  absl::StatusOr<ValidationReport> on_three = on_c->Validate("bench", request);
  ASSERT_TRUE(on_three.ok()) << on_three.status() << c->Log();

  // One process, one session, the runs in the same order.
  std::unique_ptr<e2e::ServerProcess> alone;
  {
    absl::StatusOr<std::unique_ptr<e2e::ServerProcess>> started =
        e2e::ServerProcess::Start(WASSERWARP_SERVER, scratch_.root().string(), {});
    ASSERT_TRUE(started.ok());
    alone = *std::move(started);
  }
  std::unique_ptr<client::ValidationClient> single = Connect(*alone);
  ASSERT_TRUE(single->CreateSession("bench", {}).ok());
  ASSERT_TRUE(single->UploadRuns("bench", sim, ref).ok());
  absl::StatusOr<ValidationReport> on_one = single->Validate("bench", request);
  ASSERT_TRUE(on_one.ok());
  EXPECT_EQ(Comparable(*on_three), Comparable(*on_one));
  // And without a verdict, number for number what the embedded engine (the CLI without
  // --server) computes.
  absl::StatusOr<ValidationReport> served = on_b->Validate("bench", v1::ValidateRequest());
  ASSERT_TRUE(served.ok()) << served.status();
  absl::StatusOr<ValidationReport> embedded = Validate(sim, ref, ValidationOptions());
  ASSERT_TRUE(embedded.ok());
  EXPECT_EQ(Comparable(*served), Comparable(*embedded));

  // Listed through the first replica, with the validation that ran on the third.
  absl::StatusOr<std::vector<v1::Session>> listed = on_a->ListSessions();
  ASSERT_TRUE(listed.ok()) << listed.status();
  ASSERT_EQ(listed->size(), 1u);
  EXPECT_EQ((*listed)[0].simulation_run_count(), 5);
  EXPECT_EQ((*listed)[0].reference_run_count(), 4);
  absl::StatusOr<std::vector<v1::Validation>> validations =
      on_a->ListValidations("bench", v1::VALIDATION_STATE_UNSPECIFIED);
  ASSERT_TRUE(validations.ok()) << validations.status();
  ASSERT_EQ(validations->size(), 2u);
  for (const v1::Validation& validation : *validations) {
    EXPECT_EQ(validation.state(), v1::VALIDATION_STATE_SUCCEEDED);
  }

  // Deleted through one replica: a tombstone through every other, which takes no validation,
  // until the tombstone is deleted too.
  ASSERT_TRUE(on_b->DeleteSession("bench").ok());
  EXPECT_EQ(on_a->GetSession("bench")->state(), v1::Session::STATE_DELETED);
  EXPECT_EQ(on_c->Validate("bench", request).status().code(),
            absl::StatusCode::kFailedPrecondition);
  ASSERT_TRUE(on_c->DeleteSession("bench").ok());
  EXPECT_EQ(on_a->GetSession("bench").status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(on_c->Validate("bench", request).status().code(), absl::StatusCode::kNotFound);
  // An open channel holds a stopping server for seconds.
  on_a.reset();
  on_b.reset();
  on_c.reset();
  single.reset();
  for (e2e::ServerProcess* replica : {a.get(), b.get(), c.get()}) {
    EXPECT_EQ(replica->Stop(), 0) << replica->Log();
  }
}

TEST_F(E2eReplicasTest, AKilledReplicasValidationRunsAgainElsewhereAndAWatcherSeesItEnd) {
  std::unique_ptr<e2e::ServerProcess> worker = StartReplica({"--max_concurrent_jobs=1"});
  ASSERT_TRUE(worker);
  std::unique_ptr<client::ValidationClient> on_worker = Connect(*worker);
  ASSERT_TRUE(on_worker->CreateSession("long", {}).ok());
  // About 3e9 DP cells on one thread: seconds, so that the kill comes while it runs.
  ASSERT_TRUE(on_worker
                  ->UploadRuns("long", test_data::RandomWalkRuns("sim", 6, 3000, 3000, 1, 7),
                               test_data::RandomWalkRuns("ref", 6, 3000, 3000, 1, 8))
                  .ok());
  absl::StatusOr<v1::Validation> created = on_worker->CreateValidation("long", {});
  ASSERT_TRUE(created.ok()) << created.status();
  for (const absl::Time give_up = absl::Now() + absl::Seconds(20);;) {
    absl::StatusOr<v1::Validation> now = on_worker->GetValidation(created->name());
    ASSERT_TRUE(now.ok());
    if (now->state() == v1::VALIDATION_STATE_RUNNING) break;
    ASSERT_LT(absl::Now(), give_up) << "it never ran";
    absl::SleepFor(absl::Milliseconds(20));
  }
  kill(worker->pid(), SIGKILL);
  const absl::Time killed = absl::Now();

  std::unique_ptr<e2e::ServerProcess> survivor = StartReplica();
  std::unique_ptr<e2e::ServerProcess> watcher = StartReplica();
  ASSERT_TRUE(survivor && watcher);
  std::unique_ptr<client::ValidationClient> on_watcher = Connect(*watcher);
  absl::StatusOr<v1::Validation> ended = on_watcher->WatchValidation(created->name());
  ASSERT_TRUE(ended.ok()) << ended.status() << survivor->Log();
  EXPECT_EQ(ended->state(), v1::VALIDATION_STATE_SUCCEEDED);
  EXPECT_EQ(ended->attempts(), 2);
  const absl::Duration to_rerun = absl::FromUnixSeconds(ended->start_time().seconds()) +
                                  absl::Nanoseconds(ended->start_time().nanos()) - killed;
  RecordProperty("seconds_from_kill_to_rerun", absl::StrCat(absl::ToDoubleSeconds(to_rerun)));
  EXPECT_LT(to_rerun, absl::Seconds(10));
  EXPECT_THAT(survivor->Log() + watcher->Log(), HasSubstr("(attempt 2)"));

  // Equal to the same validation run once, from the start.
  std::unique_ptr<client::ValidationClient> on_survivor = Connect(*survivor);
  absl::StatusOr<ValidationReport> again = on_survivor->Validate("long", v1::ValidateRequest());
  ASSERT_TRUE(again.ok());
  absl::StatusOr<ValidationReport> rerun = on_watcher->ReportOf(*ended);
  ASSERT_TRUE(rerun.ok());
  EXPECT_EQ(Comparable(*rerun), Comparable(*again));
  on_survivor.reset();
  on_watcher.reset();
  EXPECT_EQ(survivor->Stop(), 0);
  EXPECT_EQ(watcher->Stop(), 0);
}

TEST_F(E2eReplicasTest, TwoReplicasRacingOnOneQueueRunEachValidationOnce) {
  std::unique_ptr<e2e::ServerProcess> a = StartReplica();
  std::unique_ptr<e2e::ServerProcess> b = StartReplica();
  ASSERT_TRUE(a && b);
  std::unique_ptr<client::ValidationClient> on_a = Connect(*a);
  std::unique_ptr<client::ValidationClient> on_b = Connect(*b);
  ASSERT_TRUE(on_a->CreateSession("race", {}).ok());
  ASSERT_TRUE(on_b->UploadRuns("race", test_data::RandomWalkRuns("sim", 3, 200, 300, 1, 31),
                               test_data::RandomWalkRuns("ref", 3, 200, 300, 1, 32))
                  .ok());
  std::vector<std::string> names;
  for (int i = 0; i < 12; ++i) {
    v1::ValidateRequest request;
    request.mutable_verdict()->set_permutations(199);
    request.mutable_verdict()->set_seed(static_cast<uint64_t>(i));
    absl::StatusOr<v1::Validation> created =
        (i % 2 == 0 ? on_a : on_b)->CreateValidation("race", request);
    ASSERT_TRUE(created.ok()) << created.status();
    names.push_back(created->name());
  }
  for (const std::string& name : names) {
    absl::StatusOr<v1::Validation> ended = on_a->WatchValidation(name);
    ASSERT_TRUE(ended.ok()) << ended.status();
    EXPECT_EQ(ended->state(), v1::VALIDATION_STATE_SUCCEEDED) << name;
    EXPECT_EQ(ended->attempts(), 1) << name;
  }
  absl::StatusOr<std::vector<v1::Validation>> listed =
      on_b->ListValidations("race", v1::VALIDATION_STATE_UNSPECIFIED);
  ASSERT_TRUE(listed.ok());
  std::vector<std::string> listed_names;
  for (const v1::Validation& validation : *listed) listed_names.push_back(validation.name());
  // Newest first, each once.
  std::vector<std::string> expected(names.rbegin(), names.rend());
  EXPECT_EQ(listed_names, expected);
  // Both replicas took work from the queue.
  EXPECT_THAT(a->Log(), HasSubstr("job 1 start"));
  EXPECT_THAT(b->Log(), HasSubstr("job 1 start"));
  on_a.reset();
  on_b.reset();
  EXPECT_EQ(a->Stop(), 0);
  EXPECT_EQ(b->Stop(), 0);
}

TEST_F(E2eReplicasTest, QuotasHoldForTheReplicasTogether) {
  std::unique_ptr<e2e::ServerProcess> a = StartReplica({"--max_sessions=2"});
  std::unique_ptr<e2e::ServerProcess> b = StartReplica({"--max_sessions=2"});
  ASSERT_TRUE(a && b);
  std::unique_ptr<client::ValidationClient> on_a = Connect(*a);
  std::unique_ptr<client::ValidationClient> on_b = Connect(*b);
  ASSERT_TRUE(on_a->CreateSession("one", {}).ok());
  ASSERT_TRUE(on_b->CreateSession("two", {}).ok());
  absl::StatusOr<v1::Session> third = on_a->CreateSession("three", {});
  EXPECT_EQ(third.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(third.status().message(), HasSubstr("--max_sessions=2"));
  ASSERT_TRUE(on_a->DeleteSession("two").ok());
  EXPECT_TRUE(on_b->CreateSession("three", {}).ok());
  on_a.reset();
  on_b.reset();
  EXPECT_EQ(a->Stop(), 0);
  EXPECT_EQ(b->Stop(), 0);
}

TEST_F(E2eReplicasTest, SigtermHandsRunningWorkBackToTheQueue) {
  std::unique_ptr<e2e::ServerProcess> leaving =
      StartReplica({"--shutdown_grace=0s", "--max_concurrent_jobs=1"});
  ASSERT_TRUE(leaving);
  std::unique_ptr<client::ValidationClient> on_leaving = Connect(*leaving);
  ASSERT_TRUE(on_leaving->CreateSession("long", {}).ok());
  ASSERT_TRUE(on_leaving
                  ->UploadRuns("long", test_data::RandomWalkRuns("sim", 6, 3000, 3000, 1, 7),
                               test_data::RandomWalkRuns("ref", 6, 3000, 3000, 1, 8))
                  .ok());
  absl::StatusOr<v1::Validation> created = on_leaving->CreateValidation("long", {});
  ASSERT_TRUE(created.ok());
  for (const absl::Time give_up = absl::Now() + absl::Seconds(20);;) {
    absl::StatusOr<v1::Validation> now = on_leaving->GetValidation(created->name());
    ASSERT_TRUE(now.ok());
    if (now->state() == v1::VALIDATION_STATE_RUNNING) break;
    ASSERT_LT(absl::Now(), give_up);
    absl::SleepFor(absl::Milliseconds(20));
  }
  on_leaving.reset();
  EXPECT_EQ(leaving->Stop(), 0) << leaving->Log();

  std::unique_ptr<e2e::ServerProcess> staying = StartReplica();
  ASSERT_TRUE(staying);
  std::unique_ptr<client::ValidationClient> on_staying = Connect(*staying);
  absl::StatusOr<v1::Validation> queued = on_staying->GetValidation(created->name());
  ASSERT_TRUE(queued.ok());
  absl::StatusOr<v1::Validation> ended = on_staying->WatchValidation(created->name());
  ASSERT_TRUE(ended.ok()) << ended.status();
  EXPECT_EQ(ended->state(), v1::VALIDATION_STATE_SUCCEEDED);
  EXPECT_EQ(ended->attempts(), 2);
  on_staying.reset();
  EXPECT_EQ(staying->Stop(), 0);
}

TEST_F(E2eReplicasTest, ADatabaseRestartLosesNoAcknowledgedRunAndCallsSucceedOnRetry) {
  std::unique_ptr<e2e::ServerProcess> replica = StartReplica();
  ASSERT_TRUE(replica);
  std::unique_ptr<client::ValidationClient> client = Connect(*replica);
  ASSERT_TRUE(client->CreateSession("bench", {}).ok());
  const std::vector<Series> runs = test_data::RandomWalkRuns("run", 40, 500, 2000, 2, 41);
  std::vector<std::string> acknowledged;
  int unavailable = 0;
  bool restarted = false;
  for (size_t i = 0; i < runs.size(); ++i) {
    if (i == runs.size() / 2) {
      ASSERT_TRUE(postgres_->Stop());
      restarted = true;
    }
    for (int attempt = 0;; ++attempt) {
      absl::StatusOr<v1::UploadSeriesResponse> uploaded = client->UploadRuns(
          "bench", i % 2 == 0 ? std::vector<Series>{runs[i]} : std::vector<Series>{},
          i % 2 == 0 ? std::vector<Series>{} : std::vector<Series>{runs[i]});
      if (uploaded.ok()) {
        acknowledged.push_back(runs[i].id);
        break;
      }
      ASSERT_EQ(uploaded.status().code(), absl::StatusCode::kUnavailable) << uploaded.status();
      ++unavailable;
      if (restarted && unavailable == 2) ASSERT_TRUE(postgres_->Start());
      ASSERT_LT(attempt, 100) << "never succeeded on retry";
      absl::SleepFor(absl::Milliseconds(100));
    }
  }
  EXPECT_GE(unavailable, 2);
  absl::StatusOr<v1::Session> session = client->GetSession("bench");
  ASSERT_TRUE(session.ok()) << session.status();
  ASSERT_EQ(session->runs_size(), static_cast<int>(runs.size()));
  for (int i = 0; i < session->runs_size(); ++i) {
    EXPECT_EQ(session->runs(i).series_id(), acknowledged[i]);
    EXPECT_EQ(session->runs(i).samples(), static_cast<int64_t>(runs[i].samples()));
  }
  // A second replica, started after the restart, sees the same.
  std::unique_ptr<e2e::ServerProcess> other = StartReplica();
  ASSERT_TRUE(other);
  absl::StatusOr<v1::Session> seen = Connect(*other)->GetSession("bench");
  ASSERT_TRUE(seen.ok());
  EXPECT_EQ(seen->runs_size(), session->runs_size());
  absl::StatusOr<ValidationReport> report = client->Validate("bench", v1::ValidateRequest());
  EXPECT_TRUE(report.ok()) << report.status();
  client.reset();
  EXPECT_EQ(replica->Stop(), 0) << replica->Log();
  EXPECT_EQ(other->Stop(), 0);
}

TEST_F(E2eReplicasTest, OneReplicasSweepSparesASessionWhoseValidationRunsOnAnother) {
  std::unique_ptr<e2e::ServerProcess> runner = StartReplica({"--max_concurrent_jobs=1"});
  std::unique_ptr<e2e::ServerProcess> sweeper = StartReplica({"--session_sweep_interval=200ms"});
  ASSERT_TRUE(runner && sweeper);
  std::unique_ptr<client::ValidationClient> on_runner = Connect(*runner);
  v1::Session settings;
  settings.mutable_idle_ttl()->set_seconds(1);
  ASSERT_TRUE(on_runner->CreateSession("brief", settings).ok());
  // About 6.5e10 DP cells, every pair (the lazy transport could prove most irrelevant): far
  // longer than the test waits, on any machine, until the test cancels it.
  ASSERT_TRUE(on_runner
                  ->UploadRuns("brief", test_data::RandomWalkRuns("sim", 32, 8000, 8000, 1, 51),
                               test_data::RandomWalkRuns("ref", 32, 8000, 8000, 1, 52))
                  .ok());
  v1::ValidateRequest every_pair;
  every_pair.set_exhaustive(true);
  absl::StatusOr<v1::Validation> created = on_runner->CreateValidation("brief", every_pair);
  ASSERT_TRUE(created.ok()) << created.status();
  absl::StatusOr<service::postgres::Connection> database =
      service::postgres::Connection::Open(postgres_->url(database_));
  ASSERT_TRUE(database.ok());
  // Read in the database, which is no use of the session.
  const auto count = [&](const std::string& sql) -> int64_t {
    absl::StatusOr<service::postgres::Result> rows = database->Exec(sql, "counting");
    return rows.ok() ? rows->GetInt64(0, 0).value_or(-1) : -1;
  };
  const std::string sessions = "SELECT count(*) FROM sessions WHERE id = 'brief'";
  const std::string running = "SELECT count(*) FROM validations WHERE state = 2";
  for (const absl::Time give_up = absl::Now() + absl::Seconds(20); count(running) != 1;) {
    ASSERT_LT(absl::Now(), give_up) << "it never ran";
    absl::SleepFor(absl::Milliseconds(20));
  }
  // Past the TTL and the sweeps' allowance for clock skew (5 s), with a sweep every 200 ms.
  for (const absl::Time until = absl::Now() + absl::Seconds(7); absl::Now() < until;) {
    ASSERT_EQ(count(sessions), 1) << "swept while its validation ran";
    absl::SleepFor(absl::Milliseconds(100));
  }
  ASSERT_EQ(count(running), 1);
  absl::StatusOr<v1::Validation> cancelled = on_runner->CancelValidation(created->name());
  ASSERT_TRUE(cancelled.ok());
  for (const absl::Time give_up = absl::Now() + absl::Seconds(20); count(running) != 0;) {
    ASSERT_LT(absl::Now(), give_up) << "the cancelled job never stopped";
    absl::SleepFor(absl::Milliseconds(20));
  }
  const absl::Time ended = absl::Now();
  // The TTL runs from the validation's end: swept once, some seconds later.
  EXPECT_EQ(count(sessions), 1);
  for (const absl::Time give_up = absl::Now() + absl::Seconds(30); count(sessions) == 1;) {
    ASSERT_LT(absl::Now(), give_up) << "never swept";
    absl::SleepFor(absl::Milliseconds(100));
  }
  EXPECT_GE(absl::Now() - ended, absl::Seconds(1));
  EXPECT_EQ(count(sessions), 0);
  on_runner.reset();
  EXPECT_EQ(runner->Stop(), 0);
  EXPECT_EQ(sweeper->Stop(), 0);
}

TEST_F(E2eReplicasTest, RecordsOutliveTheirSessionsAndAnotherReplicaReadsThem) {
  std::unique_ptr<e2e::ServerProcess> a = StartReplica({"--session_sweep_interval=200ms"});
  std::unique_ptr<e2e::ServerProcess> b = StartReplica({"--session_sweep_interval=200ms"});
  ASSERT_TRUE(a && b);
  std::unique_ptr<client::ValidationClient> on_a = Connect(*a);
  std::unique_ptr<client::ValidationClient> on_b = Connect(*b);
  v1::Session brief;
  brief.mutable_idle_ttl()->set_seconds(1);
  v1::ValidateRequest request;
  (*request.mutable_labels())["model"] = "vdyn";
  request.mutable_verdict()->set_permutations(19);
  request.mutable_verdict()->set_max_distance(1e12);
  std::vector<std::string> names;
  for (const std::string session : {"expiring", "deleted"}) {
    ASSERT_TRUE(on_a->CreateSession(session, session == "expiring" ? brief : v1::Session()).ok());
    ASSERT_TRUE(on_a->UploadRuns(session, test_data::RandomWalkRuns("sim", 3, 40, 90, 2, 61),
                                 test_data::RandomWalkRuns("ref", 3, 40, 90, 2, 62))
                    .ok());
    absl::StatusOr<v1::Validation> created = on_a->CreateValidation(session, request);
    ASSERT_TRUE(created.ok()) << created.status();
    ASSERT_TRUE(on_a->WatchValidation(created->name()).ok());
    names.push_back(created->name());
  }
  ASSERT_TRUE(on_a->DeleteSession("deleted").ok());
  // Past the TTL and the sweeps' allowance for clock skew (5 s).
  absl::StatusOr<v1::Session> expired;
  for (const absl::Time give_up = absl::Now() + absl::Seconds(30);;) {
    expired = on_b->GetSession("expiring");
    if (expired.ok() && expired->state() == v1::Session::STATE_EXPIRED) break;
    ASSERT_LT(absl::Now(), give_up) << "never expired";
    absl::SleepFor(absl::Milliseconds(200));
  }
  EXPECT_EQ(on_b->GetSession("deleted")->state(), v1::Session::STATE_DELETED);
  for (size_t i = 0; i < names.size(); ++i) {
    absl::StatusOr<v1::Validation> record = on_b->GetValidation(names[i]);
    ASSERT_TRUE(record.ok()) << record.status();
    EXPECT_EQ(record->state(), v1::VALIDATION_STATE_SUCCEEDED);
    EXPECT_TRUE(record->has_report());
    EXPECT_EQ(record->labels().at("model"), "vdyn");
    EXPECT_FALSE(record->engine().version().empty());
    EXPECT_TRUE(record->outcome().passed());
    ASSERT_GT(record->events_size(), 0);
    EXPECT_EQ(record->events(record->events_size() - 1).kind(),
              i == 0 ? v1::ValidationEvent::KIND_SESSION_EXPIRE
                     : v1::ValidationEvent::KIND_SESSION_DELETE);
    EXPECT_EQ(record->events(1).kind(), v1::ValidationEvent::KIND_START);
    EXPECT_FALSE(record->events(1).replica().empty());
  }
  client::ValidationQuery by_label;
  by_label.filter = "labels.model = vdyn";
  absl::StatusOr<std::vector<v1::Validation>> found = on_b->ListValidations(by_label);
  ASSERT_TRUE(found.ok()) << found.status();
  EXPECT_EQ(found->size(), 2u);
  on_a.reset();
  on_b.reset();
  EXPECT_EQ(a->Stop(), 0);
  EXPECT_EQ(b->Stop(), 0);
}

TEST_F(E2eReplicasTest, APrincipalsSessionsArePrivateOnEveryReplica) {
  test_support::WriteFile(scratch_.root() / "tokens", "alice:tok-alice\nbob:tok-bob\n");
  const std::string tokens = (scratch_.root() / "tokens").string();
  std::unique_ptr<e2e::ServerProcess> a = StartReplica({"--auth_tokens_file", tokens});
  std::unique_ptr<e2e::ServerProcess> b = StartReplica({"--auth_tokens_file", tokens});
  ASSERT_TRUE(a && b);
  const auto as = [](const e2e::ServerProcess& server, const std::string& token) {
    client::ClientOptions options;
    options.token = token;
    absl::StatusOr<std::unique_ptr<client::ValidationClient>> connected =
        client::ValidationClient::Connect(server.address(), options);
    EXPECT_TRUE(connected.ok()) << connected.status();
    return connected.ok() ? *std::move(connected) : nullptr;
  };
  std::unique_ptr<client::ValidationClient> alice_on_a = as(*a, "tok-alice");
  std::unique_ptr<client::ValidationClient> alice_on_b = as(*b, "tok-alice");
  std::unique_ptr<client::ValidationClient> bob_on_b = as(*b, "tok-bob");
  ASSERT_TRUE(alice_on_a->CreateSession("rig", {}).ok());
  EXPECT_TRUE(alice_on_b->GetSession("rig").ok());
  // To bob the session does not exist, and its id is taken all the same.
  EXPECT_EQ(bob_on_b->GetSession("rig").status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(bob_on_b->DeleteSession("rig").code(), absl::StatusCode::kNotFound);
  absl::StatusOr<std::vector<v1::Session>> bobs = bob_on_b->ListSessions();
  ASSERT_TRUE(bobs.ok());
  EXPECT_TRUE(bobs->empty());
  EXPECT_EQ(bob_on_b->CreateSession("rig", {}).status().code(), absl::StatusCode::kAlreadyExists);
  alice_on_a.reset();
  alice_on_b.reset();
  bob_on_b.reset();
  EXPECT_EQ(a->Stop(), 0);
  EXPECT_EQ(b->Stop(), 0);
}

TEST_F(E2eReplicasTest, ADatabaseOfAnotherApplicationIsRefusedWithExitStatus2) {
  absl::StatusOr<service::postgres::Connection> connection =
      service::postgres::Connection::Open(postgres_->url(database_));
  ASSERT_TRUE(connection.ok());
  ASSERT_TRUE(connection->Exec("CREATE TABLE invoices (id int)", "setting up").ok());
  const test_support::ProgramResult result = test_support::RunProgram(
      WASSERWARP_SERVER,
      {"--listen", "127.0.0.1:0", "--postgres_url", postgres_->url(database_, "hunter2")},
      scratch_.root());
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_THAT(result.err, HasSubstr(database_));
  EXPECT_THAT(result.err, ::testing::Not(HasSubstr("hunter2")));
}

}  // namespace
}  // namespace wasserwarp
