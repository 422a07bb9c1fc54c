#include "wasserwarp/html_report.h"

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "nlohmann/json.hpp"
#include "report/html_assets.h"
#include "report/html_charts.h"
#include "report/html_iso18571.h"
#include "report/html_page.h"
#include "report/html_summary.h"
#include "report/html_window.h"
#include "wasserwarp/prepare.h"
#include "wasserwarp/report.h"
#include "wasserwarp/runs_view.h"

namespace wasserwarp {
namespace {

// Fewer points than this cannot show a run's shape.
constexpr int kMinPointsPerSeries = 16;

absl::Status CheckRunsMatch(absl::string_view side, const std::vector<RunSummary>& summaries,
                            const RunsView& runs) {
  if (summaries.size() != runs.size()) {
    return absl::InvalidArgumentError(absl::StrCat("the report has ", summaries.size(), " ", side,
                                                   " runs but ", runs.size(), " were given"));
  }
  for (size_t k = 0; k < runs.size(); ++k) {
    if (summaries[k].id != runs[k].id) {
      return absl::InvalidArgumentError(absl::StrCat(side, " run ", k, " is '", runs[k].id,
                                                     "' but the report has '", summaries[k].id,
                                                     "' there"));
    }
  }
  return absl::OkStatus();
}

absl::Status CheckRuns(const ValidationReport& report, const RunsView& simulation,
                       const RunsView& reference, const HtmlReportOptions& options) {
  if (options.max_points_per_series < kMinPointsPerSeries) {
    return absl::InvalidArgumentError(absl::StrCat("max_points_per_series is ",
                                                   options.max_points_per_series,
                                                   "; it must be at least ", kMinPointsPerSeries));
  }
  if (absl::Status s = CheckRunsMatch("simulated", report.simulation, simulation); !s.ok()) {
    return s;
  }
  return CheckRunsMatch("reference", report.reference, reference);
}

// The report's own parts agree with its n simulated and m reference runs.
absl::Status CheckReport(const ValidationReport& report) {
  const size_t n = report.simulation.size();
  const size_t m = report.reference.size();
  if (report.sim_contributions.size() != n) {
    return absl::InvalidArgumentError(absl::StrCat("the report has ",
                                                   report.sim_contributions.size(),
                                                   " simulated contributions for ", n, " runs"));
  }
  for (const PlanEntry& entry : report.plan) {
    if (entry.row < 0 || static_cast<size_t>(entry.row) >= n || entry.col < 0 ||
        static_cast<size_t>(entry.col) >= m) {
      return absl::InvalidArgumentError(absl::StrCat("plan entry (", entry.row, ", ", entry.col,
                                                     ") is outside the ", n, " x ", m, " runs"));
    }
  }
  if (report.cost_matrix && (report.cost_matrix->rows != n || report.cost_matrix->cols != m)) {
    return absl::InvalidArgumentError(absl::StrCat("the cost matrix is ", report.cost_matrix->rows,
                                                   " x ", report.cost_matrix->cols, ", not ", n,
                                                   " x ", m));
  }
  if (report.pooled_cost_matrix &&
      (report.pooled_cost_matrix->rows != n + m || report.pooled_cost_matrix->cols != n + m)) {
    return absl::InvalidArgumentError(
        absl::StrCat("the pooled matrix is ", report.pooled_cost_matrix->rows, " x ",
                     report.pooled_cost_matrix->cols, ", not ", n + m, " x ", n + m));
  }
  return absl::OkStatus();
}

// The page from its sections; `overlays` are the runs' charts, or why there are none.
absl::StatusOr<std::string> RenderPage(const ValidationReport& report,
                                       const std::vector<DrawnRun>& drawn,
                                       const ChartSection& overlays, const RunsView& simulation,
                                       const RunsView& reference,
                                       const HtmlReportOptions& options) {
  const ChartSection contributions = ContributionsSection(report, drawn);
  const ChartSection cost_matrix = CostMatrixSection(report);
  absl::StatusOr<ChartSection> mds = MdsSection(report);
  if (!mds.ok()) return mds.status();
  const ChartSection quantities = QuantitiesSection(report);

  Page page{.title = PageTitle(options, kValidationTitle),
            .banner = VerdictBannerHtml(report, options),
            .main = absl::StrCat(VerdictSectionHtml(report),
                                 InputsSectionHtml(report, simulation, reference, options),
                                 WindowSectionHtml(report), contributions.html, overlays.html,
                                 cost_matrix.html, mds->html, quantities.html,
                                 PairMetricsSectionHtml(report), Iso18571SectionHtml(report)),
            .data = {{"contributions", contributions.data},
                     {"overlays", overlays.data},
                     {"heatmap", cost_matrix.data},
                     {"mds", mds->data},
                     {"quantities", quantities.data}},
            .script = html_assets::ReportScript()};
  return PageHtml(page, options);
}

}  // namespace

absl::StatusOr<std::string> RenderHtmlReport(const ValidationReport& report,
                                             const RunsView& all_simulation,
                                             const RunsView& all_reference,
                                             const HtmlReportOptions& options) {
  const RunsView simulation = WindowedRunsOf(report, all_simulation, "simulation");
  const RunsView reference = WindowedRunsOf(report, all_reference, "reference");
  if (absl::Status s = CheckRuns(report, simulation, reference, options); !s.ok()) return s;
  if (absl::Status s = CheckReport(report); !s.ok()) return s;
  absl::StatusOr<PreparedRuns> prepared =
      PrepareRuns(simulation, reference,
                  PrepareOptions{.channels = report.channels,
                                 .align = report.align,
                                 .scale = report.scale,
                                 .resample_rate = report.resample_rate,
                                 .window = report.window,
                                 .channel_map = report.channel_map});
  if (!prepared.ok()) return prepared.status();
  const std::vector<DrawnRun> drawn = RunsToDraw(report);
  absl::StatusOr<ChartSection> overlays = OverlaysSection(report, *prepared, drawn, options);
  if (!overlays.ok()) return overlays.status();
  // The inputs as the validation compared them: with a window, as it cut them.
  return RenderPage(report, drawn, *overlays, RunsAsCut(prepared->windowed_simulation, simulation),
                    RunsAsCut(prepared->windowed_reference, reference), options);
}

absl::StatusOr<std::string> RenderHtmlReportWithoutRuns(const ValidationReport& report,
                                                        const HtmlReportOptions& options) {
  if (absl::Status s = CheckReport(report); !s.ok()) return s;
  const ChartSection overlays{
      .html = absl::StrCat("<section id=\"overlays\">\n<h2>Worst and best simulated runs</h2>\n",
                           Note("The runs' samples are no longer held (their session expired or "
                                "was deleted; its validation records are kept), so the runs are "
                                "not drawn."),
                           "</section>\n"),
      .data = nlohmann::json::array()};
  return RenderPage(report, RunsToDraw(report), overlays, RunsView(), RunsView(), options);
}

}  // namespace wasserwarp
