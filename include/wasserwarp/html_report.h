// A validation as one self-contained HTML page: the verdict first, then the
// charts behind it (per-run contributions, overlays of the worst and best
// simulated runs with their matched references, the cost matrix, a 2-D map
// of all runs, the empirical CDFs of the quantities of interest) and the
// classic metrics. Chart.js, the page's script and style are inlined, and a
// Content-Security-Policy forbids every network request, so the file opens
// anywhere, offline.

#ifndef WASSERWARP_HTML_REPORT_H_
#define WASSERWARP_HTML_REPORT_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "wasserwarp/edit_path.h"
#include "wasserwarp/report.h"
#include "wasserwarp/runs_view.h"

namespace wasserwarp {

struct HtmlReportOptions {
  std::string tool_version;  // e.g. "0.1.0"
  std::string generated_at;  // e.g. an ISO 8601 time; shown as given
  std::string title;         // empty: "wasserwarp validation report"
  // Longer runs are drawn from the minimum and maximum of each bucket of
  // consecutive samples (the chart says so); at least 16.
  int max_points_per_series = 2000;
  // Edit-path lines are drawn only for pairs whose DP matrix has at most this
  // many cells (the chart says when they are not).
  uint64_t max_edit_path_cells = kDefaultMaxEditPathCells;
};

// The page for `report`, which Validate returned for exactly these raw runs
// (same order and ids): they are prepared again as report.channels,
// report.align and report.scale say, and drawn in channel units on the
// aligned time axis. Sections whose data the report lacks (no verdict, no
// cost matrix kept, no pooled matrix kept, no quantities) say what is missing.
// InvalidArgument when the runs do not match the report.
absl::StatusOr<std::string> RenderHtmlReport(const ValidationReport& report,
                                             const RunsView& simulation, const RunsView& reference,
                                             const HtmlReportOptions& options);

// The page of a stored `report` whose runs' samples are no longer held (the server's session
// expired or was deleted, its records kept): as RenderHtmlReport, but the overlays of runs say
// why they are not drawn and the inputs give only the number of runs. InvalidArgument when the
// report is inconsistent.
absl::StatusOr<std::string> RenderHtmlReportWithoutRuns(const ValidationReport& report,
                                                        const HtmlReportOptions& options);

}  // namespace wasserwarp

#endif  // WASSERWARP_HTML_REPORT_H_
