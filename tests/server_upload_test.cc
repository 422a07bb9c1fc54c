// UploadSeries through the in-process service: atomic runs, the stream's
// grammar, and the limits on what sessions hold.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "google/rpc/error_details.pb.h"
#include "random_runs.h"
#include "server_test_util.h"
#include "status_details.h"

namespace wasserwarp::service::testing {
namespace {

using test_data::RandomWalkRuns;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Pair;

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

TEST_F(UploadTest, ASimulatedRunKeepsItsParametersAndTrialInNameOrder) {
  std::vector<v1::UploadSeriesRequest> messages;
  AppendRun(kSession, v1::ROLE_SIMULATION, RandomWalkRuns("sim", 1, 50, 50, 2, 13)[0], messages);
  AppendRun(kSession, v1::ROLE_REFERENCE, RandomWalkRuns("ref", 1, 50, 50, 2, 14)[0], messages);
  v1::SeriesHeader& header = *messages[0].mutable_header();
  (*header.mutable_parameters())["mass"] = 1250.5;
  (*header.mutable_parameters())["cf.front"] = -8.1e4;
  (*header.mutable_parameters())["_tyre-scale"] = 0.0;
  header.set_trial("road 3/seed=17");
  v1::UploadSeriesResponse response;
  const grpc::Status status = UploadMessages(messages, &response);
  ASSERT_TRUE(status.ok()) << status.error_message();
  ASSERT_EQ(response.committed_runs_size(), 2);
  EXPECT_EQ(response.committed_runs(0).trial(), "road 3/seed=17");
  EXPECT_EQ(response.committed_runs(0).parameters_size(), 3);

  absl::StatusOr<v1::Session> session = GetSession(kSession);
  ASSERT_TRUE(session.ok()) << session.status();
  const v1::RunInfo& sim = session->runs(0);
  const std::map<std::string, double> parameters(sim.parameters().begin(), sim.parameters().end());
  EXPECT_THAT(parameters, ElementsAre(Pair("_tyre-scale", 0.0), Pair("cf.front", -8.1e4),
                                      Pair("mass", 1250.5)));
  EXPECT_EQ(sim.trial(), "road 3/seed=17");
  EXPECT_TRUE(session->runs(1).parameters().empty());
  EXPECT_TRUE(session->runs(1).trial().empty());
  // The inputs are held with the run: names, 8 bytes a value and the trial count.
  constexpr int64_t kSamples = 8 * 2 * 50 * 3 + 2 * (4 + 2 * 2);
  constexpr int64_t kInputs = (11 + 8) + (8 + 8) + (4 + 8) + 14;
  EXPECT_EQ(BytesHeld(), kSamples + kInputs);

  // A validation's copy of the session carries them too.
  absl::StatusOr<SessionSnapshot> snapshot = server_->sessions().Snapshot("up");
  ASSERT_TRUE(snapshot.ok()) << snapshot.status();
  ASSERT_EQ(snapshot->simulation.size(), 1u);
  EXPECT_EQ(snapshot->simulation[0].inputs.parameters, parameters);
  EXPECT_EQ(snapshot->simulation[0].inputs.trial, "road 3/seed=17");
}

TEST_F(UploadTest, ARunKeepsItsSourceAndShowsIt) {
  std::vector<v1::UploadSeriesRequest> messages;
  AppendRun(kSession, v1::ROLE_SIMULATION, RandomWalkRuns("sim", 1, 50, 50, 2, 13)[0], messages);
  AppendRun(kSession, v1::ROLE_REFERENCE, RandomWalkRuns("ref", 1, 50, 50, 2, 14)[0], messages);
  const std::string sha256(64, 'c');
  messages[0].mutable_header()->mutable_source()->set_file("runs/sim0.csv");
  messages[0].mutable_header()->mutable_source()->set_sha256(sha256);
  v1::UploadSeriesResponse response;
  const grpc::Status status = UploadMessages(messages, &response);
  ASSERT_TRUE(status.ok()) << status.error_message();
  ASSERT_EQ(response.committed_runs_size(), 2);
  EXPECT_EQ(response.committed_runs(0).source().file(), "runs/sim0.csv");

  absl::StatusOr<v1::Session> session = GetSession(kSession);
  ASSERT_TRUE(session.ok()) << session.status();
  EXPECT_TRUE(session->runs(0).has_source());
  EXPECT_EQ(session->runs(0).source().file(), "runs/sim0.csv");
  EXPECT_EQ(session->runs(0).source().sha256(), sha256);
  EXPECT_FALSE(session->runs(1).has_source());
  absl::StatusOr<SessionSnapshot> snapshot = server_->sessions().Snapshot("up");
  ASSERT_TRUE(snapshot.ok()) << snapshot.status();
  EXPECT_EQ(snapshot->simulation[0].source, (RunSource{"runs/sim0.csv", sha256}));
  EXPECT_FALSE(snapshot->reference[0].source.has_value());
}

TEST_F(UploadTest, BadSourcesNameTheirField) {
  const auto refused = [&](const std::string& file, const std::string& sha256) {
    v1::UploadSeriesRequest header = Header("sim");
    header.mutable_header()->mutable_source()->set_file(file);
    header.mutable_header()->mutable_source()->set_sha256(sha256);
    return UploadMessages({header, Chunk({0, 1}, {1, 2}), End()});
  };
  const grpc::Status bad_hash = refused("a.csv", "ABC");
  EXPECT_EQ(bad_hash.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(bad_hash.error_message(),
            "series[0].header.source.sha256: simulation run \"sim\": is not 64 lowercase "
            "hexadecimal digits");
  const grpc::Status long_file = refused(std::string(1025, 'f'), "");
  EXPECT_EQ(long_file.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(long_file.error_message(), HasSubstr("series[0].header.source.file: "));
  EXPECT_TRUE(refused(std::string(1024, 'f'), std::string(64, '0')).ok());
}

TEST_F(UploadTest, ParametersAndTrialAtTheirLimitsAreTaken) {
  v1::UploadSeriesRequest header = Header("a");
  for (int k = 0; k < 64; ++k) {
    (*header.mutable_header()->mutable_parameters())[absl::StrCat("p", k)] = k;
  }
  (*header.mutable_header()->mutable_parameters())["p0"] = -1e308;
  (*header.mutable_header()->mutable_parameters())["p1"] = 5e-324;
  header.mutable_header()->mutable_parameters()->erase("p2");
  (*header.mutable_header()->mutable_parameters())[std::string(64, 'x')] = 1.0;
  header.mutable_header()->set_trial(std::string(127, '~') + " ");
  const grpc::Status status = UploadMessages({header, Chunk({0, 1}, {1, 2}), End()});
  ASSERT_TRUE(status.ok()) << status.error_message();
  absl::StatusOr<v1::Session> session = GetSession(kSession);
  ASSERT_TRUE(session.ok()) << session.status();
  ASSERT_EQ(session->runs_size(), 1);
  EXPECT_EQ(session->runs(0).parameters_size(), 64);
  EXPECT_EQ(session->runs(0).parameters().at("p0"), -1e308);
  EXPECT_EQ(session->runs(0).parameters().at("p1"), 5e-324);
  EXPECT_EQ(session->runs(0).trial().size(), 128u);
}

TEST_F(UploadTest, BadParametersAndTrialsNameTheirField) {
  const auto expect_refused = [&](const v1::UploadSeriesRequest& header, const std::string& field,
                                  const std::string& message) {
    SCOPED_TRACE(message);
    const grpc::Status status = UploadMessages({header, Chunk({0, 1}, {1, 2}), End()});
    EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
    EXPECT_EQ(status.error_message(), absl::StrCat("series[0].", field, ": ", message));
    const std::optional<google::rpc::BadRequest> bad =
        test_support::FindDetail<google::rpc::BadRequest>(status);
    ASSERT_TRUE(bad.has_value());
    ASSERT_EQ(bad->field_violations_size(), 1);
    EXPECT_EQ(bad->field_violations(0).field(), absl::StrCat("series[0].", field));
  };
  const auto with_parameter = [](const std::string& name, double value) {
    v1::UploadSeriesRequest header = Header("sim");
    (*header.mutable_header()->mutable_parameters())["mass"] = 1.0;
    (*header.mutable_header()->mutable_parameters())[name] = value;
    return header;
  };
  const auto with_trial = [](const std::string& trial, v1::Role role = v1::ROLE_SIMULATION) {
    v1::UploadSeriesRequest header = Header("run", role);
    header.mutable_header()->set_trial(trial);
    return header;
  };
  const std::string name_rule =
      "\" must be 1 to 64 characters of [A-Za-z0-9_.-], not starting with a digit, so that it "
      "can be a CSV column and a JSON key: ";
  expect_refused(with_parameter("", 1.0), "header.parameters",
                 "simulation run \"sim\": parameter name \"" + name_rule + "it is empty");
  expect_refused(with_parameter(std::string(65, 'a'), 1.0), "header.parameters",
                 "simulation run \"sim\": parameter name \"" + std::string(64, 'a') +
                     "...\" (65 bytes)" + name_rule.substr(1) + "it has 65 characters");
  expect_refused(
      with_parameter("2nd_gear", 1.0), "header.parameters",
      "simulation run \"sim\": parameter name \"2nd_gear" + name_rule + "it starts with a digit");
  expect_refused(
      with_parameter("tyre width", 1.0), "header.parameters",
      "simulation run \"sim\": parameter name \"tyre width" + name_rule + "it holds ' '");
  expect_refused(with_parameter("a,b", 1.0), "header.parameters",
                 "simulation run \"sim\": parameter name \"a,b" + name_rule + "it holds ','");
  expect_refused(
      with_parameter("line\nbreak", 1.0), "header.parameters",
      "simulation run \"sim\": parameter name \"line\\nbreak" + name_rule + "it holds '\\n'");
  expect_refused(with_parameter("stiffness", NAN), "header.parameters",
                 "simulation run \"sim\": parameter \"stiffness\" must be finite, got nan");
  expect_refused(with_parameter("stiffness", -INFINITY), "header.parameters",
                 "simulation run \"sim\": parameter \"stiffness\" must be finite, got -inf");
  v1::UploadSeriesRequest crowded = Header("sim");
  for (int k = 0; k < 65; ++k) {
    (*crowded.mutable_header()->mutable_parameters())[absl::StrCat("p", k)] = k;
  }
  expect_refused(crowded, "header.parameters",
                 "simulation run \"sim\": header has 65 parameters, over the limit of 64");

  const std::string trial_rule =
      "simulation run \"run\": trial must be at most 128 characters of printable ASCII without "
      "commas, so that it can be a CSV field: ";
  expect_refused(with_trial(std::string(129, 't')), "header.trial",
                 trial_rule + "it has 129 characters");
  expect_refused(with_trial("seed,17"), "header.trial", trial_rule + "it holds ','");
  expect_refused(with_trial("seed\n17"), "header.trial", trial_rule + "it holds '\\n'");
  expect_refused(with_trial("\xc3\xa9t\xc3\xa9"), "header.trial", trial_rule + "it holds '\\xc3'");

  const std::string measured =
      "reference run \"run\": parameters and trial are for simulated runs only; a reference run "
      "is measured, not simulated";
  v1::UploadSeriesRequest reference = with_trial("", v1::ROLE_REFERENCE);
  (*reference.mutable_header()->mutable_parameters())["mass"] = 1.0;
  expect_refused(reference, "header.parameters", measured);
  expect_refused(with_trial("seed-17", v1::ROLE_REFERENCE), "header.trial", measured);
  EXPECT_TRUE(RunIds().empty());
  EXPECT_EQ(server_->sessions().total_bytes(), 0);
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
