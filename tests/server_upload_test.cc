// UploadSeries through the in-process service: atomic runs, the stream's
// grammar, and the limits on what sessions hold.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "random_runs.h"
#include "server_test_util.h"

namespace wasserwarp::service::testing {
namespace {

using test_data::RandomWalkRuns;
using ::testing::HasSubstr;

constexpr char kSession[] = "sessions/up";

class UploadTest : public ServerTest {
 protected:
  void SetUp() override {
    ServerTest::SetUp();
    ASSERT_TRUE(CreateSession("up").ok());
  }

  std::vector<std::string> RunIds() {
    absl::StatusOr<v1::Session> session = GetSession(kSession);
    EXPECT_TRUE(session.ok()) << session.status();
    std::vector<std::string> ids;
    if (session.ok()) {
      for (const v1::RunInfo& run : session->runs()) ids.push_back(run.series_id());
    }
    return ids;
  }

  int64_t BytesHeld() {
    absl::StatusOr<v1::Session> session = GetSession(kSession);
    return session.ok() ? session->bytes_held() : -1;
  }

  static v1::UploadSeriesRequest Header(const std::string& id, v1::Role role = v1::ROLE_SIMULATION,
                                        int channels = 1) {
    v1::UploadSeriesRequest message;
    message.set_session(kSession);
    message.mutable_header()->set_role(role);
    message.mutable_header()->set_series_id(id);
    for (int c = 0; c < channels; ++c) message.mutable_header()->add_channels(absl::StrCat("c", c));
    return message;
  }

  static v1::UploadSeriesRequest Chunk(std::vector<double> times, std::vector<double> values) {
    v1::UploadSeriesRequest message;
    message.mutable_chunk()->mutable_times()->Assign(times.begin(), times.end());
    message.mutable_chunk()->mutable_values()->Assign(values.begin(), values.end());
    return message;
  }

