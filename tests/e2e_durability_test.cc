// A real wasserwarp-server killed with SIGKILL at random moments while clients upload, then
// restarted on the same --data_dir: every run a client saw acknowledged is back, bit for bit,
// and nothing half-written is: a run whose upload was cut off is absent.

#include <grpcpp/create_channel.h>
#include <grpcpp/security/credentials.h>
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "e2e_process.h"
#include "google/protobuf/util/message_differencer.h"
#include "random_runs.h"
#include "scratch_dir.h"
#include "sessions/session_database.h"
#include "validation_client.h"
#include "wasserwarp/report_json.h"
#include "wasserwarp/run_checksum.h"

namespace wasserwarp {
namespace {

constexpr int kUploaders = 3;
constexpr int kKills = 4;

// Every run the clients sent, by session and series id, and those acknowledged.
struct Ledger {
  absl::Mutex mu;
  std::map<std::string, std::map<std::string, Series>> sent ABSL_GUARDED_BY(mu);
  std::map<std::string, std::set<std::string>> acknowledged ABSL_GUARDED_BY(mu);
};

std::string Bench(int uploader) { return absl::StrCat("bench", uploader); }

// Lengths from 500 to 30000 samples, so that kills fall in every phase of an upload.
Series RunFor(int round, int uploader, int n) {
  std::mt19937_64 rng(1'000'000 * round + 1000 * uploader + n);
  std::uniform_int_distribution<size_t> samples(500, 30'000);
  return test_data::RandomWalkRun(rng, absl::StrCat("r", round, "_", n), samples(rng), 2);
}

class E2eDurabilityTest : public ::testing::Test {
 protected:
  std::unique_ptr<e2e::ServerProcess> StartServer() {
    absl::StatusOr<std::unique_ptr<e2e::ServerProcess>> server = e2e::ServerProcess::Start(
        WASSERWARP_SERVER, scratch_.root().string(), {"--data_dir", data_dir_, "--log_level=warn"});
    EXPECT_TRUE(server.ok()) << server.status();
    return server.ok() ? *std::move(server) : nullptr;
  }

  static std::unique_ptr<client::ValidationClient> Connect(const std::string& address) {
    absl::StatusOr<std::unique_ptr<client::ValidationClient>> connected =
        client::ValidationClient::Connect(address);
    EXPECT_TRUE(connected.ok()) << connected.status();
    return connected.ok() ? *std::move(connected) : nullptr;
  }

  const test_support::ScratchDir scratch_{"e2e_durability_"};
  const std::string data_dir_ = scratch_.Path("data");
};

// What GetSession says of each session: every acknowledged run is there, and every run there
// was sent, whole.
void ExpectServerHolds(client::ValidationClient& client, Ledger& ledger) {
  absl::MutexLock lock(&ledger.mu);
  for (const auto& [session_id, runs] : ledger.sent) {
    absl::StatusOr<v1::Session> session = client.GetSession(session_id);
    ASSERT_TRUE(session.ok()) << session.status();
    std::set<std::string> held;
    for (const v1::RunInfo& info : session->runs()) {
      const auto sent = runs.find(info.series_id());
      ASSERT_NE(sent, runs.end()) << session_id << " holds a run never sent: " << info.series_id();
      EXPECT_EQ(info.samples(), static_cast<int64_t>(sent->second.samples())) << info.series_id();
      held.insert(info.series_id());
    }
    for (const std::string& id : ledger.acknowledged[session_id]) {
      EXPECT_TRUE(held.contains(id)) << session_id << " lost acknowledged run " << id;
    }
  }
}

TEST_F(E2eDurabilityTest, AcknowledgedRunsSurviveSigkillAtRandomMoments) {
  Ledger ledger;
  std::mt19937_64 rng(7);
  std::uniform_int_distribution<int> delay_ms(100, 700);
  for (int round = 0; round < kKills; ++round) {
    std::unique_ptr<e2e::ServerProcess> server = StartServer();
    ASSERT_NE(server, nullptr);
    std::unique_ptr<client::ValidationClient> client = Connect(server->address());
    ASSERT_NE(client, nullptr);
    ExpectServerHolds(*client, ledger);
    if (round == 0) {
      for (int k = 0; k < kUploaders; ++k) {
        ASSERT_TRUE(client->CreateSession(Bench(k), {}).ok());
        absl::MutexLock lock(&ledger.mu);
        ledger.sent[Bench(k)];
      }
    }
    std::vector<std::thread> uploaders;
    for (int k = 0; k < kUploaders; ++k) {
      uploaders.emplace_back([&ledger, address = server->address(), k, round] {
        std::unique_ptr<client::ValidationClient> uploader = Connect(address);
        if (uploader == nullptr) return;
        for (int n = 0;; ++n) {
          Series run = RunFor(round, k, n);
          {
            absl::MutexLock lock(&ledger.mu);
            ledger.sent[Bench(k)][run.id] = run;
          }
          if (!uploader->UploadRuns(Bench(k), {run}, {}).ok()) return;
          absl::MutexLock lock(&ledger.mu);
          ledger.acknowledged[Bench(k)].insert(run.id);
        }
      });
    }
    absl::SleepFor(absl::Milliseconds(delay_ms(rng)));
    server.reset();  // SIGKILL
    for (std::thread& uploader : uploaders) uploader.join();
  }

  std::unique_ptr<e2e::ServerProcess> server = StartServer();
  ASSERT_NE(server, nullptr);
  std::unique_ptr<client::ValidationClient> client = Connect(server->address());
  ASSERT_NE(client, nullptr);
  ExpectServerHolds(*client, ledger);
  client.reset();
  ASSERT_EQ(server->Stop(), 0) << server->Log();

  // The file itself: each stored run is what its client sent, bit for bit.
  absl::StatusOr<std::unique_ptr<service::SessionDatabase>> db =
      service::SessionDatabase::Open(data_dir_);
  ASSERT_TRUE(db.ok()) << db.status();
  absl::StatusOr<std::vector<service::PersistedSession>> stored =
      (*db)->Load(absl::Now(), absl::Hours(24));
  ASSERT_TRUE(stored.ok()) << stored.status();
  absl::MutexLock lock(&ledger.mu);
  ASSERT_EQ(stored->size(), static_cast<size_t>(kUploaders));
  int acknowledged = 0;
  int stored_runs = 0;
  int sent_runs = 0;
  for (const auto& [id, runs] : ledger.sent) sent_runs += static_cast<int>(runs.size());
  for (const service::PersistedSession& session : *stored) {
    stored_runs += static_cast<int>(session.runs.size());
    std::set<std::string> held;
    for (const service::StoredRun& run : session.runs) {
      const Series& sent = ledger.sent[session.id].at(run.series->id);
      EXPECT_EQ(RunChecksum(*run.series), RunChecksum(sent)) << run.series->id;
      EXPECT_EQ(run.series->times, sent.times) << run.series->id;
      EXPECT_EQ(run.series->values, sent.values) << run.series->id;
      held.insert(run.series->id);
    }
    for (const std::string& id : ledger.acknowledged[session.id]) {
      EXPECT_TRUE(held.contains(id)) << session.id << " lost acknowledged run " << id;
      ++acknowledged;
    }
  }
  // Kills that always came before the first acknowledgement would prove nothing.
  EXPECT_GT(acknowledged, 0);
  // Runs committed but killed before their acknowledgement are stored too; runs cut off are not.
  RecordProperty("runs_acknowledged", acknowledged);
  RecordProperty("runs_stored", stored_runs);
  RecordProperty("runs_sent", sent_runs);
}

TEST_F(E2eDurabilityTest, ARunCutOffMidUploadLeavesNoTrace) {
  std::unique_ptr<e2e::ServerProcess> server = StartServer();
  ASSERT_NE(server, nullptr);
  std::unique_ptr<client::ValidationClient> client = Connect(server->address());
  ASSERT_NE(client, nullptr);
  ASSERT_TRUE(client->CreateSession("s", {}).ok());
  const Series kept = RunFor(0, 0, 0);
  ASSERT_TRUE(client->UploadRuns("s", {kept}, {}).ok());

  // A stream that sends half of a run's samples and then stops, the end mark never sent.
  const Series cut = RunFor(0, 0, 1);
  auto stub = v1::ValidationService::NewStub(
      grpc::CreateChannel(server->address(), grpc::InsecureChannelCredentials()));
  grpc::ClientContext context;
  v1::UploadSeriesResponse response;
  std::unique_ptr<grpc::ClientWriter<v1::UploadSeriesRequest>> writer =
      stub->UploadSeries(&context, &response);
  v1::UploadSeriesRequest header;
  header.set_session("sessions/s");
  header.mutable_header()->set_role(v1::ROLE_REFERENCE);
  header.mutable_header()->set_series_id(cut.id);
  for (const std::string& channel : cut.channels) header.mutable_header()->add_channels(channel);
  ASSERT_TRUE(writer->Write(header));
  const size_t half = cut.samples() / 2;
  v1::UploadSeriesRequest chunk;
  chunk.mutable_chunk()->mutable_times()->Assign(cut.times.begin(), cut.times.begin() + half);
  chunk.mutable_chunk()->mutable_values()->Assign(cut.values.begin(),
                                                  cut.values.begin() + half * cut.num_channels());
  ASSERT_TRUE(writer->Write(chunk));
  // Whether or not the server has read the chunk yet, the run must leave nothing.
  server.reset();  // SIGKILL
  context.TryCancel();
  EXPECT_FALSE(writer->Finish().ok());

  server = StartServer();
  ASSERT_NE(server, nullptr);
  client = Connect(server->address());
  ASSERT_NE(client, nullptr);
  absl::StatusOr<v1::Session> session = client->GetSession("s");
  ASSERT_TRUE(session.ok()) << session.status();
  ASSERT_EQ(session->runs_size(), 1);
  EXPECT_EQ(session->runs(0).series_id(), kept.id);
  EXPECT_EQ(session->bytes_held(),
            service::HeaderBytes(kept.id, kept.channels) +
                service::SampleBytes(static_cast<int64_t>(kept.times.size()),
                                     static_cast<int64_t>(kept.values.size())));
  // The id is free: the cut-off run left nothing behind to collide with.
  EXPECT_TRUE(client->UploadRuns("s", {}, {cut}).ok());
  client.reset();
  EXPECT_EQ(server->Stop(), 0) << server->Log();
}

TEST_F(E2eDurabilityTest, ARestartedServerHoldsTheSameSessionAndValidatesAlike) {
  std::unique_ptr<e2e::ServerProcess> server = StartServer();
  ASSERT_NE(server, nullptr);
  std::unique_ptr<client::ValidationClient> client = Connect(server->address());
  ASSERT_NE(client, nullptr);
  v1::Session settings;
  settings.mutable_default_parameters()->set_deletion_penalty(0.5);
  settings.mutable_default_parameters()->set_scale(v1::SCALING_REFERENCE_STD);
  (*settings.mutable_labels())["rig"] = "7";
  settings.mutable_idle_ttl()->set_seconds(720 * 3600);
  ASSERT_TRUE(client->CreateSession("rig7", settings).ok());
  ASSERT_TRUE(client
                  ->UploadRuns("rig7", test_data::RandomWalkRuns("sim", 5, 200, 400, 2, 11),
                               test_data::RandomWalkRuns("ref", 4, 200, 400, 2, 12),
                               {1, 2, 3, 4, 5})
                  .ok());
  absl::StatusOr<v1::Session> before = client->GetSession("rig7");
  ASSERT_TRUE(before.ok()) << before.status();
  absl::StatusOr<ValidationReport> first = client->Validate("rig7", {}, true);
  ASSERT_TRUE(first.ok()) << first.status();
  client.reset();
  server.reset();  // SIGKILL

  server = StartServer();
  ASSERT_NE(server, nullptr);
  client = Connect(server->address());
  ASSERT_NE(client, nullptr);
  absl::StatusOr<v1::Session> after = client->GetSession("rig7");
  ASSERT_TRUE(after.ok()) << after.status();
  // Everything but the expiry, which counts from the last use on disk.
  before->clear_expire_time();
  after->clear_expire_time();
  EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(*after, *before))
      << "before:\n"
      << before->DebugString() << "after:\n"
      << after->DebugString();
  absl::StatusOr<ValidationReport> second = client->Validate("rig7", {}, true);
  ASSERT_TRUE(second.ok()) << second.status();
  first->seconds = 0;
  second->seconds = 0;
  EXPECT_EQ(ReportToJson(*second), ReportToJson(*first));
  client.reset();
  EXPECT_EQ(server->Stop(), 0) << server->Log();
}

}  // namespace
}  // namespace wasserwarp
