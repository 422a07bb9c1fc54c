// A validation that kills its replica (issue 40): a real wasserwarp-server on a data directory,
// killed with SIGKILL while it runs a long validation and started again, three times; the
// fourth claim ends the validation FAILED naming the three lost replicas (--max_attempts=3)
// instead of running it again, and the server stays up.

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>

#include <memory>
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
  // The same data directory each time: a restart takes over what the killed one left.
  std::unique_ptr<e2e::ServerProcess> Start() {
    absl::StatusOr<std::unique_ptr<e2e::ServerProcess>> server = e2e::ServerProcess::Start(
        WASSERWARP_SERVER, scratch_.root().string(),
        {absl::StrCat("--data_dir=", (scratch_.root() / "data").string()), "--job_lease=1s",
         "--max_concurrent_jobs=1", "--job_threads=1", "--max_attempts=3"});
    EXPECT_TRUE(server.ok()) << server.status();
    return server.ok() ? *std::move(server) : nullptr;
  }

  static std::unique_ptr<client::ValidationClient> Connect(const e2e::ServerProcess& server) {
    absl::StatusOr<std::unique_ptr<client::ValidationClient>> connected =
        client::ValidationClient::Connect(server.address());
    EXPECT_TRUE(connected.ok()) << connected.status();
    return connected.ok() ? *std::move(connected) : nullptr;
  }

  // The validation once it is RUNNING its `attempt`th time, or ended.
  static absl::StatusOr<v1::Validation> AwaitAttempt(client::ValidationClient& client,
                                                     const std::string& name, int attempt) {
    for (const absl::Time give_up = absl::Now() + absl::Seconds(30);;) {
      absl::StatusOr<v1::Validation> now = client.GetValidation(name);
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
};

TEST_F(E2ePoisonTest, AValidationThatKillsItsReplicaThreeTimesEndsFailedNamingThem) {
  std::unique_ptr<e2e::ServerProcess> server = Start();
  ASSERT_TRUE(server);
  std::string name;
  {
    std::unique_ptr<client::ValidationClient> client = Connect(*server);
    ASSERT_TRUE(client->CreateSession("poison", {}).ok());
    // About 3e9 DP cells on one thread: seconds, so that each kill comes while it runs.
    ASSERT_TRUE(client
                    ->UploadRuns("poison", test_data::RandomWalkRuns("sim", 6, 3000, 3000, 1, 7),
                                 test_data::RandomWalkRuns("ref", 6, 3000, 3000, 1, 8))
                    .ok());
    absl::StatusOr<v1::Validation> created = client->CreateValidation("poison", {});
    ASSERT_TRUE(created.ok()) << created.status();
    name = created->name();
  }
  std::vector<pid_t> killed;
  for (int attempt = 1; attempt <= 3; ++attempt) {
    std::unique_ptr<client::ValidationClient> client = Connect(*server);
    absl::StatusOr<v1::Validation> running = AwaitAttempt(*client, name, attempt);
    ASSERT_TRUE(running.ok()) << running.status() << server->Log();
    ASSERT_EQ(running->state(), v1::VALIDATION_STATE_RUNNING) << server->Log();
    client.reset();
    kill(server->pid(), SIGKILL);
    killed.push_back(server->pid());
    server = Start();
    ASSERT_TRUE(server);
  }
  std::unique_ptr<client::ValidationClient> client = Connect(*server);
  absl::StatusOr<v1::Validation> ended = AwaitAttempt(*client, name, 4);
  ASSERT_TRUE(ended.ok()) << ended.status() << server->Log();
  EXPECT_EQ(ended->state(), v1::VALIDATION_STATE_FAILED) << server->Log();
  EXPECT_EQ(ended->attempts(), 4);
  const std::string message = ended->error().message();
  EXPECT_THAT(message, HasSubstr("was lost 3 times (--max_attempts=3)"));
  // Each lost replica by its worker's name: host, process id and a random part.
  for (const pid_t pid : killed) EXPECT_THAT(message, HasSubstr(absl::StrCat("/", pid, "/")));
  client.reset();
  EXPECT_EQ(server->Stop(), 0);
}

}  // namespace
}  // namespace wasserwarp
