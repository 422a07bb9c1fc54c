// What a report says it is evidence of: SHA-256, the label rule, run sources, the run checksum,
// the request digest, the engine, and their keys in the JSON report.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "nlohmann/json.hpp"
#include "scratch_dir.h"
#include "wasserwarp/engine_info.h"
#include "wasserwarp/field_error.h"
#include "wasserwarp/labels.h"
#include "wasserwarp/report_json.h"
#include "wasserwarp/request_digest.h"
#include "wasserwarp/run_checksum.h"
#include "wasserwarp/run_source.h"
#include "wasserwarp/sha256.h"
#include "wasserwarp/validation.h"

namespace wasserwarp {
namespace {

using ::testing::HasSubstr;

TEST(Sha256Test, FipsVectors) {
  // FIPS 180-2, appendix B.1, and the empty message.
  EXPECT_EQ(Sha256Hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(Sha256Hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(Sha256Hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

TEST(Sha256Test, FileSha256IsTheBytesSha256) {
  test_support::ScratchDir dir("sha256_");
  const std::string path = (dir.root() / "run.csv").string();
  // Over one read buffer, so that the file is hashed in pieces.
  std::string bytes;
  for (int i = 0; i < 100000; ++i) bytes += "t,x\n";
  test_support::WriteFile(path, bytes);
  absl::StatusOr<std::string> hashed = FileSha256(path);
  ASSERT_TRUE(hashed.ok()) << hashed.status();
  EXPECT_EQ(*hashed, Sha256Hex(bytes));
  absl::StatusOr<std::string> missing = FileSha256((dir.root() / "none.csv").string());
  EXPECT_FALSE(missing.ok());
  EXPECT_THAT(missing.status().message(), HasSubstr("none.csv"));
}

TEST(Sha256Test, IsSha256Hex) {
  EXPECT_TRUE(IsSha256Hex(Sha256Hex("x")));
  EXPECT_FALSE(IsSha256Hex(""));
  EXPECT_FALSE(IsSha256Hex(std::string(64, 'A')));
  EXPECT_FALSE(IsSha256Hex(std::string(63, 'a')));
}

TEST(LabelsTest, AcceptsTheRule) {
  std::map<std::string, std::string> labels = {
      {"release", "2.4"},
      {"a", ""},
      {"vehicle.team/variant_1-b", std::string(kMaxLabelValueLength, 'v')},
      {"k" + std::string(62, 'x'), "v"}};
  EXPECT_TRUE(CheckLabels(labels, "labels").ok());
  EXPECT_TRUE(CheckLabels({}, "labels").ok());
}

TEST(LabelsTest, RefusesEachRuleNamingTheLabel) {
  for (const std::string& key :
       {std::string("Release"), std::string("1st"), std::string(""), std::string("a b"),
        std::string("a/b/c"), std::string("/b"), std::string("a/"), "k" + std::string(63, 'x'),
        std::string("d/") + "k" + std::string(63, 'x')}) {
    const absl::Status status = CheckLabels({{key, "v"}}, "labels");
    EXPECT_TRUE(absl::IsInvalidArgument(status)) << key;
    EXPECT_EQ(ErrorField(status), "labels[" + key + "]");
    EXPECT_THAT(status.message(), HasSubstr("[a-z][a-z0-9_.-]{0,62}")) << key;
  }
  const absl::Status long_value =
      CheckLabels({{"release", std::string(kMaxLabelValueLength + 1, 'v')}}, "request.labels");
  EXPECT_EQ(ErrorField(long_value), "request.labels[release]");
  EXPECT_THAT(long_value.message(), HasSubstr("257 characters"));

  std::map<std::string, std::string> many;
  for (size_t i = 0; i < kMaxLabels + 1; ++i) many[absl::StrCat("l", 100 + i)] = "v";
  const absl::Status too_many = CheckLabels(many, "labels");
  EXPECT_TRUE(absl::IsInvalidArgument(too_many));
  EXPECT_EQ(ErrorField(too_many), "labels[l164]");
  EXPECT_THAT(too_many.message(), HasSubstr("at most 64 labels"));
}

TEST(RunSourceTest, Checks) {
  EXPECT_TRUE(CheckRunSource({"runs/a.csv", Sha256Hex("a")}, "header.source").ok());
  EXPECT_TRUE(CheckRunSource({"a.csv", ""}, "header.source").ok());
  EXPECT_EQ(ErrorField(CheckRunSource({"a.csv", "ABC"}, "header.source")), "header.source.sha256");
  EXPECT_EQ(ErrorField(CheckRunSource({std::string(kMaxRunSourceFileLength + 1, 'f'), ""}, "s")),
            "s.file");
}

Series MakeRun(std::string id, std::vector<double> times, std::vector<double> values,
               std::vector<std::string> channels) {
  return {std::move(id), std::move(channels), std::move(times), std::move(values)};
}

TEST(RunChecksumTest, ValuesNeverChange) {
  // Computed by the server's RunChecksum before it moved into the core; databases hold them.
  EXPECT_EQ(RunChecksumHex(RunChecksum(MakeRun("a", {0.0, 0.5, 1.0}, {1.0, -2.0, 3.5}, {"x"}))),
            "5cfe332880bf0284");
  EXPECT_EQ(RunChecksumHex(RunChecksum(MakeRun("b", {0.0, 0.1}, {1.0, 2.0, 3.0, 4.0}, {"x", "y"}))),
            "6748acbac28c706b");
  EXPECT_EQ(RunChecksumHex(RunChecksum(Series{})), "99b6af62e3885e8f");
}

class RequestDigestTest : public ::testing::Test {
 protected:
  std::vector<Series> simulation = {MakeRun("s0", {0, 1, 2}, {0, 1, 0}, {"x"}),
                                    MakeRun("s1", {0, 1, 2}, {0, 2, 0}, {"x"})};
  std::vector<Series> reference = {MakeRun("r0", {0, 1, 2}, {0, 1.5, 0}, {"x"})};
  ValidationOptions options;
};

TEST_F(RequestDigestTest, SameInputsSameDigest) {
  const std::string digest = RequestDigest(options, simulation, reference);
  EXPECT_TRUE(IsSha256Hex(digest));
  EXPECT_EQ(RequestDigest(options, simulation, reference), digest);
  EXPECT_EQ(Sha256Hex(RequestDigestText(options, simulation, reference)), digest);
  EXPECT_THAT(RequestDigestText(options, simulation, reference),
              HasSubstr("run simulation 2:s0 " + RunChecksumHex(RunChecksum(simulation[0]))));
}

TEST_F(RequestDigestTest, WhatDoesNotChangeTheResultDoesNotChangeIt) {
  const std::string digest = RequestDigest(options, simulation, reference);
  ValidationOptions other = options;
  other.keep_cost_matrix = true;
  other.keep_pooled_cost_matrix = true;
  other.exhaustive = true;
  other.compute.max_threads = 3;
  EXPECT_EQ(RequestDigest(other, simulation, reference), digest);
}

TEST_F(RequestDigestTest, ParametersAndRunsChangeIt) {
  const std::string digest = RequestDigest(options, simulation, reference);
  ValidationOptions nu = options;
  nu.twed.nu = 0.002;
  EXPECT_NE(RequestDigest(nu, simulation, reference), digest);
  ValidationOptions verdict = options;
  verdict.verdict = VerdictOptions();
  EXPECT_NE(RequestDigest(verdict, simulation, reference), digest);
  ValidationOptions weights = options;
  weights.simulation_weights = {1, 2};
  EXPECT_NE(RequestDigest(weights, simulation, reference), digest);
  std::vector<Series> changed = simulation;
  changed[1].values[1] = 2.5;
  EXPECT_NE(RequestDigest(options, changed, reference), digest);
  // The roles are part of it: the same runs on the other side are other evidence.
  EXPECT_NE(RequestDigest(options, reference, simulation), digest);
  EXPECT_NE(RequestDigest(options, simulation, reference, "study"), digest);
}

TEST(EngineTest, SaysWhatBuiltIt) {
  const EngineInfo engine = ThisEngine();
  EXPECT_FALSE(engine.version.empty());
  EXPECT_FALSE(engine.commit.empty());
  EXPECT_FALSE(engine.build_type.empty());
  EXPECT_FALSE(engine.simd_target.empty());
  EXPECT_EQ(ThisEngine(), engine);
}

TEST(EvidenceJsonTest, ReportCarriesEvidence) {
  const std::vector<Series> simulation = {MakeRun("s0", {0, 1, 2}, {0, 1, 0}, {"x"})};
  const std::vector<Series> reference = {MakeRun("r0", {0, 1, 2}, {0, 1.5, 0}, {"x"})};
  absl::StatusOr<ValidationReport> report = Validate(simulation, reference, {});
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_EQ(report->request_digest, RequestDigest({}, simulation, reference));
  ASSERT_TRUE(report->engine.has_value());
  EXPECT_EQ(*report->engine, ThisEngine());
  report->labels = {{"release", "2.4"}};
  report->simulation[0].source = RunSource{"sim/s0.csv", Sha256Hex("s0")};

  const nlohmann::json json = nlohmann::json::parse(ReportToJson(*report));
  EXPECT_EQ(json["labels"], nlohmann::json({{"release", "2.4"}}));
  EXPECT_EQ(json["engine"]["version"], report->engine->version);
  EXPECT_EQ(json["engine"]["commit"], report->engine->commit);
  EXPECT_EQ(json["engine"]["build_type"], report->engine->build_type);
  EXPECT_EQ(json["engine"]["simd_target"], report->engine->simd_target);
  EXPECT_EQ(json["request_digest"], report->request_digest);
  EXPECT_EQ(json["simulation"][0]["source"]["file"], "sim/s0.csv");
  EXPECT_EQ(json["simulation"][0]["source"]["sha256"], Sha256Hex("s0"));
  EXPECT_FALSE(json["reference"][0].contains("source"));

  // A report stored before the evidence: empty labels, no engine, no digest.
  const nlohmann::json bare = nlohmann::json::parse(ReportToJson(ValidationReport{}));
  EXPECT_EQ(bare["labels"], nlohmann::json::object());
  EXPECT_TRUE(bare["engine"].is_null());
  EXPECT_TRUE(bare["request_digest"].is_null());
}

}  // namespace
}  // namespace wasserwarp
