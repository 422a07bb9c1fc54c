// The HTML report's chart sections other than the overlays.

#include "report/html_charts.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <numeric>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "nlohmann/json.hpp"
#include "report/html_escape.h"
#include "report/html_page.h"
#include "report/html_text.h"
#include "report/mds.h"
#include "wasserwarp/cost_matrix.h"
#include "wasserwarp/quantity_of_interest.h"
#include "wasserwarp/report.h"
#include "wasserwarp/transport.h"
#include "wasserwarp/verdict.h"

namespace wasserwarp {
namespace {

using Json = nlohmann::json;

// Beyond this the bars are too thin to read; the worst runs matter most.
constexpr size_t kMaxContributionBars = 100;
// Cells per side of the heat map before runs are aggregated into blocks.
constexpr size_t kMaxHeatMapSide = 60;

// W_q^q, which the contributions add up to; W_1 itself when q = 1.
std::string Power(const ValidationReport& report) {
  const std::string q = FormatNumber(report.order, 3);
  if (report.order == 1.0) return "W<sub>1</sub>";
  return absl::StrCat("W<sub>", q, "</sub><sup>", q, "</sup>");
}

// The simulated x reference block to draw, and where it came from.
struct SimRefMatrix {
  CostMatrix costs;
  std::string source;
};

std::optional<SimRefMatrix> SimRefCosts(const ValidationReport& report) {
  if (report.cost_matrix) return SimRefMatrix{*report.cost_matrix, ""};
  if (!report.pooled_cost_matrix) return std::nullopt;
  const size_t n = report.simulation.size();
  const size_t m = report.reference.size();
  SimRefMatrix block{CostMatrix(n, m), "the simulated \u00d7 reference block of the pooled matrix"};
  for (size_t i = 0; i < n; ++i) {
    for (size_t j = 0; j < m; ++j) block.costs.at(i, j) = report.pooled_cost_matrix->at(i, n + j);
  }
  return block;
}

// Block b of `size` consecutive runs: "id" or "first \u2026 last".
std::string BlockLabel(const std::vector<RunSummary>& runs, size_t b, size_t size) {
  const size_t first = b * size;
  const size_t last = std::min(runs.size(), first + size) - 1;
  if (first == last) return runs[first].id;
  return absl::StrCat(runs[first].id, " \u2026 ", runs[last].id);
}

// Sorted distinct values and the weighted CDF after each.
Json EmpiricalCdf(const std::vector<double>& values, const std::vector<RunSummary>& runs) {
  std::vector<std::pair<double, double>> points;
  for (size_t k = 0; k < values.size(); ++k) {
    if (!std::isfinite(values[k])) continue;
    const double weight = values.size() == runs.size() ? runs[k].weight : 1.0;
    points.emplace_back(values[k], weight);
  }
  std::stable_sort(points.begin(), points.end(),
                   [](const auto& x, const auto& y) { return x.first < y.first; });
  double total = 0.0;
  for (const auto& point : points) total += point.second;
  Json x = Json::array();
  Json f = Json::array();
  double cumulative = 0.0;
  for (size_t k = 0; k < points.size(); ++k) {
    cumulative += points[k].second;
    if (k + 1 < points.size() && points[k + 1].first == points[k].first) continue;
    x.push_back(RoundForDrawing(points[k].first));
    f.push_back(total > 0.0 ? RoundForDrawing(cumulative / total) : 0.0);
  }
  return {{"x", std::move(x)}, {"f", std::move(f)}};
}

}  // namespace

ChartSection ContributionsSection(const ValidationReport& report,
                                  const std::vector<DrawnRun>& drawn) {
  const size_t n = report.sim_contributions.size();
  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](size_t x, size_t y) {
    return report.sim_contributions[x] > report.sim_contributions[y];
  });
  const size_t shown = std::min(n, kMaxContributionBars);
  Json ids = Json::array(), values = Json::array(), highlighted = Json::array();
  for (size_t k = 0; k < shown; ++k) {
    const size_t i = order[k];
    ids.push_back(report.simulation[i].id);
    values.push_back(report.sim_contributions[i]);
    highlighted.push_back(
        std::any_of(drawn.begin(), drawn.end(), [&](const DrawnRun& run) { return run.sim == i; }));
  }
  const double total =
      std::accumulate(report.sim_contributions.begin(), report.sim_contributions.end(), 0.0);
  ChartSection section;
  section.data = {{"ids", std::move(ids)},
                  {"values", std::move(values)},
                  {"drawn", std::move(highlighted)},
                  {"total", total},
                  {"order", report.order}};
  section.html = absl::StrCat(
      "<section id=\"contributions\">\n<h2>Contributions of the simulated runs</h2>\n"
      "<p class=\"explain\">Each simulated run's share of ",
      Power(report), ": the mass it sends times the TWED",
      report.order == 1.0 ? "" : "<sup>q</sup>",
      " it is sent over, summed over its matched reference runs. The worst runs come first; darker "
      "bars are drawn in the overlays "
      "below.</p>\n",
      ChartDiv("contributions", 0, "bars",
               static_cast<int>(std::max<size_t>(shown, 4) * 20 + 110)));
  if (shown < n) {
    absl::StrAppend(&section.html, Note(absl::StrCat("The ", shown, " worst of ", n,
                                                     " simulated runs are shown.")));
  }
  absl::StrAppend(&section.html, "</section>\n");
  return section;
}

