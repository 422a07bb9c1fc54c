// The server's shared state under many threads at once, without gRPC in
// between: upload streams (UploadState) into one session and into sessions
// that are deleted and created again meanwhile, while other threads read,
// list, snapshot, expire and save; and the job queue fed and cancelled from
// many threads. make test-tsan runs this under ThreadSanitizer; the
// bookkeeping checked at the end must hold in any build.

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "jobs/job_queue.h"
#include "rpc/upload_state.h"
#include "session_protos.h"
#include "sessions/session_database.h"
#include "sessions/session_store.h"
#include "sessions/sqlite_session_backend.h"
#include "spdlog/spdlog.h"

namespace wasserwarp::service {
namespace {

constexpr int kUploaders = 4;
constexpr int kRunsPerUploader = 12;
constexpr int kRecreators = 2;
constexpr int kRecreations = 6;
constexpr int kSamples = 40;

// spdlog builds its default logger on first use, inside libspdlog, whose
// guard of that static TSan cannot see: built here, before any thread
// starts, it is no race to TSan either. Jobs log at info; warn keeps the
// test's output short.
void StartLoggingBeforeAnyThread() { spdlog::set_level(spdlog::level::warn); }

// One stream of one run of kSamples samples.
absl::Status UploadRun(SessionStore& store, const SessionLimits& limits, const std::string& session,
                       const std::string& id) {
  v1::UploadSeriesResponse response;
  UploadState state(store, limits, &response);
  v1::UploadSeriesRequest header;
  header.set_session(absl::StrCat("sessions/", session));
  header.mutable_header()->set_role(v1::ROLE_SIMULATION);
  header.mutable_header()->set_series_id(id);
  header.mutable_header()->add_channels("x");
  v1::UploadSeriesRequest chunk;
  for (int i = 0; i < kSamples; ++i) {
    chunk.mutable_chunk()->add_times(i);
    chunk.mutable_chunk()->add_values(i % 7);
  }
  v1::UploadSeriesRequest end;
  end.mutable_end()->set_expected_samples(kSamples);
  for (const v1::UploadSeriesRequest* message : {&header, &chunk, &end}) {
    if (absl::Status status = state.Handle(*message); !status.ok()) return status;
  }
  return state.EndOfStream();
}

class ConcurrencyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    StartLoggingBeforeAnyThread();
    dir_ = std::filesystem::path(::testing::TempDir()) / absl::StrCat("concurrency_", getpid());
    std::filesystem::remove_all(dir_);
    absl::StatusOr<std::unique_ptr<SessionDatabase>> database =
        SessionDatabase::Open(dir_.string());
    ASSERT_TRUE(database.ok()) << database.status();
    database_ = *std::move(database);
  }

  void TearDown() override {
    database_.reset();
    std::filesystem::remove_all(dir_);
  }

  std::filesystem::path dir_;
  std::unique_ptr<SessionDatabase> database_;
};

