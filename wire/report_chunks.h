// The Validate stream's chunked report (see ReportChunk in the proto): the
// report without its bulky parts, then those parts in chunks, so that no
// message approaches gRPC's default 4 MiB receive limit. The service splits a
// report with ReportStream; clients put it back together with ReportAssembler.

#ifndef WASSERWARP_WIRE_REPORT_CHUNKS_H_
#define WASSERWARP_WIRE_REPORT_CHUNKS_H_

#include <google/protobuf/repeated_field.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "wasserwarp/v1/validation.pb.h"

namespace wasserwarp::wire {

// The payload of one chunk at most, well under 4 MiB with the framing.
inline constexpr size_t kReportChunkBytes = 1 << 20;

// The messages that carry one report, produced one at a time so that only the
// message being written is held twice.
class ReportStream {
 public:
  ReportStream() = default;
  // Moves the values of the matrices and the HTML page out of `report`,
  // which then announces them.
  explicit ReportStream(v1::ValidationReport report, size_t chunk_bytes = kReportChunkBytes);

  // Fills `message` with the next message: the report, then the chunks.
  // False, leaving `message` alone, when every message was given.
  bool Next(v1::ValidateResponse& message);
  bool done() const;

 private:
  struct MatrixPart {
    google::protobuf::RepeatedField<double> values;
    int64_t sent = 0;
    bool done() const { return sent == values.size(); }
  };

  void FillMatrixChunk(MatrixPart& part, v1::CostMatrixChunk& chunk) const;
  void FillHtmlChunk(v1::ReportChunk& chunk);

  size_t chunk_bytes_ = kReportChunkBytes;
  std::optional<v1::ValidationReport> report_;
  MatrixPart cost_matrix_;
  MatrixPart pooled_cost_matrix_;
  std::string html_report_;
  size_t html_sent_ = 0;
};

// Rebuilds a report from the Validate stream's report and chunks: the matrices
// with their values, html_report with the page. A stream that does not carry
// exactly what its report announces is InvalidArgument, saying what is wrong.
class ReportAssembler {
 public:
  absl::Status AddReport(v1::ValidationReport report);
  absl::Status AddChunk(const v1::ReportChunk& chunk);
  // The report, once every part it announced is complete.
  absl::StatusOr<v1::ValidationReport> Finish();

 private:
  // In the order their chunks travel.
  enum Part { kCostMatrix, kPooledCostMatrix, kHtmlReport, kPartCount };

  absl::Status AddMatrixChunk(Part part, const v1::CostMatrixChunk& chunk);
  // OK when a chunk of `size` may come next: its part announced, the parts
  // before it complete, no more than announced.
  absl::Status CheckFits(Part part, int64_t size) const;

  std::optional<v1::ValidationReport> report_;
  // Unset: the report has no such part, or an empty one, so no chunks of it.
  std::optional<int64_t> announced_[kPartCount];
  int64_t received_[kPartCount] = {};
};

}  // namespace wasserwarp::wire

#endif  // WASSERWARP_WIRE_REPORT_CHUNKS_H_