ChartSection CostMatrixSection(const ValidationReport& report) {
  ChartSection section;
  section.html =
      "<section id=\"cost-matrix\">\n<h2>Cost matrix and transport plan</h2>\n"
      "<p class=\"explain\">TWED between every simulated run (rows) and every reference run "
      "(columns); outlined cells carry mass in the optimal transport plan. A good model shows "
      "no row that is dark everywhere but bright nowhere else.</p>\n";
  const std::optional<SimRefMatrix> matrix = SimRefCosts(report);
  if (!matrix) {
    absl::StrAppend(&section.html,
                    Note("The validation kept neither the cost matrix nor the pooled matrix, so "
                         "there is no heat map."),
                    "</section>\n");
    return section;
  }
  const CostMatrix& costs = matrix->costs;
  const size_t row_block = (costs.rows + kMaxHeatMapSide - 1) / kMaxHeatMapSide;
  const size_t col_block = (costs.cols + kMaxHeatMapSide - 1) / kMaxHeatMapSide;
  const size_t rows = (costs.rows + row_block - 1) / row_block;
  const size_t cols = (costs.cols + col_block - 1) / col_block;
  std::vector<double> sum(rows * cols, 0.0);
  std::vector<double> count(rows * cols, 0.0);
  for (size_t i = 0; i < costs.rows; ++i) {
    for (size_t j = 0; j < costs.cols; ++j) {
      sum[(i / row_block) * cols + j / col_block] += costs.at(i, j);
      count[(i / row_block) * cols + j / col_block] += 1.0;
    }
  }
  Json values = Json::array();
  double low = std::numeric_limits<double>::infinity();
  double high = -low;
  for (size_t k = 0; k < sum.size(); ++k) {
    const double mean = sum[k] / count[k];
    low = std::min(low, mean);
    high = std::max(high, mean);
    values.push_back(RoundForDrawing(mean));
  }
  std::vector<double> block_mass(rows * cols, 0.0);
  for (const PlanEntry& entry : report.plan) {
    block_mass[(entry.row / row_block) * cols + entry.col / col_block] += entry.mass;
  }
  Json plan = Json::array();
  for (size_t k = 0; k < block_mass.size(); ++k) {
    if (block_mass[k] > 0.0) plan.push_back({k / cols, k % cols, RoundForDrawing(block_mass[k])});
  }
  Json row_labels = Json::array(), col_labels = Json::array();
  for (size_t r = 0; r < rows; ++r)
    row_labels.push_back(BlockLabel(report.simulation, r, row_block));
  for (size_t c = 0; c < cols; ++c)
    col_labels.push_back(BlockLabel(report.reference, c, col_block));
  section.data = {{"rows", std::move(row_labels)}, {"cols", std::move(col_labels)},
                  {"values", std::move(values)},   {"plan", std::move(plan)},
                  {"min", RoundForDrawing(low)},   {"max", RoundForDrawing(high)}};
  const int height = static_cast<int>(std::clamp<size_t>(rows * 22 + 120, 260, 1100));
  absl::StrAppend(&section.html, ChartDiv("heatmap", 0, "heatmap", height),
                  ColorBarHtml(low, high, "TWED",
                               "<span class=\"plan-key\"></span><span class=\"unit\">in the "
                               "plan</span>"));
  if (row_block > 1 || col_block > 1) {
    absl::StrAppend(
        &section.html,
        Note(absl::StrCat("The ", costs.rows, " \u00d7 ", costs.cols, " matrix is drawn as ", rows,
                          " \u00d7 ", cols, " blocks of up to ", row_block, " \u00d7 ", col_block,
                          " runs, each coloured by its mean TWED.")));
  }
  if (!matrix->source.empty()) {
    absl::StrAppend(&section.html, Note(absl::StrCat("Drawn from ", matrix->source, ".")));
  }
  absl::StrAppend(&section.html, "</section>\n");
  return section;
}

