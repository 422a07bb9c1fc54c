// The Validate stream's chunked report: ReportStream splits a report into messages of bounded
// size, ReportAssembler puts it back together and names what is wrong with a bad stream.

#include "wire/report_chunks.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace wasserwarp::wire {
namespace {

using ::testing::HasSubstr;

void SetMatrix(int rows, int cols, double first, v1::CostMatrix& matrix) {
  matrix.set_rows(rows);
  matrix.set_cols(cols);
  for (int k = 0; k < rows * cols; ++k) matrix.add_values(first + k);
}

v1::ValidationReport WholeReport() {
  v1::ValidationReport report;
  report.set_distance(1.5);
  SetMatrix(7, 9, 0.0, *report.mutable_cost_matrix());
  SetMatrix(16, 16, 1000.0, *report.mutable_pooled_cost_matrix());
  // Two-byte characters, so that some cuts fall inside one.
  std::string page = "<!DOCTYPE html>";
  for (int k = 0; k < 50; ++k) page += "Verschiebung \u00e4\u00f6\u00fc; ";
  report.set_html_report(page);
  return report;
}

std::vector<v1::ValidateResponse> Messages(const v1::ValidationReport& report, size_t chunk_bytes) {
  ReportStream stream(report, chunk_bytes);
  std::vector<v1::ValidateResponse> messages;
  v1::ValidateResponse message;
  while (stream.Next(message)) messages.push_back(message);
  EXPECT_TRUE(stream.done());
  return messages;
}

absl::StatusOr<v1::ValidationReport> Assemble(const std::vector<v1::ValidateResponse>& messages) {
  ReportAssembler assembler;
  for (const v1::ValidateResponse& message : messages) {
    absl::Status added = message.has_report() ? assembler.AddReport(message.report())
                                              : assembler.AddChunk(message.chunk());
    if (!added.ok()) return added;
  }
  return assembler.Finish();
}

TEST(ReportChunksTest, TheReportComesFirstAnnouncingWhatFollows) {
  const std::vector<v1::ValidateResponse> messages = Messages(WholeReport(), 80);
  ASSERT_GT(messages.size(), 3u);
  ASSERT_TRUE(messages[0].has_report());
  const v1::ValidationReport& announced = messages[0].report();
  EXPECT_EQ(announced.cost_matrix().rows(), 7);
  EXPECT_EQ(announced.cost_matrix().cols(), 9);
  EXPECT_EQ(announced.cost_matrix().values_size(), 0);
  EXPECT_EQ(announced.pooled_cost_matrix().values_size(), 0);
  EXPECT_TRUE(announced.html_report().empty());
  EXPECT_EQ(announced.html_report_bytes(),
            static_cast<int64_t>(WholeReport().html_report().size()));
  for (size_t k = 1; k < messages.size(); ++k) {
    ASSERT_TRUE(messages[k].has_chunk()) << k;
    EXPECT_LE(messages[k].chunk().ByteSizeLong(), 80u + 16u) << k;
  }
}

TEST(ReportChunksTest, SplitThenAssembledIsTheWholeReport) {
  for (size_t chunk_bytes : {size_t{8}, size_t{80}, size_t{1000}, kReportChunkBytes}) {
    absl::StatusOr<v1::ValidationReport> assembled = Assemble(Messages(WholeReport(), chunk_bytes));
    ASSERT_TRUE(assembled.ok()) << chunk_bytes << ": " << assembled.status();
    v1::ValidationReport expected = WholeReport();
    expected.set_html_report_bytes(static_cast<int64_t>(expected.html_report().size()));
    EXPECT_EQ(assembled->SerializeAsString(), expected.SerializeAsString()) << chunk_bytes;
  }
}

TEST(ReportChunksTest, AReportWithoutBulkyPartsIsOneMessage) {
  v1::ValidationReport report;
  report.set_distance(2.0);
  const std::vector<v1::ValidateResponse> messages = Messages(report, kReportChunkBytes);
  ASSERT_EQ(messages.size(), 1u);
  absl::StatusOr<v1::ValidationReport> assembled = Assemble(messages);
  ASSERT_TRUE(assembled.ok()) << assembled.status();
  EXPECT_EQ(assembled->distance(), 2.0);
  EXPECT_FALSE(assembled->has_cost_matrix());
}

// `spoil` applied to the stream of WholeReport() in chunks of 80 bytes.
absl::Status AssembleSpoiled(void (*spoil)(std::vector<v1::ValidateResponse>&)) {
  std::vector<v1::ValidateResponse> messages = Messages(WholeReport(), 80);
  spoil(messages);
  return Assemble(messages).status();
}

TEST(ReportChunksTest, AMalformedStreamSaysWhatIsWrong) {
  EXPECT_THAT(AssembleSpoiled([](auto& m) { m.erase(m.begin()); }).message(),
              HasSubstr("a report chunk before the report"));
  EXPECT_THAT(AssembleSpoiled([](auto& m) { m.insert(m.begin() + 1, m[0]); }).message(),
              HasSubstr("a second report"));
  EXPECT_THAT(AssembleSpoiled([](auto& m) { m.erase(m.begin() + 2); }).message(),
              HasSubstr("a chunk of the cost matrix at offset 20 where 10 was expected"));
  EXPECT_THAT(AssembleSpoiled([](auto& m) { m.pop_back(); }).message(),
              HasSubstr("the stream ended after"));
  EXPECT_THAT(AssembleSpoiled([](auto& m) { m.push_back(m.back()); }).message(),
              HasSubstr("the chunks of the HTML report carry more than the announced"));
  EXPECT_THAT(AssembleSpoiled([](auto& m) { std::swap(m[1], m.back()); }).message(),
              HasSubstr("a chunk of the HTML report before the cost matrix is complete"));
  EXPECT_THAT(
      AssembleSpoiled([](auto& m) { m[0].mutable_report()->clear_pooled_cost_matrix(); }).message(),
      HasSubstr("a chunk of the pooled cost matrix, which the report does not announce"));
  EXPECT_THAT(AssembleSpoiled([](auto& m) {
                m[0].mutable_report()->mutable_cost_matrix()->add_values(1.0);
              }).message(),
              HasSubstr("the report's cost matrix carries 1 values, which belong in chunks"));
  EXPECT_THAT(AssembleSpoiled([](auto& m) { m[1].mutable_chunk()->clear_part(); }).message(),
              HasSubstr("a report chunk with no part"));
  EXPECT_THAT(Assemble({}).status().message(), HasSubstr("the stream ended without a report"));
}

}  // namespace
}  // namespace wasserwarp::wire