  static v1::UploadSeriesRequest End() {
    v1::UploadSeriesRequest message;
    message.mutable_end();
    return message;
  }
};

TEST_F(UploadTest, CommitsRunsAndSummarisesThem) {
  const std::vector<Series> sim = RandomWalkRuns("sim", 2, 2500, 2500, 3, 1);
  const std::vector<Series> ref = RandomWalkRuns("ref", 1, 700, 700, 3, 2);
  std::vector<v1::UploadSeriesRequest> messages;
  AppendRun(kSession, v1::ROLE_SIMULATION, sim[0], messages, 2.0);
  AppendRun(kSession, v1::ROLE_SIMULATION, sim[1], messages, 1.0);
  AppendRun(kSession, v1::ROLE_REFERENCE, ref[0], messages);
  // The session need only be named once.
  for (size_t i = 1; i < messages.size(); ++i) messages[i].clear_session();
  v1::UploadSeriesResponse response;
  const grpc::Status status = UploadMessages(messages, &response);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(response.session(), kSession);
  ASSERT_EQ(response.committed_runs_size(), 3);
  EXPECT_EQ(response.committed_samples(), 5700);
  EXPECT_EQ(response.committed_runs(0).weight(), 2.0);
  EXPECT_FALSE(response.committed_runs(2).has_weight());
  EXPECT_EQ(response.committed_runs(2).role(), v1::ROLE_REFERENCE);
  // Samples, and each header's text: a 4-character id and 3 channel names of 2.
  constexpr int64_t kBytes = 8 * 5700 * 4 + 3 * (4 + 3 * 2);
  EXPECT_EQ(BytesHeld(), kBytes);
  EXPECT_EQ(server_->sessions().total_bytes(), kBytes);
}

TEST_F(UploadTest, ABadRunLeavesEarlierRunsAndNoTraceOfItself) {
  std::vector<Series> runs = RandomWalkRuns("sim", 3, 40, 40, 2, 3);
  runs[1].times[17] = runs[1].times[16];
  std::vector<v1::UploadSeriesRequest> messages;
  for (const Series& run : runs) AppendRun(kSession, v1::ROLE_SIMULATION, run, messages);
  v1::UploadSeriesResponse response;
  const grpc::Status status = UploadMessages(messages, &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(status.error_message(), HasSubstr("simulation run \"sim1\""));
  EXPECT_THAT(status.error_message(), HasSubstr("sample 17"));
  EXPECT_EQ(RunIds(), std::vector<std::string>{"sim0"});
  EXPECT_EQ(BytesHeld(), 8 * 40 * 3 + (4 + 2 * 2));
  EXPECT_EQ(server_->sessions().total_bytes(), 8 * 40 * 3 + (4 + 2 * 2));
}

TEST_F(UploadTest, DuplicateIdWithinARoleAlreadyExists) {
  const Series run = RandomWalkRuns("r", 1, 10, 10, 1, 4)[0];
  std::vector<v1::UploadSeriesRequest> messages;
  AppendRun(kSession, v1::ROLE_SIMULATION, run, messages);
  AppendRun(kSession, v1::ROLE_REFERENCE, run, messages);
  ASSERT_TRUE(UploadMessages(messages).ok());
  messages.clear();
  AppendRun(kSession, v1::ROLE_REFERENCE, run, messages);
  const grpc::Status status = UploadMessages(messages);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::ALREADY_EXISTS);
  EXPECT_THAT(status.error_message(), HasSubstr("reference run \"r0\""));
  EXPECT_EQ(RunIds().size(), 2u);
}

TEST_F(UploadTest, StreamGrammarErrorsLeaveNoPartialRun) {
  const auto expect_invalid = [&](std::vector<v1::UploadSeriesRequest> messages,
                                  const std::string& message) {
    const grpc::Status status = UploadMessages(messages);
    EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << message;
    EXPECT_THAT(status.error_message(), HasSubstr(message));
    EXPECT_TRUE(RunIds().empty());
    EXPECT_EQ(server_->sessions().total_bytes(), 0);
  };
  v1::UploadSeriesRequest first_chunk = Chunk({0, 1}, {1, 2});
  first_chunk.set_session(kSession);
  expect_invalid({first_chunk}, "chunk of samples before any header");
  expect_invalid({Header("a"), Chunk({0, 1}, {1, 2}), Header("b")},
                 "header of run \"b\" before the end mark of simulation run \"a\"");
  expect_invalid({Header("a"), Chunk({0, 1}, {1, 2})},
                 "the stream ended inside simulation run \"a\"");
  v1::UploadSeriesRequest end = End();
  end.set_session(kSession);
  expect_invalid({end}, "end mark before any header");
  expect_invalid(
      {Header("a", v1::ROLE_REFERENCE, 2), Chunk({0, 1, 2}, {1, 2, 3, 4, 5}), End()},
      "reference run \"a\": chunk starting at sample 0 holds 5 values for 3 samples x 2");
  expect_invalid({Header("a"), Chunk({0, 1}, {1, 2}), Chunk({2, 3}, {1, 2, 3}), End()},
                 "chunk starting at sample 2");
  v1::UploadSeriesRequest expect_three = End();
  expect_three.mutable_end()->set_expected_samples(3);
  expect_invalid({Header("a"), Chunk({0, 1}, {1, 2}), expect_three},
                 "simulation run \"a\" ends after 2 samples, its end mark expects 3");
  expect_invalid({Header("a"), Chunk({0, 1}, {1, NAN}), End()}, "sample 1");
  expect_invalid({Header("a"), End()}, "no samples");
  expect_invalid({Header("a", v1::ROLE_UNSPECIFIED)}, "role");
  expect_invalid({Header("", v1::ROLE_SIMULATION)}, "series_id");
  expect_invalid({Header("a", v1::ROLE_SIMULATION, 0)}, "no channels");
  v1::UploadSeriesRequest negative_weight = Header("a");
  negative_weight.mutable_header()->set_weight(-1.0);
  expect_invalid({negative_weight}, "weight");
  v1::UploadSeriesRequest other_session = Header("b");
  other_session.set_session("sessions/other");
  expect_invalid({Header("a"), other_session}, "sessions/other");
  v1::UploadSeriesRequest anonymous = Header("a");
  anonymous.clear_session();
  expect_invalid({anonymous}, "the first upload message must name the session");
  expect_invalid({}, "without naming a session");
}

TEST_F(UploadTest, UnknownOrMalformedSession) {
  v1::UploadSeriesRequest header = Header("a");
  header.set_session("sessions/none");
  grpc::Status status = UploadMessages({header});
  EXPECT_EQ(status.error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_THAT(status.error_message(), HasSubstr("sessions/none"));
  header.set_session("none");
  status = UploadMessages({header});
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
}

TEST_F(UploadTest, MaxSamplesPerRun) {
  ServerConfig config = TestConfig();
  config.sessions.max_samples_per_run = 100;
  StartServer(config);
  ASSERT_TRUE(CreateSession("up").ok());
  std::vector<v1::UploadSeriesRequest> messages;
  AppendRun(kSession, v1::ROLE_SIMULATION, RandomWalkRuns("s", 1, 100, 100, 1, 5)[0], messages);
  AppendRun(kSession, v1::ROLE_SIMULATION, RandomWalkRuns("t", 1, 101, 101, 1, 6)[0], messages, {},
            60);
  const grpc::Status status = UploadMessages(messages);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_THAT(status.error_message(), HasSubstr("simulation run \"t0\""));
  EXPECT_THAT(status.error_message(), HasSubstr("--max_samples_per_run"));
  EXPECT_EQ(RunIds(), std::vector<std::string>{"s0"});
}

TEST_F(UploadTest, MaxRunsPerSession) {
  ServerConfig config = TestConfig();
  config.sessions.max_runs_per_session = 2;
  StartServer(config);
  ASSERT_TRUE(CreateSession("up").ok());
  const grpc::Status status =
      Upload(kSession, RandomWalkRuns("s", 2, 10, 10, 1, 7), RandomWalkRuns("r", 1, 10, 10, 1, 8));
  EXPECT_EQ(status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_THAT(status.error_message(), HasSubstr("--max_runs_per_session=2"));
  EXPECT_EQ(RunIds().size(), 2u);
}

TEST_F(UploadTest, BytesInFlightCountAgainstTheSessionLimit) {
  ServerConfig config = TestConfig();
  config.sessions.max_session_bytes = 10'000;
  StartServer(config);
  ASSERT_TRUE(CreateSession("up").ok());
  // 1000 samples of one channel are 16000 bytes: refused while the run
  // streams in, before its end mark is sent.
  std::vector<v1::UploadSeriesRequest> messages;
  AppendRun(kSession, v1::ROLE_REFERENCE, RandomWalkRuns("r", 1, 1000, 1000, 1, 9)[0], messages, {},
            100);
  messages.pop_back();
  const grpc::Status status = UploadMessages(messages);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_THAT(status.error_message(), HasSubstr("reference run \"r0\""));
  EXPECT_THAT(status.error_message(), HasSubstr("--max_session_bytes=10000"));
  EXPECT_EQ(server_->sessions().total_bytes(), 0);
}

TEST_F(UploadTest, HeaderTextIsBoundedAndCountsAgainstTheSessionLimit) {
  v1::UploadSeriesRequest long_name = Header("a");
  long_name.mutable_header()->add_channels(std::string(257, 'x'));
  grpc::Status status = UploadMessages({long_name});
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(status.error_message(), HasSubstr("simulation run \"a\": the name of channel 1"));
  EXPECT_THAT(status.error_message(), HasSubstr("limit of 256"));

  status = UploadMessages({Header("b", v1::ROLE_REFERENCE, 1025)});
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(status.error_message(), HasSubstr("reference run \"b\": header names 1025"));
  EXPECT_THAT(status.error_message(), HasSubstr("limit of 1024"));
  EXPECT_TRUE(RunIds().empty());

  ServerConfig config = TestConfig();
  config.sessions.max_session_bytes = 10'000;
  StartServer(config);
  ASSERT_TRUE(CreateSession("up").ok());
  // 40 names of 256 bytes are 10240 bytes: refused before any sample.
  v1::UploadSeriesRequest wide = Header("w");
  for (int c = 0; c < 40; ++c) wide.mutable_header()->add_channels(std::string(256, 'a' + c % 26));
  status = UploadMessages({wide});
  EXPECT_EQ(status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_THAT(status.error_message(), HasSubstr("simulation run \"w\""));
  EXPECT_THAT(status.error_message(), HasSubstr("--max_session_bytes=10000"));
  EXPECT_EQ(server_->sessions().total_bytes(), 0);
}

TEST_F(UploadTest, MaxTotalBytes) {
  ServerConfig config = TestConfig();
  config.sessions.max_total_bytes = 5'000;
  StartServer(config);
  ASSERT_TRUE(CreateSession("up").ok());
  ASSERT_TRUE(CreateSession("other").ok());
  ASSERT_TRUE(Upload("sessions/other", RandomWalkRuns("s", 1, 200, 200, 1, 10), {}).ok());
  const grpc::Status status = Upload(kSession, RandomWalkRuns("s", 1, 200, 200, 1, 11), {});
  EXPECT_EQ(status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_THAT(status.error_message(), HasSubstr("--max_total_bytes=5000"));
  EXPECT_EQ(server_->sessions().total_bytes(), 3200 + (2 + 2));
}

TEST_F(UploadTest, MaxMessageBytes) {
  ServerConfig config = TestConfig();
  config.max_message_bytes = 64 << 10;
  StartServer(config);
  ASSERT_TRUE(CreateSession("up").ok());
  std::vector<v1::UploadSeriesRequest> messages;
  // One chunk of 8192 samples x 1 channel: 128 KiB of doubles.
  AppendRun(kSession, v1::ROLE_REFERENCE, RandomWalkRuns("r", 1, 8192, 8192, 1, 12)[0], messages,
            {}, 8192);
  grpc::Status status = UploadMessages(messages);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  // Chunked under the limit, the same run goes through.
  messages.clear();
  AppendRun(kSession, v1::ROLE_REFERENCE, RandomWalkRuns("r", 1, 8192, 8192, 1, 12)[0], messages,
            {}, 2048);
  status = UploadMessages(messages);
  EXPECT_TRUE(status.ok()) << status.error_message();
}

}  // namespace
}  // namespace wasserwarp::service::testing