absl::StatusOr<ChartSection> MdsSection(const ValidationReport& report) {
  ChartSection section;
  section.html =
      "<section id=\"mds\">\n<h2>Map of all runs</h2>\n"
      "<p class=\"explain\">Classical multidimensional scaling of the pooled TWED matrix "
      "between all runs: points are placed so that their distances in the plane approximate "
      "the TWEDs. If the model reproduces the measurements, the two clouds overlap; a "
      "simulated cloud off to one side, or tighter than the reference cloud, is what the "
      "verdict's tests detect.</p>\n";
  if (!report.pooled_cost_matrix) {
    absl::StrAppend(&section.html,
                    Note("The validation did not keep the pooled matrix of TWEDs between all "
                         "runs (it comes with the verdict), so there is no map."),
                    "</section>\n");
    return section;
  }
  // The matrix the verdict's test saw: with lambda > 0, runs at different
  // sampling rates are apart by at least lambda |n_i - n_j| whatever their
  // shapes, which would split the map by sampling rate alone.
  CostMatrix pooled = *report.pooled_cost_matrix;
  const bool floor_subtracted = report.verdict && report.verdict->sampling_floor_subtracted;
  if (floor_subtracted) {
    std::vector<uint64_t> samples;
    for (const RunSummary& run : report.simulation) samples.push_back(run.samples);
    for (const RunSummary& run : report.reference) samples.push_back(run.samples);
    SubtractSamplingFloor(samples, report.twed.lambda, pooled);
  }
  absl::StatusOr<MdsEmbedding> embedding = ClassicalMds(pooled);
  if (!embedding.ok()) return embedding.status();
  const size_t n = report.simulation.size();
  const auto side = [&](size_t begin, const std::vector<RunSummary>& runs) {
    Json x = Json::array(), y = Json::array(), ids = Json::array();
    for (size_t k = 0; k < runs.size(); ++k) {
      x.push_back(RoundForDrawing(embedding->x[begin + k]));
      y.push_back(RoundForDrawing(embedding->y[begin + k]));
      ids.push_back(runs[k].id);
    }
    return Json{{"x", std::move(x)}, {"y", std::move(y)}, {"ids", std::move(ids)}};
  };
  section.data = {{"sim", side(0, report.simulation)},
                  {"ref", side(n, report.reference)},
                  {"explained", embedding->explained}};
  std::string note;
  if (floor_subtracted) {
    note = absl::StrCat(
        "As in the verdict's test, each TWED is reduced by the sampling floor "
        "\u03bb |n<sub>i</sub> \u2212 n<sub>j</sub>| = ",
        FormatNumber(report.twed.lambda, 4), " \u00d7 the difference in samples. ");
  }
  absl::StrAppend(
      &note, "The two axes carry ", FormatNumber(100.0 * embedding->explained, 3),
      " % of the positive eigenvalue mass of the double-centred squared TWEDs; what they leave "
      "out can make runs look closer than they are.");
  if (embedding->landmarks < report.pooled_cost_matrix->rows) {
    absl::StrAppend(&note, " Landmark MDS: ", embedding->landmarks, " evenly spaced runs of ",
                    report.pooled_cost_matrix->rows,
                    " were scaled exactly, the others placed from their distances to them.");
  }
  absl::StrAppend(&section.html, ChartDiv("mds", 0, "square", 560), Note(note), "</section>\n");
  return section;
}

ChartSection QuantitiesSection(const ValidationReport& report) {
  ChartSection section{.html = {}, .data = Json::array()};
  section.html =
      "<section id=\"quantities\">\n<h2>Quantities of interest</h2>\n"
      "<p class=\"explain\">For each scalar quantity of interest, the weighted empirical CDFs "
      "of its value over the simulated and the reference runs. The area validation metric "
      "(AVM) is the area between the two curves, in the quantity's units.</p>\n";
  if (report.quantities.empty()) {
    absl::StrAppend(&section.html, Note("No quantity of interest was given."), "</section>\n");
    return section;
  }
  absl::StrAppend(&section.html, "<div class=\"chart-grid\">\n");
  for (size_t k = 0; k < report.quantities.size(); ++k) {
    const QuantityComparison& q = report.quantities[k];
    section.data.push_back({{"channel", q.channel},
                            {"quantity", q.quantity},
                            {"avm", q.avm},
                            {"sim_runs", q.sim_values.size()},
                            {"ref_runs", q.ref_values.size()},
                            {"sim", EmpiricalCdf(q.sim_values, report.simulation)},
                            {"ref", EmpiricalCdf(q.ref_values, report.reference)}});
    absl::StrAppend(&section.html, ChartDiv("quantity", k, "cdf", 300));
  }
  absl::StrAppend(&section.html, "</div>\n</section>\n");
  return section;
}

}  // namespace wasserwarp
