// A validation that kills its replica (issue 40): a real wasserwarp-server on a data directory,
// killed with SIGKILL while it runs a long validation and started again, three times; the
// fourth claim ends the validation FAILED naming the three lost replicas (--max_attempts=3)
// instead of running it again, and the server stays up.

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "e2e_process.h"
#include "random_runs.h"
#include "scratch_dir.h"
#include "validation_client.h"

namespace wasserwarp {
namespace {

using ::testing::HasSubstr;

class E2ePoisonTest : public ::testing::Test {
 protected:
  // A server on the same data directory each time, so that a restart takes over what the killed
  // one left, and a client of it.
  void Start() {
    absl::StatusOr<std::unique_ptr<e2e::ServerProcess>> started = e2e::ServerProcess::Start(
        WASSERWARP_SERVER, scratch_.root().string(),
        {absl::StrCat("--data_dir=", (scratch_.root() / "data").string()), "--job_lease=1s",
         "--max_concurrent_jobs=1", "--job_threads=1", "--max_attempts=3"});
    ASSERT_TRUE(started.ok()) << started.status();
    server_ = *std::move(started);
    absl::StatusOr<std::unique_ptr<client::ValidationClient>> connected =
        client::ValidationClient::Connect(server_->address());
    ASSERT_TRUE(connected.ok()) << connected.status();
    client_ = *std::move(connected);
  }

  // The validation once it is RUNNING its `attempt`th time, or ended; with no `attempt`, once
  // it ended (the claim past --max_attempts is RUNNING for a moment before the worker fails it).
  absl::StatusOr<v1::Validation> AwaitAttempt(const std::string& name, std::optional<int> attempt) {
    for (const absl::Time give_up = absl::Now() + absl::Seconds(30);;) {
      absl::StatusOr<v1::Validation> now = client_->GetValidation(name);
      if (!now.ok()) return now.status();
      if ((now->state() == v1::VALIDATION_STATE_RUNNING && now->attempts() == attempt) ||
          now->state() > v1::VALIDATION_STATE_RUNNING) {
        return now;
      }
      if (absl::Now() > give_up) return absl::DeadlineExceededError("it never ran again");
      absl::SleepFor(absl::Milliseconds(20));
    }
  }

  const test_support::ScratchDir scratch_{"e2e_poison_"};
  std::unique_ptr<client::ValidationClient> client_;
  std::unique_ptr<e2e::ServerProcess> server_;
};

TEST_F(E2ePoisonTest, AValidationThatKillsItsReplicaThreeTimesEndsFailedNamingThem) {
  ASSERT_NO_FATAL_FAILURE(Start());
  ASSERT_TRUE(client_->CreateSession("poison", {}).ok());
  // About 3e9 DP cells on one thread: seconds, so that each kill comes while it runs.
  ASSERT_TRUE(client_
                  ->UploadRuns("poison", test_data::RandomWalkRuns("sim", 6, 3000, 3000, 1, 7),
                               test_data::RandomWalkRuns("ref", 6, 3000, 3000, 1, 8))
                  .ok());
  absl::StatusOr<v1::Validation> created = client_->CreateValidation("poison", {});
  ASSERT_TRUE(created.ok()) << created.status();
  std::vector<pid_t> killed;
  for (int attempt = 1; attempt <= 3; ++attempt) {
    absl::StatusOr<v1::Validation> running = AwaitAttempt(created->name(), attempt);
    ASSERT_TRUE(running.ok()) << running.status() << server_->Log();
    ASSERT_EQ(running->state(), v1::VALIDATION_STATE_RUNNING) << server_->Log();
    client_.reset();
    kill(server_->pid(), SIGKILL);
    killed.push_back(server_->pid());
    ASSERT_NO_FATAL_FAILURE(Start());
  }
  absl::StatusOr<v1::Validation> ended = AwaitAttempt(created->name(), std::nullopt);
  ASSERT_TRUE(ended.ok()) << ended.status() << server_->Log();
  EXPECT_EQ(ended->state(), v1::VALIDATION_STATE_FAILED) << server_->Log();
  EXPECT_EQ(ended->attempts(), 4);
  const std::string message = ended->error().message();
  EXPECT_THAT(message, HasSubstr("was lost 3 times (--max_attempts=3)"));
  // Each lost replica by its worker's name: host, process id and a random part.
  for (const pid_t pid : killed) EXPECT_THAT(message, HasSubstr(absl::StrCat("/", pid, "/")));
  client_.reset();
  EXPECT_EQ(server_->Stop(), 0);
}

}  // namespace
}  // namespace wasserwarp
