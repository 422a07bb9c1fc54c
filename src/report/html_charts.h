// The HTML report's chart sections: each is static HTML (headings,
// explanations, one <canvas> per chart, notes on what is missing) plus the
// JSON its script draws from. Canvases carry data-chart="<kind>" and an
// index into that kind's data.

#ifndef WASSERWARP_SRC_REPORT_HTML_CHARTS_H_
#define WASSERWARP_SRC_REPORT_HTML_CHARTS_H_

#include <cstddef>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"
#include "wasserwarp/html_report.h"
#include "wasserwarp/prepare.h"
#include "wasserwarp/report.h"

namespace wasserwarp {

struct ChartSection {
  std::string html;
  nlohmann::json data;  // null when there is nothing to draw
};

// A simulated run drawn against its matched references.
struct DrawnRun {
  size_t sim = 0;
  std::string label;  // "Worst 1", ..., "Best"
};

// The five simulated runs contributing most to W_q^q, worst first, and the
// one contributing least (when it is not among them); ties by run order.
std::vector<DrawnRun> RunsToDraw(const ValidationReport& report);

// Sorted horizontal bars of the simulated runs' contributions, the worst first.
ChartSection ContributionsSection(const ValidationReport& report,
                                  const std::vector<DrawnRun>& drawn);

// Per drawn run and channel, the simulated run and its matched reference
// runs on the aligned time axis in channel units, with one optimal edit
// path's matches as lines the reader can switch on. `prepared` holds the runs
// as the validation compared them.
absl::StatusOr<ChartSection> OverlaysSection(const ValidationReport& report,
                                             const PreparedRuns& prepared,
                                             const std::vector<DrawnRun>& drawn,
                                             const HtmlReportOptions& options);

// The simulated x reference TWED matrix as a heat map, plan pairs outlined;
// from report.cost_matrix, else the pooled matrix's block.
ChartSection CostMatrixSection(const ValidationReport& report);

// Classical MDS of the pooled TWED matrix, simulated and reference runs in
// their two colours.
absl::StatusOr<ChartSection> MdsSection(const ValidationReport& report);

// The weighted empirical CDFs of each quantity of interest, both sides on one chart.
ChartSection QuantitiesSection(const ValidationReport& report);

}  // namespace wasserwarp

#endif  // WASSERWARP_SRC_REPORT_HTML_CHARTS_H_
