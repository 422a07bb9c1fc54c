// Replicas on one real PostgreSQL under many watchers and a database that goes away: 500
// WatchValidation streams on a replica with 8 database connections leave its other calls
// alone and end when their validation ends on another replica (woken by the store's
// notification); one stream more is refused naming --max_watch_streams; the health service says
// NOT_SERVING while the database cannot be reached and SERVING once it can; a password on the
// command line draws a warning.

#include <gmock/gmock.h>
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "e2e_postgres.h"
#include "e2e_process.h"
#include "generic_call.h"
#include "random_runs.h"
#include "scratch_dir.h"
#include "validation_client.h"
#include "wasserwarp/v1/validation.grpc.pb.h"

namespace wasserwarp {
namespace {

using ::testing::HasSubstr;

class E2ePostgresWatchTest : public e2e::PostgresSuite {
 protected:
  std::unique_ptr<e2e::ServerProcess> StartReplica(const std::vector<std::string>& extra,
                                                   const std::string& password = "") {
    return e2e::StartReplica(WASSERWARP_SERVER, scratch_.root().string(),
                             postgres_->url(database_, password), extra);
  }

  const test_support::ScratchDir scratch_{"e2e_pg_watch_"};
};

// One open WatchValidation call.
struct Watch {
  grpc::ClientContext context;
  std::unique_ptr<grpc::ClientReader<v1::WatchValidationResponse>> reader;
};

TEST_F(E2ePostgresWatchTest, FiveHundredWatchersLeaveOtherCallsAloneAndEndWithTheirValidation) {
  constexpr int kStreams = 500;
  std::unique_ptr<e2e::ServerProcess> worker = StartReplica({"--max_concurrent_jobs=1"});
  ASSERT_TRUE(worker);
  std::unique_ptr<client::ValidationClient> on_worker = e2e::Connect(*worker);
  ASSERT_TRUE(on_worker->CreateSession("long", {}).ok());
  // Minutes of DP on one thread: it runs until it is cancelled.
  ASSERT_TRUE(on_worker
                  ->UploadRuns("long", test_data::RandomWalkRuns("sim", 8, 20000, 20000, 1, 7),
                               test_data::RandomWalkRuns("ref", 8, 20000, 20000, 1, 8))
                  .ok());
  absl::StatusOr<v1::Validation> created = on_worker->CreateValidation("long", {});
  ASSERT_TRUE(created.ok()) << created.status();
  ASSERT_TRUE(e2e::WaitUntilRunning(*on_worker, created->name()));

  // Started once the validation runs on the worker, so that it never runs here.
  std::unique_ptr<e2e::ServerProcess> watcher =
      StartReplica({"--postgres_pool_size=8", absl::StrCat("--max_watch_streams=", kStreams),
                    absl::StrCat("--max_watch_streams_per_principal=", kStreams)});
  ASSERT_TRUE(watcher);
  const std::shared_ptr<grpc::Channel> channel =
      grpc::CreateChannel(watcher->address(), grpc::InsecureChannelCredentials());
  const std::unique_ptr<v1::ValidationService::Stub> stub = v1::ValidationService::NewStub(channel);
  v1::WatchValidationRequest request;
  request.set_name(created->name());
  std::vector<std::unique_ptr<Watch>> watches;
  for (int i = 0; i < kStreams; ++i) {
    auto watch = std::make_unique<Watch>();
    watch->reader = stub->WatchValidation(&watch->context, request);
    watches.push_back(std::move(watch));
  }
  // Every stream is open: each has sent its first progress.
  for (std::unique_ptr<Watch>& watch : watches) {
    v1::WatchValidationResponse event;
    ASSERT_TRUE(watch->reader->Read(&event)) << watch->reader->Finish().error_message();
    EXPECT_TRUE(event.has_progress());
  }

  // One more is refused, naming the flag.
  {
    Watch extra;
    extra.reader = stub->WatchValidation(&extra.context, request);
    v1::WatchValidationResponse event;
    EXPECT_FALSE(extra.reader->Read(&event));
    const grpc::Status refused = extra.reader->Finish();
    EXPECT_EQ(refused.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
    EXPECT_THAT(refused.error_message(), HasSubstr("--max_watch_streams="));
  }

  // The watcher's other calls go through while the streams are open.
  std::unique_ptr<client::ValidationClient> on_watcher = e2e::Connect(*watcher);
  for (int i = 0; i < 20; ++i) {
    absl::StatusOr<v1::Validation> seen = on_watcher->GetValidation(created->name());
    ASSERT_TRUE(seen.ok()) << seen.status();
    ASSERT_TRUE(on_watcher->CreateSession(absl::StrCat("other-", i), {}).ok());
    absl::StatusOr<std::vector<v1::Session>> listed = on_watcher->ListSessions();
    ASSERT_TRUE(listed.ok()) << listed.status();
  }

  // It ends on the worker (cancelled, unless it was done already); every watcher here sees the
  // end the store holds.
  const absl::Time cancelled = absl::Now();
  ASSERT_TRUE(on_worker->CancelValidation(created->name()).ok());
  int ended = 0;
  for (std::unique_ptr<Watch>& watch : watches) {
    v1::WatchValidationResponse event;
    v1::WatchValidationResponse last;
    while (watch->reader->Read(&event)) last = event;
    const grpc::Status status = watch->reader->Finish();
    EXPECT_TRUE(status.ok()) << status.error_message();
    if (last.has_validation()) ++ended;
  }
  EXPECT_EQ(ended, kStreams);
  absl::StatusOr<v1::Validation> end = on_worker->GetValidation(created->name());
  ASSERT_TRUE(end.ok()) << end.status();
  EXPECT_EQ(end->state(), v1::VALIDATION_STATE_CANCELLED);
  RecordProperty("seconds_from_cancel_to_every_watch_ended",
                 absl::StrCat(absl::ToDoubleSeconds(absl::Now() - cancelled)));
  EXPECT_THAT(watcher->Log(), ::testing::Not(HasSubstr("UNAVAILABLE")));
  on_watcher.reset();
  on_worker.reset();
  EXPECT_EQ(watcher->Stop(), 0);
  EXPECT_EQ(worker->Stop(), 0);
}

// The health service's answer for the whole server.
std::string Health(const std::shared_ptr<grpc::Channel>& channel) {
  std::string response;
  const grpc::Status status =
      test_support::CallGeneric(channel, "/grpc.health.v1.Health/Check", "", response);
  return status.ok() ? response : status.error_message();
}

std::string HealthOnceSettled(const std::shared_ptr<grpc::Channel>& channel,
                              const std::string& wanted) {
  std::string health;
  for (const absl::Time give_up = absl::Now() + absl::Seconds(60);
       (health = Health(channel)) != wanted && absl::Now() < give_up;) {
    absl::SleepFor(absl::Milliseconds(100));
  }
  return health;
}

TEST_F(E2ePostgresWatchTest, HealthFollowsTheDatabaseAndAPasswordOnTheCommandLineIsWarnedOf) {
  std::unique_ptr<e2e::ServerProcess> replica = StartReplica({}, "on-the-command-line");
  ASSERT_TRUE(replica);
  EXPECT_THAT(replica->Log(), HasSubstr("--postgres_url holds a password"));
  EXPECT_THAT(replica->Log(), ::testing::Not(HasSubstr("on-the-command-line")));
  const std::shared_ptr<grpc::Channel> channel =
      grpc::CreateChannel(replica->address(), grpc::InsecureChannelCredentials());
  EXPECT_EQ(Health(channel), test_support::kServing);

  ASSERT_TRUE(postgres_->Stop());
  EXPECT_EQ(HealthOnceSettled(channel, test_support::kNotServing), test_support::kNotServing);
  ASSERT_TRUE(postgres_->Start());
  EXPECT_EQ(HealthOnceSettled(channel, test_support::kServing), test_support::kServing);
  EXPECT_THAT(replica->Log(), HasSubstr("health NOT_SERVING"));
  EXPECT_EQ(replica->Stop(), 0);
}

}  // namespace
}  // namespace wasserwarp
