// Every malformed upload a client can send, one table row each: the stream,
// the status code it must get, and what the message must name (the run, the
// sample, the channel, the limit). After each, the session holds exactly the
// run it held before, with the same bytes.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <ostream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "server_test_util.h"

namespace wasserwarp::service::testing {
namespace {

using ::testing::HasSubstr;

constexpr char kSession[] = "sessions/bad";
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr int64_t kMaxSamplesPerRun = 1000;
constexpr int64_t kMaxMessageBytes = 64 << 10;

struct MalformedUpload {
  std::string name;
  std::vector<v1::UploadSeriesRequest> messages;
  grpc::StatusCode code;
  std::vector<std::string> mentions;
};

void PrintTo(const MalformedUpload& upload, std::ostream* out) { *out << upload.name; }

v1::UploadSeriesRequest Header(const std::string& id,
                               const std::vector<std::string>& channels = {"c0"},
                               v1::Role role = v1::ROLE_SIMULATION) {
  v1::UploadSeriesRequest message;
  message.set_session(kSession);
  message.mutable_header()->set_role(role);
  message.mutable_header()->set_series_id(id);
  for (const std::string& channel : channels) message.mutable_header()->add_channels(channel);
  return message;
}

v1::UploadSeriesRequest Weighted(double weight) {
  v1::UploadSeriesRequest message = Header("a");
  message.mutable_header()->set_weight(weight);
  return message;
}

// Run "a" with a parameter and a trial.
v1::UploadSeriesRequest WithInputs(const std::string& parameter, double value,
                                   const std::string& trial, v1::Role role = v1::ROLE_SIMULATION) {
  v1::UploadSeriesRequest message = Header("a", {"c0"}, role);
  (*message.mutable_header()->mutable_parameters())[parameter] = value;
  message.mutable_header()->set_trial(trial);
  return message;
}

v1::UploadSeriesRequest Chunk(const std::vector<double>& times, const std::vector<double>& values) {
  v1::UploadSeriesRequest message;
  message.mutable_chunk()->mutable_times()->Assign(times.begin(), times.end());
  message.mutable_chunk()->mutable_values()->Assign(values.begin(), values.end());
  return message;
}

// `samples` samples of one channel, 1 s apart.
v1::UploadSeriesRequest Ramp(int samples) {
  std::vector<double> times(samples);
  for (int i = 0; i < samples; ++i) times[i] = i;
  return Chunk(times, times);
}

v1::UploadSeriesRequest End(int64_t expected_samples = 0) {
  v1::UploadSeriesRequest message;
  message.mutable_end()->set_expected_samples(expected_samples);
  return message;
}

v1::UploadSeriesRequest InSession(v1::UploadSeriesRequest message, const std::string& session) {
  message.set_session(session);
  return message;
}

std::vector<MalformedUpload> MalformedUploads() {
  using Code = grpc::StatusCode;
  const Code kInvalid = Code::INVALID_ARGUMENT;
  const std::vector<std::string> two = {"c0", "c1"};
  v1::UploadSeriesRequest anonymous = Header("a");
  anonymous.clear_session();
  const std::string long_id(1025, 'i');
  const std::string long_channel(257, 'c');
  const std::vector<std::string> many_channels(1025, "c");
  return {
      // Values and times that cannot enter a distance.
      {"NaNValue",
       {Header("a", two), Chunk({0, 1, 2}, {0, 0, 1, 1, 2, kNaN}), End()},
       kInvalid,
       {"simulation run \"a\"", "sample 2", "channel \"c1\"", "value nan is not finite"}},
      {"InfValue",
       {Header("a", two), Chunk({0, 1}, {0, kInf, 1, 1}), End()},
       kInvalid,
       {"simulation run \"a\"", "sample 0", "channel \"c1\"", "value inf is not finite"}},
      {"NegativeInfValue",
       {Header("a"), Chunk({0, 1}, {0, -kInf}), End()},
       kInvalid,
       {"sample 1", "channel \"c0\"", "value -inf is not finite"}},
      {"NaNTime",
       {Header("a"), Chunk({0, kNaN}, {0, 1}), End()},
       kInvalid,
       {"simulation run \"a\"", "sample 1", "time nan is not finite"}},
      {"InfTime",
       {Header("a"), Chunk({kInf}, {0}), End()},
       kInvalid,
       {"sample 0", "time inf is not finite"}},
      {"TimeBeyondRange",
       {Header("a"), Chunk({0, 1e301}, {0, 1}), End()},
       kInvalid,
       {"sample 1", "time 1e+301 s is beyond"}},
      {"DecreasingTimes",
       {Header("a"), Chunk({0, 2, 1}, {0, 0, 0}), End()},
       kInvalid,
       {"simulation run \"a\"", "sample 2", "time 1 is not after the previous time 2"}},
      {"DuplicateTimes",
       {Header("a", {"c0"}, v1::ROLE_REFERENCE), Chunk({0, 1, 1}, {0, 0, 0}), End()},
       kInvalid,
       {"reference run \"a\"", "sample 2", "time 1 is not after the previous time 1"}},
      {"DuplicateTimeAcrossChunks",
       {Header("a"), Chunk({0, 1}, {0, 0}), Chunk({1, 2}, {0, 0}), End()},
       kInvalid,
       {"sample 2", "time 1 is not after the previous time 1"}},
      // Channels.
      {"ZeroChannels",
       {Header("a", {})},
       kInvalid,
       {"simulation run \"a\"", "header names no channels"}},
      {"EmptyChannelName",
       {Header("a", {"c0", ""}), Chunk({0}, {0, 0}), End()},
       kInvalid,
       {"simulation run \"a\"", "channel 1 has an empty name"}},
      {"DuplicateChannelName",
       {Header("a", {"x", "x"}), Chunk({0}, {0, 0}), End()},
       kInvalid,
       {"simulation run \"a\"", "channel \"x\" appears twice"}},
      {"MoreValuesThanChannels",
       {Header("a", two), Chunk({0, 1, 2}, {0, 0, 1, 1, 2, 2, 3}), End()},
       kInvalid,
       {"simulation run \"a\"", "chunk starting at sample 0",
        "7 values for 3 samples x 2 channels"}},
      {"ValuesNotAMultipleOfChannels",
       {Header("a", {"c0", "c1", "c2"}), Chunk({0, 1}, {0, 0, 0, 1}), End()},
       kInvalid,
       {"chunk starting at sample 0", "4 values for 2 samples x 3 channels"}},
      {"ValuesWithoutTimes",
       {Header("a"), Chunk({}, {1, 2})},
       kInvalid,
       {"2 values for 0 samples x 1 channels"}},
      {"LaterChunkMismatchesChannels",
       {Header("a", two), Chunk({0}, {0, 0}), Chunk({1, 2}, {1, 1, 2}), End()},
       kInvalid,
       {"chunk starting at sample 1", "3 values for 2 samples x 2 channels"}},
      // The stream's grammar.
      {"RunWithoutEndMark",
       {Header("a"), Chunk({0, 1}, {0, 0})},
       kInvalid,
       {"the stream ended inside simulation run \"a\", before its end mark"}},
      {"HeaderBeforeEndMark",
       {Header("a"), Chunk({0, 1}, {0, 0}), Header("b")},
       kInvalid,
       {"header of run \"b\" before the end mark of simulation run \"a\""}},
      {"ChunkBeforeHeader",
       {InSession(Chunk({0}, {0}), kSession)},
       kInvalid,
       {"chunk of samples before any header"}},
      {"EndBeforeHeader", {InSession(End(), kSession)}, kInvalid, {"end mark before any header"}},
      {"RunWithoutSamples", {Header("a"), End()}, kInvalid, {"simulation run \"a\"", "no samples"}},
      {"EmptyStream", {}, kInvalid, {"ended without naming a session"}},
      {"FirstMessageNamesNoSession",
       {anonymous},
       kInvalid,
       {"the first upload message must name the session"}},
      {"SessionChangesMidStream",
       {Header("a"), InSession(Chunk({0}, {0}), "sessions/other")},
       kInvalid,
       {"sessions/other", kSession}},
      // Headers.
      {"UnspecifiedRole",
       {Header("a", {"c0"}, v1::ROLE_UNSPECIFIED)},
       kInvalid,
       {"header of run \"a\"", "role must be ROLE_SIMULATION or ROLE_REFERENCE"}},
      {"EmptySeriesId",
       {Header("")},
       kInvalid,
       {"series_id must have 1 to 1024 characters, got 0"}},
      {"NaNWeight", {Weighted(kNaN)}, kInvalid, {"simulation run \"a\"", "weight", "nan"}},
      {"InfWeight", {Weighted(kInf)}, kInvalid, {"simulation run \"a\"", "weight", "inf"}},
      {"NegativeWeight", {Weighted(-1)}, kInvalid, {"simulation run \"a\"", "weight", "-1"}},
      {"NaNParameter",
       {WithInputs("mass", kNaN, "t1"), Chunk({0}, {0}), End()},
       kInvalid,
       {"series[0].header.parameters", "parameter \"mass\" must be finite, got nan"}},
      {"ParameterNameStartingWithADigit",
       {WithInputs("2nd_gear", 1, "t1"), Chunk({0}, {0}), End()},
       kInvalid,
       {"simulation run \"a\"", "parameter name \"2nd_gear\"", "it starts with a digit"}},
      {"TrialWithAComma",
       {WithInputs("mass", 1, "seed,7"), Chunk({0}, {0}), End()},
       kInvalid,
       {"series[0].header.trial", "without commas", "it holds ','"}},
      {"ReferenceWithParameters",
       {WithInputs("mass", 1, "", v1::ROLE_REFERENCE), Chunk({0}, {0}), End()},
       kInvalid,
       {"reference run \"a\"", "parameters and trial are for simulated runs only"}},
      {"DuplicateSeriesId",
       {Header("kept"), Chunk({0}, {0}), End()},
       Code::ALREADY_EXISTS,
       {"simulation run \"kept\""}},
      // Sessions.
      {"UnknownSession",
       {InSession(Header("a"), "sessions/none")},
       Code::NOT_FOUND,
       {"sessions/none"}},
      {"MalformedSessionName", {InSession(Header("a"), "bad")}, kInvalid, {"session", "\"bad\""}},
      // Huge declared sizes and oversized messages.
      {"EndMarkExpectsHugeCount",
       {Header("a"), Chunk({0, 1, 2}, {0, 0, 0}), End(int64_t{1} << 62)},
       kInvalid,
       {"simulation run \"a\" ends after 3 samples, its end mark expects 4611686018427387904"}},
      {"EndMarkExpectsNegativeCount",
       {Header("a"), Chunk({0, 1, 2}, {0, 0, 0}), End(-5)},
       kInvalid,
       {"ends after 3 samples, its end mark expects -5"}},
      {"TooManyChannels",
       {Header("a", many_channels)},
       kInvalid,
       {"simulation run \"a\"", "header names 1025 channels, over the limit of 1024"}},
      {"LongSeriesId", {Header(long_id)}, kInvalid, {"series_id must have 1 to 1024 characters"}},
      {"LongChannelName",
       {Header("a", {"c0", long_channel})},
       kInvalid,
       {"simulation run \"a\"", "the name of channel 1 has 257 characters"}},
      {"MoreSamplesThanAllowed",
       {Header("a"), Ramp(600), Ramp(401)},
       Code::RESOURCE_EXHAUSTED,
       {"simulation run \"a\"", "--max_samples_per_run"}},
      {"OversizedMessage",
       {Header("a"), Ramp(5000), End()},
       Code::RESOURCE_EXHAUSTED,
       {"larger than max"}},
  };
}

class MalformedInputTest : public ServerTest,
                           public ::testing::WithParamInterface<MalformedUpload> {
 protected:
  void SetUp() override {
    ServerConfig config = TestConfig();
    config.sessions.max_samples_per_run = kMaxSamplesPerRun;
    config.max_message_bytes = kMaxMessageBytes;
    StartServer(config);
    ASSERT_TRUE(CreateSession("bad").ok());
    std::vector<v1::UploadSeriesRequest> kept = {Header("kept"), Chunk({0, 1}, {5, 6}), End(2)};
    ASSERT_TRUE(UploadMessages(kept).ok());
  }
};

TEST_P(MalformedInputTest, IsRefusedByNameAndLeavesTheSessionAsItWas) {
  const MalformedUpload& upload = GetParam();
  const absl::StatusOr<v1::Session> before = GetSession(kSession);
  ASSERT_TRUE(before.ok()) << before.status();
  const int64_t total_before = server_->sessions().total_bytes();

  const grpc::Status status = UploadMessages(upload.messages);
  EXPECT_EQ(status.error_code(), upload.code) << status.error_message();
  for (const std::string& mention : upload.mentions) {
    EXPECT_THAT(status.error_message(), HasSubstr(mention));
  }

  const absl::StatusOr<v1::Session> after = GetSession(kSession);
  ASSERT_TRUE(after.ok()) << after.status();
  ASSERT_EQ(after->runs_size(), 1);
  EXPECT_EQ(after->runs(0).SerializeAsString(), before->runs(0).SerializeAsString());
  EXPECT_EQ(after->bytes_held(), before->bytes_held());
  // A message over the size limit is refused by gRPC itself, whose status can reach the client
  // before the upload's reactor has given back what its header reserved.
  for (const absl::Time give_up = absl::Now() + absl::Seconds(5);
       server_->sessions().total_bytes() != total_before && absl::Now() < give_up;) {
    absl::SleepFor(absl::Milliseconds(10));
  }
  EXPECT_EQ(server_->sessions().total_bytes(), total_before);
}

INSTANTIATE_TEST_SUITE_P(EveryMalformedUpload, MalformedInputTest,
                         ::testing::ValuesIn(MalformedUploads()),
                         [](const ::testing::TestParamInfo<MalformedUpload>& info) {
                           return info.param.name;
                         });

}  // namespace
}  // namespace wasserwarp::service::testing
