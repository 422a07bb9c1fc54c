#include "wire/report_chunks.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace wasserwarp::wire {
namespace {

constexpr absl::string_view kPartNames[] = {"cost matrix", "pooled cost matrix", "HTML report"};
constexpr absl::string_view kPartUnits[] = {"values", "values", "bytes"};

// A piece of the page must be valid UTF-8 by itself, as a proto string is.
bool IsUtf8Continuation(char byte) { return (static_cast<unsigned char>(byte) & 0xC0) == 0x80; }

absl::StatusOr<int64_t> AnnouncedValues(const v1::CostMatrix& matrix, absl::string_view name) {
  if (matrix.rows() < 0 || matrix.cols() < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("the report announces a ", matrix.rows(), " x ", matrix.cols(), " ", name));
  }
  if (matrix.values_size() != 0) {
    return absl::InvalidArgumentError(absl::StrCat("the report's ", name, " carries ",
                                                   matrix.values_size(),
                                                   " values, which belong in chunks"));
  }
  return static_cast<int64_t>(matrix.rows()) * matrix.cols();
}

}  // namespace

ReportStream::ReportStream(v1::ValidationReport report, size_t chunk_bytes)
    : chunk_bytes_(chunk_bytes), report_(std::move(report)) {
  if (report_->has_cost_matrix()) {
    cost_matrix_.values.Swap(report_->mutable_cost_matrix()->mutable_values());
  }
  if (report_->has_pooled_cost_matrix()) {
    pooled_cost_matrix_.values.Swap(report_->mutable_pooled_cost_matrix()->mutable_values());
  }
  html_report_.swap(*report_->mutable_html_report());
  report_->set_html_report_bytes(static_cast<int64_t>(html_report_.size()));
}

bool ReportStream::Next(v1::ValidateResponse& message) {
  if (report_.has_value()) {
    *message.mutable_report() = *std::move(report_);
    report_.reset();
    return true;
  }
  if (!cost_matrix_.done()) {
    FillMatrixChunk(cost_matrix_, *message.mutable_chunk()->mutable_cost_matrix());
    return true;
  }
  if (!pooled_cost_matrix_.done()) {
    FillMatrixChunk(pooled_cost_matrix_, *message.mutable_chunk()->mutable_pooled_cost_matrix());
    return true;
  }
  if (html_sent_ < html_report_.size()) {
    FillHtmlChunk(*message.mutable_chunk());
    return true;
  }
  return false;
}

bool ReportStream::done() const {
  return !report_.has_value() && cost_matrix_.done() && pooled_cost_matrix_.done() &&
         html_sent_ == html_report_.size();
}

void ReportStream::FillMatrixChunk(MatrixPart& part, v1::CostMatrixChunk& chunk) const {
  const int64_t per_chunk = std::max<int64_t>(1, chunk_bytes_ / sizeof(double));
  const int64_t end = std::min<int64_t>(part.values.size(), part.sent + per_chunk);
  chunk.set_offset(part.sent);
  chunk.mutable_values()->Assign(part.values.begin() + part.sent, part.values.begin() + end);
  part.sent = end;
}

void ReportStream::FillHtmlChunk(v1::ReportChunk& chunk) {
  size_t end = std::min(html_report_.size(), html_sent_ + std::max<size_t>(1, chunk_bytes_));
  while (end < html_report_.size() && end > html_sent_ + 1 &&
         IsUtf8Continuation(html_report_[end])) {
    --end;
  }
  chunk.set_html_report(html_report_.substr(html_sent_, end - html_sent_));
  html_sent_ = end;
}