TEST_F(ConcurrencyTest, UploadsReadsDeletionsAndSweepsAtOnceKeepTheBooks) {
  SessionLimits limits;
  SessionStore store(limits, std::make_unique<SqliteSessionBackend>(*database_));
  ASSERT_TRUE(store.Create("shared", {}).ok());

  std::atomic<bool> uploading = true;
  std::vector<std::thread> threads;
  // Distinct runs into one session: every one must commit.
  std::vector<absl::Status> uploader_errors(kUploaders);
  for (int u = 0; u < kUploaders; ++u) {
    threads.emplace_back([&, u] {
      for (int r = 0; r < kRunsPerUploader && uploader_errors[u].ok(); ++r) {
        uploader_errors[u] = UploadRun(store, limits, "shared", absl::StrCat("u", u, "-", r));
      }
    });
  }
  // Sessions deleted while others may still be writing to them: a stream
  // that loses its session is refused, and nothing it reserved stays.
  for (int c = 0; c < kRecreators; ++c) {
    threads.emplace_back([&, c] {
      const std::string id = absl::StrCat("churn", c);
      for (int k = 0; k < kRecreations; ++k) {
        ASSERT_TRUE(store.Create(id, {}).ok());
        std::thread writer([&] { (void)UploadRun(store, limits, id, "run"); });
        (void)UploadRun(store, limits, id, absl::StrCat("own", k));
        ASSERT_TRUE(store.Delete(id).ok());
        writer.join();
      }
    });
  }
  // Readers and the sweeper, until the writers are done.
  threads.emplace_back([&] {
    while (uploading) {
      bool more = false;
      // Held by name: a range over *store.List(...) would outlive the StatusOr it points into.
      const absl::StatusOr<std::vector<SessionRecord>> listed = store.List("", 100, more);
      for (const SessionRecord& session : listed.value()) (void)store.Get(session.id);
      if (absl::StatusOr<SessionSnapshot> snapshot = store.Snapshot("shared"); snapshot.ok()) {
        for (const StoredRun& run : snapshot->simulation)
          ASSERT_EQ(run.series->samples(), kSamples);
      }
      (void)store.totals();
    }
  });
  threads.emplace_back([&] {
    while (uploading) {
      (void)store.ExpireIdle(absl::Now());
      ASSERT_TRUE(store.Save().ok());
    }
  });

  for (int t = 0; t < kUploaders + kRecreators; ++t) threads[t].join();
  uploading = false;
  for (size_t t = kUploaders + kRecreators; t < threads.size(); ++t) threads[t].join();

  for (const absl::Status& status : uploader_errors) EXPECT_TRUE(status.ok()) << status;
  absl::StatusOr<v1::Session> shared = test_data::AsProto(store.Get("shared"));
  ASSERT_TRUE(shared.ok()) << shared.status();
  EXPECT_EQ(shared->runs_size(), kUploaders * kRunsPerUploader);
  const SessionStore::Totals totals = store.totals();
  EXPECT_EQ(totals.sessions, 1);
  EXPECT_EQ(totals.runs, kUploaders * kRunsPerUploader);
  EXPECT_EQ(totals.reserved_bytes, 0);
  EXPECT_EQ(totals.held_bytes, shared->bytes_held());
  EXPECT_EQ(store.total_bytes(), shared->bytes_held());
}

TEST(JobQueueConcurrencyTest, EveryAcceptedJobEndsOrIsDroppedExactlyOnce) {
  StartLoggingBeforeAnyThread();
  constexpr int kSubmitters = 6;
  constexpr int kJobsEach = 30;
  std::atomic<int> observed = 0;
  std::atomic<int> started = 0;
  std::atomic<int> dropped = 0;
  std::atomic<int> accepted = 0;
  absl::Mutex mu;
  int64_t work_done = 0;
  {
    JobQueue queue({.max_concurrent_jobs = 2, .max_queued_jobs = 8, .job_threads = 1},
                   [&](const JobStats& stats) {
                     ++observed;
                     if (stats.started) ++started;
                   });
    std::vector<std::thread> submitters;
    for (int s = 0; s < kSubmitters; ++s) {
      submitters.emplace_back([&, s] {
        for (int j = 0; j < kJobsEach; ++j) {
          Job job{.label = "work",
                  .group = absl::StrCat("group", j % 3),
                  .run =
                      [&](const CancellationToken& cancel) {
                        // At least one step, so that every started job shows.
                        for (int step = 0; step < 100; ++step) {
                          if (step > 0 && cancel.cancelled()) break;
                          absl::MutexLock lock(&mu);
                          ++work_done;
                        }
                        return JobOutcome{};
                      },
                  .dropped = [&] { ++dropped; }};
          absl::StatusOr<uint64_t> id = queue.Submit(std::move(job));
          if (!id.ok()) {
            ASSERT_EQ(id.status().code(), absl::StatusCode::kResourceExhausted);
            continue;
          }
          ++accepted;
          if ((j + s) % 4 == 0) queue.Cancel(*id);
          if (j % 10 == 9) queue.CancelGroup(absl::StrCat("group", s % 3));
        }
      });
    }
    for (std::thread& submitter : submitters) submitter.join();
  }
  // The queue's destructor waited for every job.
  EXPECT_GT(accepted, 0);
  EXPECT_EQ(observed, accepted);
  EXPECT_EQ(started + dropped, accepted);
  absl::MutexLock lock(&mu);
  EXPECT_GE(work_done, started);
}

}  // namespace
}  // namespace wasserwarp::service
