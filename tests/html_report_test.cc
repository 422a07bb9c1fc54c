#include "wasserwarp/html_report.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <numbers>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "html_page_data.h"
#include "nlohmann/json.hpp"
#include "random_runs.h"
#include "report/html_assets.h"
#include "report/html_charts.h"
#include "report/html_downsample.h"
#include "report/html_escape.h"
#include "wasserwarp/cost_matrix.h"
#include "wasserwarp/quantity_of_interest.h"
#include "wasserwarp/series.h"
#include "wasserwarp/validation.h"
#include "wasserwarp/verdict.h"

namespace wasserwarp {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

constexpr char kHostileId[] = "</script><script>alert(1)</script>";

// One run of a damped sine per channel, `samples` long at `rate` Hz.
Series SineRun(std::string id, size_t samples, double rate, double phase, size_t channels = 2) {
  Series run{.id = std::move(id), .channels = {}, .times = {}, .values = {}};
  for (size_t c = 0; c < channels; ++c) run.channels.push_back(absl::StrCat("ch", c));
  for (size_t i = 0; i < samples; ++i) {
    const double t = static_cast<double>(i) / rate;
    run.times.push_back(t);
    for (size_t c = 0; c < channels; ++c) {
      run.values.push_back((1.0 + c) * std::sin(2.0 * std::numbers::pi * t + phase) *
                           std::exp(-0.1 * t));
    }
  }
  return run;
}

std::vector<Series> SineRuns(const std::string& prefix, size_t count, size_t samples, double rate,
                             double phase_step, size_t channels = 2) {
  std::vector<Series> runs;
  for (size_t k = 0; k < count; ++k) {
    runs.push_back(SineRun(absl::StrCat(prefix, k), samples, rate, phase_step * k, channels));
  }
  return runs;
}

// A report as Validate would fill it, by hand: simulated run i matched with
// reference i % m, costs growing with the phase difference, every optional
// part present.
ValidationReport HandFilledReport(const std::vector<Series>& sim, const std::vector<Series>& ref) {
  const size_t n = sim.size();
  const size_t m = ref.size();
  ValidationReport report;
  report.order = 1.0;
  report.twed.nu = 0.5;
  report.twed.lambda = 0.1;
  report.align = Align::kStart;
  report.scale = Scale::kNone;
  report.channels = sim.front().channels;
  for (const Series& run : sim) report.simulation.push_back({run.id, run.samples(), 1.0 / n});
  for (const Series& run : ref) report.reference.push_back({run.id, run.samples(), 1.0 / m});
  // Each run's position on a line: the pooled matrix is Euclidean in 1-D.
  std::vector<double> position;
  for (size_t i = 0; i < n; ++i) position.push_back(0.3 * i);
  for (size_t j = 0; j < m; ++j) position.push_back(0.2 * j + 0.05);
  report.cost_matrix = CostMatrix(n, m);
  report.pooled_cost_matrix = CostMatrix(n + m, n + m);
  for (size_t a = 0; a < n + m; ++a) {
    for (size_t b = 0; b < n + m; ++b) {
      report.pooled_cost_matrix->at(a, b) = std::abs(position[a] - position[b]);
    }
  }
  for (size_t i = 0; i < n; ++i) {
    for (size_t j = 0; j < m; ++j)
      report.cost_matrix->at(i, j) = report.pooled_cost_matrix->at(i, n + j);
  }
  report.sim_contributions.assign(n, 0.0);
  report.ref_contributions.assign(m, 0.0);
  for (size_t i = 0; i < n; ++i) {
    const size_t j = i % m;
    const double cost = report.cost_matrix->at(i, j);
    report.plan.push_back({static_cast<int>(i), static_cast<int>(j), 1.0 / n, cost});
    report.pairs.push_back({.sim = static_cast<int>(i), .ref = static_cast<int>(j), .twed = cost});
    report.sim_contributions[i] += cost / n;
    report.ref_contributions[j] += cost / n;
    report.distance += cost / n;
    for (size_t c = 0; c < report.channels.size(); ++c) {
      report.pair_metrics.push_back({.sim = static_cast<int>(i),
                                     .ref = static_cast<int>(j),
                                     .channel = static_cast<int>(c),
                                     .metrics = {.samples = ref[j].samples(), .rmse = 0.1 * i}});
    }
  }
  report.pair_metrics_average.assign(report.channels.size(), ChannelMetrics{.rmse = 0.25});
  Verdict verdict;
  verdict.pass = false;
  verdict.rules = {{"max_ratio", "upper end of the 95% bootstrap interval of the baseline ratio",
                    1.73, 1.5, false},
                   {"alpha", "p-value of the permutation test", 0.21, 0.05, true}};
  verdict.statistic = 0.4;
  verdict.p_value = 0.21;
  verdict.permutations = 999;
  verdict.seed = 1;
  verdict.baseline = Baseline{.subset_size = 3,
                              .ref_ref_median = 0.2,
                              .ref_ref_p05 = 0.1,
                              .ref_ref_p95 = 0.3,
                              .sim_ref_median = 0.346,
                              .sim_ref_p05 = 0.2,
                              .sim_ref_p95 = 0.5,
                              .ratio = 1.73};
  verdict.warnings = {"the simulated runs are sampled at 100 Hz, the references at 250 Hz"};
  report.verdict = verdict;
  QuantityComparison quantity;
  quantity.channel = "ch0";
  quantity.quantity = "max";
  quantity.avm = 0.05;
  for (const Series& run : sim) quantity.sim_values.push_back(run.values[0] + 1.0);
  for (const Series& run : ref) quantity.ref_values.push_back(run.values[0] + 1.05);
  report.quantities = {quantity};
  return report;
}

HtmlReportOptions Options() {
  return {.tool_version = "9.8.7", .generated_at = "2024-06-11T12:00:00Z", .title = "Lane change"};
}

// The JSON the page's script draws from.
TEST(HtmlReportTest, HasEverySectionVerdictFirst) {
  const std::vector<Series> sim = SineRuns("sim_", 8, 300, 100.0, 0.1);
  const std::vector<Series> ref = SineRuns("ref_", 6, 700, 250.0, 0.07);
  const absl::StatusOr<std::string> page =
      RenderHtmlReport(HandFilledReport(sim, ref), sim, ref, Options());
  ASSERT_TRUE(page.ok()) << page.status();

  // In reading order, the verdict banner first.
  size_t last = 0;
  for (const char* id : {"id=\"banner\"", "id=\"verdict\"", "id=\"inputs\"", "id=\"contributions\"",
                         "id=\"overlays\"", "id=\"cost-matrix\"", "id=\"mds\"", "id=\"quantities\"",
                         "id=\"pair-metrics\""}) {
    const size_t at = page->find(id);
    ASSERT_NE(at, std::string::npos) << id;
    EXPECT_GT(at, last) << id;
    last = at;
  }
  EXPECT_THAT(*page, HasSubstr("class=\"banner verdict-fail\""));
  EXPECT_THAT(*page, HasSubstr(">FAIL</div>"));
  EXPECT_THAT(*page, HasSubstr("1 of 2 decision rules fail: max_ratio."));
  EXPECT_THAT(*page, HasSubstr("<td class=\"num\">1.73</td><td class=\"num\">1.5</td>"));
  EXPECT_THAT(*page, HasSubstr("sampled at 100 Hz"));
  EXPECT_THAT(*page, HasSubstr("wasserwarp 9.8.7"));
  EXPECT_THAT(*page, HasSubstr("generated 2024-06-11T12:00:00Z"));
  EXPECT_THAT(*page, HasSubstr("<title>Lane change</title>"));
  // Inputs: counts, sampling rates and durations per side.
  EXPECT_THAT(*page, HasSubstr("<td class=\"num\">100 Hz</td><td class=\"num\">2.99 s</td>"));
  EXPECT_THAT(*page, HasSubstr("<td class=\"num\">250 Hz</td><td class=\"num\">2.796 s</td>"));

  // One chart per canvas: contributions, 6 runs x 2 channels, heat map, MDS, one CDF.
  EXPECT_EQ(Count(*page, "data-chart=\"overlay\""), 12u);
  for (const char* kind : {"contributions", "heatmap", "mds", "quantity"}) {
    EXPECT_EQ(Count(*page, absl::StrCat("data-chart=\"", kind, "\"")), 1u) << kind;
  }
  const nlohmann::json data = PageData(*page);
  ASSERT_EQ(data["overlays"].size(), 6u);
  // sim_7 is furthest from its reference (7 % 6 = 1): the worst; sim_0 the best.
  EXPECT_EQ(data["overlays"][0]["run"], "sim_7");
  EXPECT_EQ(data["overlays"][0]["label"], "Worst 1");
  EXPECT_EQ(data["overlays"][5]["label"], "Best");
  EXPECT_EQ(data["contributions"]["ids"][0], "sim_7");
  EXPECT_EQ(data["heatmap"]["rows"].size(), 8u);
  EXPECT_EQ(data["heatmap"]["cols"].size(), 6u);
  EXPECT_EQ(data["heatmap"]["plan"].size(), 8u);
  EXPECT_EQ(data["mds"]["sim"]["x"].size(), 8u);
  EXPECT_EQ(data["mds"]["ref"]["x"].size(), 6u);
  EXPECT_NEAR(data["mds"]["explained"].get<double>(), 1.0, 1e-9);
  EXPECT_EQ(data["quantities"][0]["sim"]["x"].size(), 8u);
  EXPECT_EQ(data["quantities"][0]["ref"]["f"].back(), 1.0);

  // Self-contained: Chart.js inlined, no external resource, CSP forbidding any.
  EXPECT_THAT(*page, HasSubstr(std::string(html_assets::ChartJs().substr(0, 200))));
  EXPECT_THAT(*page, HasSubstr("content=\"default-src 'none'"));
  EXPECT_THAT(*page, Not(HasSubstr("<script src")));
  EXPECT_THAT(*page, Not(HasSubstr("<link")));
}

// The overlays draw the prepared runs in channel units, and their edit-path
// lines join samples one optimal path matches.
TEST(HtmlReportTest, OverlaysDrawAlignedRunsInChannelUnitsWithEditPathLines) {
  std::vector<Series> sim = SineRuns("sim_", 3, 200, 100.0, 0.2, 1);
  std::vector<Series> ref = SineRuns("ref_", 3, 500, 250.0, 0.1, 1);
  for (Series& run : ref) {
    for (double& t : run.times) t += 7.0;  // aligned away by Align::kStart
  }
  ValidationReport report = HandFilledReport(sim, ref);
  report.scale = Scale::kReferenceStd;
  const absl::StatusOr<std::string> page = RenderHtmlReport(report, sim, ref, Options());
  ASSERT_TRUE(page.ok()) << page.status();
  const nlohmann::json data = PageData(*page);
  ASSERT_EQ(data["overlays"].size(), 3u);
  const nlohmann::json& channel = data["overlays"][0]["channels"][0];
  const nlohmann::json& drawn_ref = channel["refs"][0];
  EXPECT_EQ(drawn_ref["t"][0], 0.0);
  EXPECT_EQ(drawn_ref["t"].size(), 500u);
  // Unscaled: the reference's own first values.
  const Series& matched = ref[drawn_ref["id"] == "ref_2" ? 2 : drawn_ref["id"] == "ref_1" ? 1 : 0];
  EXPECT_NEAR(drawn_ref["v"][10].get<double>(), matched.values[10], 1e-6);
  const nlohmann::json& links = drawn_ref["links"];
  ASSERT_TRUE(links.is_object());
  ASSERT_GT(links["ts"].size(), 10u);
  EXPECT_LE(links["ts"].size(), 100u);
  EXPECT_EQ(links["ts"][0], 0.0);
  EXPECT_EQ(links["tr"][0], 0.0);
  EXPECT_THAT(channel["notes"].dump(), HasSubstr("edit-path lines with ref_"));
}

TEST(HtmlReportTest, EscapesHostileRunIdsAndChannelNames) {
  std::vector<Series> sim = SineRuns("sim_", 3, 100, 100.0, 0.1);
  std::vector<Series> ref = SineRuns("ref_", 3, 100, 100.0, 0.1);
  sim[1].id = kHostileId;
  ref[2].id = "<!--";
  for (std::vector<Series>* side : {&sim, &ref}) {
    for (Series& run : *side) run.channels[1] = "a\"b'<c>&d";
  }
  ValidationReport report = HandFilledReport(sim, ref);
  report.verdict->warnings.push_back(kHostileId);
  report.quantities[0].channel = kHostileId;
  HtmlReportOptions options = Options();
  options.title = kHostileId;
  options.tool_version = "<img src=x onerror=alert(1)>";
  const absl::StatusOr<std::string> page = RenderHtmlReport(report, sim, ref, options);
  ASSERT_TRUE(page.ok()) << page.status();

  EXPECT_THAT(*page, Not(HasSubstr("<script>alert")));
  EXPECT_THAT(*page, Not(HasSubstr("<img")));
  EXPECT_THAT(*page, Not(HasSubstr("<!--")));
  EXPECT_THAT(*page, Not(HasSubstr("<c>")));
  EXPECT_THAT(*page, HasSubstr("&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;"));
  EXPECT_THAT(*page, HasSubstr("a&quot;b&#39;&lt;c&gt;&amp;d"));
  // Every script element is one of the page's own four: data, Chart.js, the chart helpers and
  // the report's script.
  EXPECT_EQ(Count(*page, "<script"), 4u);
  EXPECT_EQ(Count(*page, "</script"), 4u);
  // The data block holds the ids unchanged.
  const nlohmann::json data = PageData(*page);
  EXPECT_EQ(data["heatmap"]["rows"][1], kHostileId);
  EXPECT_EQ(data["heatmap"]["cols"][2], "<!--");
  EXPECT_EQ(data["quantities"][0]["channel"], kHostileId);
}

// Long runs are drawn from at most max_points_per_series points each, and
// edit paths over the cell cap are left out, both said on the chart: the
// page stays small whatever the run lengths.
TEST(HtmlReportTest, SizeStaysBoundedWithLongRuns) {
  const auto page_size = [](size_t sim_samples, size_t ref_samples) -> size_t {
    const std::vector<Series> sim = SineRuns("sim_", 7, sim_samples, 1000.0, 0.1, 1);
    const std::vector<Series> ref = SineRuns("ref_", 4, ref_samples, 2000.0, 0.1, 1);
    HtmlReportOptions options = Options();
    options.max_edit_path_cells = 1'000'000;
    const absl::StatusOr<std::string> page =
        RenderHtmlReport(HandFilledReport(sim, ref), sim, ref, options);
    EXPECT_TRUE(page.ok()) << page.status();
    if (!page.ok()) return 0;
    EXPECT_THAT(*page, HasSubstr(absl::StrCat(sim_samples, " samples drawn as 2000 points")));
    EXPECT_THAT(*page, HasSubstr("DP cells exceed the cap of 1000000"));
    return page->size();
  };
  const size_t long_runs = page_size(50'000, 100'000);
  const size_t longer_runs = page_size(200'000, 400'000);
  const size_t chart_js = html_assets::ChartJs().size();
  // 6 overlays of 2 x 2000 points of 2 numbers, plus tables: under 500 kB;
  // four times longer runs only need a few more digits per number.
  EXPECT_LT(long_runs, chart_js + 500'000);
  EXPECT_LT(longer_runs, chart_js + 500'000);
  EXPECT_LT(longer_runs, long_runs * 1.15);
}

TEST(HtmlReportTest, SaysWhatIsMissing) {
  const std::vector<Series> sim = SineRuns("sim_", 2, 50, 100.0, 0.1);
  const std::vector<Series> ref = SineRuns("ref_", 2, 50, 100.0, 0.1);
  ValidationReport report = HandFilledReport(sim, ref);
  report.verdict.reset();
  report.cost_matrix.reset();
  report.pooled_cost_matrix.reset();
  report.quantities.clear();
  report.pair_metrics.clear();
  const absl::StatusOr<std::string> page = RenderHtmlReport(report, sim, ref, Options());
  ASSERT_TRUE(page.ok()) << page.status();
  EXPECT_THAT(*page, HasSubstr(">NO VERDICT</div>"));
  EXPECT_THAT(*page, HasSubstr("ran without the statistical verdict"));
  EXPECT_THAT(*page, HasSubstr("kept neither the cost matrix nor the pooled matrix"));
  EXPECT_THAT(*page, HasSubstr("did not keep the pooled matrix"));
  EXPECT_THAT(*page, HasSubstr("No quantity of interest was given."));
  EXPECT_THAT(*page, HasSubstr("The report holds no pair metrics."));
  EXPECT_EQ(Count(*page, "data-chart=\"heatmap\""), 0u);
  EXPECT_EQ(Count(*page, "data-chart=\"mds\""), 0u);
  // Two runs: both drawn as the worst, none again as the best.
  EXPECT_EQ(Count(*page, "data-chart=\"overlay\""), 4u);

  // A verdict without rules decides nothing.
  report = HandFilledReport(sim, ref);
  report.verdict->pass.reset();
  report.verdict->rules.clear();
  const absl::StatusOr<std::string> no_rules = RenderHtmlReport(report, sim, ref, Options());
  ASSERT_TRUE(no_rules.ok()) << no_rules.status();
  EXPECT_THAT(*no_rules, HasSubstr(">NO RULES</div>"));
}

TEST(HtmlReportTest, BigCostMatricesAreAggregatedIntoBlocks) {
  const std::vector<Series> sim = SineRuns("sim_", 130, 20, 100.0, 0.01, 1);
  const std::vector<Series> ref = SineRuns("ref_", 61, 20, 100.0, 0.01, 1);
  const absl::StatusOr<std::string> page =
      RenderHtmlReport(HandFilledReport(sim, ref), sim, ref, Options());
  ASSERT_TRUE(page.ok()) << page.status();
  const nlohmann::json data = PageData(*page);
  // Blocks of 3 x 2 runs: 44 x 31.
  EXPECT_EQ(data["heatmap"]["rows"].size(), 44u);
  EXPECT_EQ(data["heatmap"]["cols"].size(), 31u);
  EXPECT_EQ(data["heatmap"]["rows"][0], "sim_0 \u2026 sim_2");
  EXPECT_EQ(data["heatmap"]["rows"][43], "sim_129");
  EXPECT_THAT(*page, HasSubstr("The 130 \u00d7 61 matrix is drawn as 44 \u00d7 31 blocks"));
  // The 100 worst of 130 bars.
  EXPECT_EQ(data["contributions"]["ids"].size(), 100u);
  EXPECT_THAT(*page, HasSubstr("The 100 worst of 130 simulated runs are shown."));
}

TEST(HtmlReportTest, RejectsRunsThatAreNotTheReportsOwn) {
  const std::vector<Series> sim = SineRuns("sim_", 3, 50, 100.0, 0.1);
  const std::vector<Series> ref = SineRuns("ref_", 3, 50, 100.0, 0.1);
  const ValidationReport report = HandFilledReport(sim, ref);
  std::vector<Series> renamed = sim;
  renamed[2].id = "other";
  EXPECT_THAT(RenderHtmlReport(report, renamed, ref, Options()).status().message(),
              HasSubstr("simulated run 2 is 'other' but the report has 'sim_2'"));
  EXPECT_EQ(RenderHtmlReport(report, ref, sim, Options()).status().code(),
            absl::StatusCode::kInvalidArgument);
  const std::vector<Series> fewer(ref.begin(), ref.end() - 1);
  EXPECT_THAT(RenderHtmlReport(report, sim, fewer, Options()).status().message(),
              HasSubstr("3 reference runs but 2 were given"));
  HtmlReportOptions options = Options();
  options.max_points_per_series = 15;
  EXPECT_THAT(RenderHtmlReport(report, sim, ref, options).status().message(),
              HasSubstr("max_points_per_series"));
}

// The report of a real validation, with every optional part Validate can fill.
TEST(HtmlReportTest, RendersWhatValidateReturns) {
  const std::vector<Series> sim = test_data::RandomWalkRuns("sim", 7, 40, 60, 2, 1);
  const std::vector<Series> ref = test_data::RandomWalkRuns("ref", 9, 50, 90, 2, 2);
  ValidationOptions options;
  options.twed.nu = 1.0;
  options.keep_cost_matrix = true;
  options.keep_pooled_cost_matrix = true;
  VerdictOptions verdict;
  verdict.permutations = 99;
  verdict.max_ratio = 2.0;
  options.verdict = verdict;
  options.quantities = {{.channel = "c0", .kind = QuantityKind::kMax}};
  const absl::StatusOr<ValidationReport> report = Validate(sim, ref, options);
  ASSERT_TRUE(report.ok()) << report.status();
  const absl::StatusOr<std::string> page = RenderHtmlReport(*report, sim, ref, Options());
  ASSERT_TRUE(page.ok()) << page.status();
  EXPECT_THAT(*page, HasSubstr("max_ratio"));
  const nlohmann::json data = PageData(*page);
  EXPECT_EQ(data["mds"]["sim"]["x"].size(), 7u);
  EXPECT_EQ(data["heatmap"]["values"].size(), 63u);
  EXPECT_EQ(data["overlays"].size(), 6u);
  EXPECT_EQ(data["quantities"].size(), 1u);
}

TEST(HtmlDownsampleTest, MinMaxBucketsKeepTheExtremes) {
  const Series run = SineRun("long", 10'001, 1000.0, 0.3, 1);
  const std::vector<size_t> all = MinMaxSampleIndices(run, 0, 20'000);
  EXPECT_EQ(all.size(), 10'001u);
  const std::vector<size_t> few = MinMaxSampleIndices(run, 0, 200);
  EXPECT_LE(few.size(), 200u);
  EXPECT_GE(few.size(), 100u);
  EXPECT_TRUE(std::is_sorted(few.begin(), few.end()));
  EXPECT_EQ(std::adjacent_find(few.begin(), few.end()), few.end());
  const auto value = [&](size_t i) { return run.values[i]; };
  const auto [low, high] = std::minmax_element(run.values.begin(), run.values.end());
  double drawn_low = value(few.front());
  double drawn_high = value(few.front());
  for (size_t i : few) {
    drawn_low = std::min(drawn_low, value(i));
    drawn_high = std::max(drawn_high, value(i));
  }
  EXPECT_EQ(drawn_low, *low);
  EXPECT_EQ(drawn_high, *high);
}

TEST(HtmlDownsampleTest, EvenlySpacedIndices) {
  EXPECT_EQ(EvenlySpacedIndices(5, 10), (std::vector<size_t>{0, 1, 2, 3, 4}));
  EXPECT_EQ(EvenlySpacedIndices(10, 4), (std::vector<size_t>{0, 3, 6, 9}));
  EXPECT_EQ(EvenlySpacedIndices(9, 3), (std::vector<size_t>{0, 3, 6}));
  EXPECT_TRUE(EvenlySpacedIndices(0, 3).empty());
}

TEST(HtmlEscapeTest, ScriptElementJsonCannotCloseTheElement) {
  const nlohmann::json data = {{"id", "</script><!--&"}, {"bad", std::string("\xff\xfe")}};
  const std::string text = JsonForScriptElement(data);
  EXPECT_EQ(text.find('<'), std::string::npos);
  EXPECT_EQ(text.find('>'), std::string::npos);
  EXPECT_EQ(text.find('&'), std::string::npos);
  const nlohmann::json back = nlohmann::json::parse(text);
  EXPECT_EQ(back["id"], "</script><!--&");
  EXPECT_EQ(back["bad"], "\ufffd\ufffd");
  EXPECT_EQ(EscapeHtml("<a href=\"x\">'&'</a>"),
            "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;");
}

}  // namespace
}  // namespace wasserwarp