absl::Status ReportAssembler::AddReport(v1::ValidationReport report) {
  if (report_.has_value()) return absl::InvalidArgumentError("a second report");
  if (report.has_cost_matrix()) {
    absl::StatusOr<int64_t> values = AnnouncedValues(report.cost_matrix(), kPartNames[kCostMatrix]);
    if (!values.ok()) return values.status();
    announced_[kCostMatrix] = *values;
  }
  if (report.has_pooled_cost_matrix()) {
    absl::StatusOr<int64_t> values =
        AnnouncedValues(report.pooled_cost_matrix(), kPartNames[kPooledCostMatrix]);
    if (!values.ok()) return values.status();
    announced_[kPooledCostMatrix] = *values;
  }
  if (report.html_report_bytes() < 0) {
    return absl::InvalidArgumentError(absl::StrCat("the report announces an HTML report of ",
                                                   report.html_report_bytes(), " bytes"));
  }
  if (!report.html_report().empty()) {
    return absl::InvalidArgumentError(
        "the report carries its HTML report inline, which belongs in chunks");
  }
  if (report.html_report_bytes() > 0) announced_[kHtmlReport] = report.html_report_bytes();
  for (int part = 0; part < kPartCount; ++part) {
    if (announced_[part].has_value() && *announced_[part] == 0) announced_[part].reset();
  }
  report_ = std::move(report);
  return absl::OkStatus();
}

absl::Status ReportAssembler::AddChunk(const v1::ReportChunk& chunk) {
  if (!report_.has_value()) return absl::InvalidArgumentError("a report chunk before the report");
  switch (chunk.part_case()) {
    case v1::ReportChunk::kCostMatrix:
      return AddMatrixChunk(kCostMatrix, chunk.cost_matrix());
    case v1::ReportChunk::kPooledCostMatrix:
      return AddMatrixChunk(kPooledCostMatrix, chunk.pooled_cost_matrix());
    case v1::ReportChunk::kHtmlReport: {
      const auto size = static_cast<int64_t>(chunk.html_report().size());
      if (absl::Status status = CheckFits(kHtmlReport, size); !status.ok()) return status;
      report_->mutable_html_report()->append(chunk.html_report());
      received_[kHtmlReport] += size;
      return absl::OkStatus();
    }
    case v1::ReportChunk::PART_NOT_SET:
      break;
  }
  return absl::InvalidArgumentError("a report chunk with no part");
}

absl::StatusOr<v1::ValidationReport> ReportAssembler::Finish() {
  if (!report_.has_value()) return absl::InvalidArgumentError("the stream ended without a report");
  for (int part = 0; part < kPartCount; ++part) {
    if (announced_[part].has_value() && received_[part] != *announced_[part]) {
      return absl::InvalidArgumentError(
          absl::StrCat("the stream ended after ", received_[part], " of the ", *announced_[part],
                       " ", kPartUnits[part], " of the ", kPartNames[part]));
    }
  }
  v1::ValidationReport report = *std::move(report_);
  report_.reset();
  return report;
}

absl::Status ReportAssembler::AddMatrixChunk(Part part, const v1::CostMatrixChunk& chunk) {
  const int64_t size = chunk.values_size();
  if (absl::Status status = CheckFits(part, size); !status.ok()) return status;
  if (chunk.offset() != received_[part]) {
    return absl::InvalidArgumentError(absl::StrCat("a chunk of the ", kPartNames[part],
                                                   " at offset ", chunk.offset(), " where ",
                                                   received_[part], " was expected"));
  }
  v1::CostMatrix* matrix =
      part == kCostMatrix ? report_->mutable_cost_matrix() : report_->mutable_pooled_cost_matrix();
  matrix->mutable_values()->Add(chunk.values().begin(), chunk.values().end());
  received_[part] += size;
  return absl::OkStatus();
}

absl::Status ReportAssembler::CheckFits(Part part, int64_t size) const {
  if (!announced_[part].has_value()) {
    return absl::InvalidArgumentError(
        absl::StrCat("a chunk of the ", kPartNames[part], ", which the report does not announce"));
  }
  for (int earlier = 0; earlier < part; ++earlier) {
    if (announced_[earlier].has_value() && received_[earlier] != *announced_[earlier]) {
      return absl::InvalidArgumentError(absl::StrCat("a chunk of the ", kPartNames[part],
                                                     " before the ", kPartNames[earlier],
                                                     " is complete"));
    }
  }
  if (received_[part] + size > *announced_[part]) {
    return absl::InvalidArgumentError(absl::StrCat("the chunks of the ", kPartNames[part],
                                                   " carry more than the announced ",
                                                   *announced_[part], " ", kPartUnits[part]));
  }
  return absl::OkStatus();
}

}  // namespace wasserwarp::wire
