// How runs are cut into upload messages: every message stays under the chunk size, and the
// messages put back together are the run.

#include <gtest/gtest.h>

#include <vector>

#include "random_runs.h"
#include "upload_messages.h"

namespace wasserwarp::client {
namespace {

// Proto framing of a chunk: tags and lengths of the two packed fields.
constexpr size_t kFramingBytes = 32;

struct Collected {
  std::vector<v1::UploadSeriesRequest> messages;
  bool Write(v1::UploadSeriesRequest& message) {
    messages.push_back(message);
    return true;
  }
};

TEST(UploadMessagesTest, HeaderChunksAndEndRebuildTheRun) {
  std::mt19937_64 rng(7);
  const Series run = test_data::RandomWalkRun(rng, "run", 1000, 3);
  const size_t chunk_bytes = 4096;
  Collected collected;
  ASSERT_TRUE(WriteRunMessages(run, {.role = v1::ROLE_REFERENCE, .weight = 2.5, .inputs = {}},
                               chunk_bytes,
                               [&](v1::UploadSeriesRequest& m) { return collected.Write(m); }));
  const std::vector<v1::UploadSeriesRequest>& messages = collected.messages;
  ASSERT_GE(messages.size(), 3u);

  ASSERT_TRUE(messages.front().has_header());
  EXPECT_EQ(messages.front().header().role(), v1::ROLE_REFERENCE);
  EXPECT_EQ(messages.front().header().series_id(), "run");
  EXPECT_EQ(messages.front().header().channels_size(), 3);
  EXPECT_EQ(messages.front().header().weight(), 2.5);
  ASSERT_TRUE(messages.back().has_end());
  EXPECT_EQ(messages.back().end().expected_samples(), 1000);

  Series rebuilt;
  for (size_t i = 1; i + 1 < messages.size(); ++i) {
    ASSERT_TRUE(messages[i].has_chunk());
    EXPECT_LE(messages[i].ByteSizeLong(), chunk_bytes + kFramingBytes);
    const v1::SeriesChunk& chunk = messages[i].chunk();
    EXPECT_EQ(chunk.values_size(), 3 * chunk.times_size());
    rebuilt.times.insert(rebuilt.times.end(), chunk.times().begin(), chunk.times().end());
    rebuilt.values.insert(rebuilt.values.end(), chunk.values().begin(), chunk.values().end());
  }
  EXPECT_EQ(rebuilt.times, run.times);
  EXPECT_EQ(rebuilt.values, run.values);
  EXPECT_TRUE(messages.front().session().empty());
}

TEST(UploadMessagesTest, UnweightedRunHasNoWeightAndNoInputs) {
  std::mt19937_64 rng(8);
  const Series run = test_data::RandomWalkRun(rng, "run", 10, 1);
  Collected collected;
  ASSERT_TRUE(WriteRunMessages(run, {}, kDefaultChunkBytes,
                               [&](v1::UploadSeriesRequest& m) { return collected.Write(m); }));
  ASSERT_EQ(collected.messages.size(), 3u);
  EXPECT_EQ(collected.messages.front().header().role(), v1::ROLE_SIMULATION);
  EXPECT_FALSE(collected.messages.front().header().has_weight());
  EXPECT_TRUE(collected.messages.front().header().parameters().empty());
  EXPECT_TRUE(collected.messages.front().header().trial().empty());
  EXPECT_TRUE(collected.messages.front().header().units().empty());
  EXPECT_EQ(collected.messages[1].chunk().times_size(), 10);
}

TEST(UploadMessagesTest, TheHeaderCarriesTheRunsUnits) {
  std::mt19937_64 rng(12);
  Series run = test_data::RandomWalkRun(rng, "run", 10, 2);
  run.units = {"deg/s", ""};
  Collected collected;
  ASSERT_TRUE(WriteRunMessages(run, {}, kDefaultChunkBytes,
                               [&](v1::UploadSeriesRequest& m) { return collected.Write(m); }));
  const v1::SeriesHeader& sent = collected.messages.front().header();
  ASSERT_EQ(sent.units_size(), 2);
  EXPECT_EQ(sent.units(0), "deg/s");
  EXPECT_EQ(sent.units(1), "");
}

TEST(UploadMessagesTest, TheHeaderCarriesTheParametersAndTrial) {
  std::mt19937_64 rng(11);
  const Series run = test_data::RandomWalkRun(rng, "run", 10, 1);
  Collected collected;
  const RunHeader header{
      .role = v1::ROLE_SIMULATION,
      .weight = std::nullopt,
      .inputs = {.parameters = {{"mass", 1200.0}, {"cf.front", 8e4}}, .trial = "seed-3"}};
  ASSERT_TRUE(WriteRunMessages(run, header, kDefaultChunkBytes,
                               [&](v1::UploadSeriesRequest& m) { return collected.Write(m); }));
  const v1::SeriesHeader& sent = collected.messages.front().header();
  EXPECT_EQ(sent.role(), v1::ROLE_SIMULATION);
  ASSERT_EQ(sent.parameters_size(), 2);
  EXPECT_EQ(sent.parameters().at("mass"), 1200.0);
  EXPECT_EQ(sent.parameters().at("cf.front"), 8e4);
  EXPECT_EQ(sent.trial(), "seed-3");
}

TEST(UploadMessagesTest, ASampleLargerThanAChunkTravelsAlone) {
  std::mt19937_64 rng(9);
  const Series run = test_data::RandomWalkRun(rng, "wide", 4, 100);
  Collected collected;
  ASSERT_TRUE(WriteRunMessages(run, {}, 64,
                               [&](v1::UploadSeriesRequest& m) { return collected.Write(m); }));
  ASSERT_EQ(collected.messages.size(), 6u);
  for (size_t i = 1; i < 5; ++i) EXPECT_EQ(collected.messages[i].chunk().times_size(), 1);
}

TEST(UploadMessagesTest, StopsAtTheFirstFailedWrite) {
  std::mt19937_64 rng(10);
  const Series run = test_data::RandomWalkRun(rng, "run", 1000, 1);
  int writes = 0;
  EXPECT_FALSE(
      WriteRunMessages(run, {}, 800, [&](v1::UploadSeriesRequest&) { return ++writes < 3; }));
  EXPECT_EQ(writes, 3);
}

}  // namespace
}  // namespace wasserwarp::client
