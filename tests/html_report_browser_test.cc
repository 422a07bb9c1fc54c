// The HTML reports in a real browser: headless Chromium loads the demo's
// validation report and the parameter-study pages with no console error, CSP
// violation or failed chart, every canvas has pixels drawn, and a full-page
// screenshot of each lands in the build directory.
//
// Skipped, saying why, when Chromium is not installed (`make deps` installs
// Debian's chromium). WASSERWARP_CHROMIUM names another browser binary.

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "nlohmann/json.hpp"
#include "process_runner.h"
#include "scratch_dir.h"
#include "study_reports.h"
#include "wasserwarp/history_html.h"
#include "wasserwarp/html_report.h"
#include "wasserwarp/quantity_of_interest.h"
#include "wasserwarp/run_files.h"
#include "wasserwarp/study_html.h"
#include "wasserwarp/validation.h"
#include "wasserwarp/verdict.h"

namespace wasserwarp {
namespace {

namespace fs = std::filesystem;
using test_support::ProgramResult;
using test_support::RunProgram;

constexpr char kTimeout[] = "/usr/bin/timeout";
constexpr char kBrowserSeconds[] = "120";

std::optional<std::string> FindChromium() {
  if (const char* given = std::getenv("WASSERWARP_CHROMIUM"); given != nullptr && *given) {
    return std::string(given);
  }
  const char* path = std::getenv("PATH");
  for (absl::string_view dir : absl::StrSplit(path ? path : "/usr/bin:/bin", ':')) {
    for (const char* name : {"chromium", "chromium-browser", "google-chrome"}) {
      const std::string candidate = absl::StrCat(dir, "/", name);
      if (access(candidate.c_str(), X_OK) == 0) return candidate;
    }
  }
  return std::nullopt;
}

// Recorded from the first script on: uncaught errors, failed loads, CSP
// violations, console.error and console.warn.
constexpr char kErrorRecorder[] = R"(<script>
window.__reportErrors = [];
window.addEventListener('error', (e) => window.__reportErrors.push('error: ' + (e.message || (e.target && e.target.outerHTML) || e.type)), true);
window.addEventListener('unhandledrejection', (e) => window.__reportErrors.push('unhandled rejection: ' + e.reason));
document.addEventListener('securitypolicyviolation', (e) => window.__reportErrors.push('CSP violation: ' + e.violatedDirective + ' ' + e.blockedURI));
for (const level of ['error', 'warn']) {
  const original = console[level];
  console[level] = function (...args) {
    window.__reportErrors.push('console.' + level + ': ' + args.join(' '));
    original.apply(console, args);
  };
}
</script>)";

// After load, each canvas must have a pixel that is not transparent; the
// findings go into the DOM as JSON, for --dump-dom.
constexpr char kCanvasCheck[] = R"(<script>
window.addEventListener('load', () => setTimeout(() => {
  const canvases = Array.from(document.querySelectorAll('canvas'));
  const blank = [];
  canvases.forEach((canvas, k) => {
    let painted = false;
    if (canvas.width > 0 && canvas.height > 0) {
      const pixels = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
      for (let i = 3; i < pixels.length && !painted; i += 4) painted = pixels[i] !== 0;
    }
    if (!painted) blank.push((canvas.dataset.chart || 'canvas') + ' #' + k + ' ' + canvas.width + 'x' + canvas.height);
  });
  const svgs = Array.from(document.querySelectorAll('svg'));
  svgs.forEach((svg, k) => { if (svg.getBBox().width <= 0) blank.push('svg #' + k); });
  const result = document.createElement('pre');
  result.id = 'browser-check';
  result.textContent = JSON.stringify({
    canvases: canvases.length,
    svgs: svgs.length,
    blank: blank,
    errors: window.__reportErrors,
    drawn: Number(document.documentElement.dataset.chartsDrawn || 0),
    // Per canvas, the values its chart's first data set plots (gaps left out).
    points: canvases.map((canvas) => {
      const chart = window.Chart && Chart.getChart(canvas);
      return chart ? chart.data.datasets[0].data.filter((v) => v !== null).length : -1;
    }),
    height: document.documentElement.scrollHeight,
  });
  document.body.appendChild(result);
}, 300));
</script>)";

std::string WithChecks(const std::string& page) {
  std::string checked = page;
  const size_t head = checked.find("<head>");
  const size_t body_end = checked.rfind("</body>");
  EXPECT_NE(head, std::string::npos);
  EXPECT_NE(body_end, std::string::npos);
  checked.insert(body_end, kCanvasCheck);
  checked.insert(head + 6, kErrorRecorder);
  return checked;
}

std::vector<std::string> BrowserArgs(const std::string& chromium, const std::string& profile) {
  return {kBrowserSeconds,
          chromium,
          "--headless",
          "--no-sandbox",
          "--disable-gpu",
          "--disable-background-networking",
          "--disable-component-update",
          "--no-first-run",
          "--hide-scrollbars",
          "--enable-logging=stderr",
          "--v=0",
          absl::StrCat("--user-data-dir=", profile),
          "--virtual-time-budget=10000"};
}

class BrowserTest : public ::testing::TestWithParam<const char*> {
 protected:
  void SetUp() override {
    chromium_ = FindChromium();
    if (!chromium_) {
      GTEST_SKIP() << "Chromium is not installed, so the report is not checked in a browser; "
                      "install Debian's chromium (`make deps` does) or set WASSERWARP_CHROMIUM";
    }
    ASSERT_FALSE(scratch_.root().empty());
  }

  // Loads `page` with the checks added: no error, every canvas drawn by the page's script, and
  // `charts` canvases. Leaves the page and its full-page screenshot in the build directory as
  // `name`.html and .png. Returns what the check script found.
  nlohmann::json ExpectDrawsCleanly(const std::string& page, const std::string& name,
                                    size_t charts) {
    const std::string stem = absl::StrCat(WASSERWARP_BUILD_DIR, "/", name);
    std::ofstream(stem + ".html", std::ios::binary) << page;
    const std::string checked_path = scratch_.Path("checked.html");
    std::ofstream(checked_path, std::ios::binary) << WithChecks(page);

    // The screenshot's width, so that the measured height is the screenshot's too.
    const ProgramResult dump =
        Browse({"--dump-dom", "--window-size=1360,1000"}, "file://" + checked_path);
    EXPECT_EQ(dump.exit_code, 0) << dump.err;
    const size_t begin = dump.out.find("<pre id=\"browser-check\">");
    EXPECT_NE(begin, std::string::npos) << "the check script did not run; stderr:\n" << dump.err;
    if (dump.exit_code != 0 || begin == std::string::npos) return nullptr;
    const size_t text = dump.out.find('>', begin) + 1;
    const std::string escaped = dump.out.substr(text, dump.out.find("</pre>", text) - text);
    const nlohmann::json check = nlohmann::json::parse(absl::StrReplaceAll(
        escaped, {{"&lt;", "<"}, {"&gt;", ">"}, {"&quot;", "\""}, {"&amp;", "&"}}));

    EXPECT_EQ(check["errors"], nlohmann::json::array()) << check.dump(1);
    EXPECT_EQ(check["blank"], nlohmann::json::array()) << check.dump(1);
    // One canvas per chart the page announces, each drawn by the report's script.
    size_t announced = 0;
    for (size_t at = page.find("<canvas"); at != std::string::npos;
         at = page.find("<canvas", at + 1)) {
      ++announced;
    }
    EXPECT_EQ(check["canvases"].get<size_t>(), announced);
    EXPECT_EQ(check["drawn"].get<size_t>(), announced);
    EXPECT_EQ(announced, charts);
    // Chromium logs console messages on stderr; the report writes none.
    for (absl::string_view line : absl::StrSplit(dump.err, '\n')) {
      EXPECT_FALSE(absl::StrContains(line, ":CONSOLE")) << line;
    }

    const int height = std::clamp(check["height"].get<int>(), 800, 16000);
    const std::string screenshot = stem + ".png";
    fs::remove(screenshot);
    const ProgramResult shot = Browse(
        {absl::StrCat("--screenshot=", screenshot), absl::StrCat("--window-size=1360,", height)},
        "file://" + stem + ".html");
    EXPECT_EQ(shot.exit_code, 0) << shot.err;
    EXPECT_TRUE(fs::exists(screenshot)) << shot.err;
    if (fs::exists(screenshot)) EXPECT_GT(fs::file_size(screenshot), 50'000u);
    std::cout << "screenshot: " << screenshot << "\n";
    return check;
  }

  ProgramResult Browse(const std::vector<std::string>& extra_args, const std::string& url) {
    const std::string profile = scratch_.Path("profile" + std::to_string(++browser_runs_));
    std::vector<std::string> args = BrowserArgs(*chromium_, profile);
    args.insert(args.end(), extra_args.begin(), extra_args.end());
    args.push_back(url);
    return RunProgram(kTimeout, args, scratch_.root());
  }

  std::optional<std::string> chromium_;
  const test_support::ScratchDir scratch_{"wasserwarp_html_browser_"};
  int browser_runs_ = 0;
};

class HtmlReportBrowserTest : public BrowserTest {
 protected:
  // The demo's data set, validated as `make demo` does, with a verdict.
  std::string RenderDemoReport(const std::string& variant) {
    const std::string data = scratch_.Path("data");
    const ProgramResult generated =
        RunProgram(WASSERWARP_EXAMPLE_DATA, {"--out", data}, scratch_.root());
    EXPECT_EQ(generated.exit_code, 0) << generated.err;
    absl::StatusOr<std::vector<Series>> simulation = ReadRuns({data + "/" + variant});
    absl::StatusOr<std::vector<Series>> reference = ReadRuns({data + "/ref"});
    EXPECT_TRUE(simulation.ok()) << simulation.status();
    EXPECT_TRUE(reference.ok()) << reference.status();
    if (!simulation.ok() || !reference.ok()) return "";

    ValidationOptions options;
    options.prepare.scale = Scale::kReferenceStd;
    options.twed.lambda = 0.3;
    options.keep_cost_matrix = true;
    options.keep_pooled_cost_matrix = true;
    VerdictOptions verdict;
    verdict.permutations = 199;
    verdict.max_ratio = 1.5;
    verdict.alpha = 0.05;
    options.verdict = verdict;
    absl::StatusOr<std::vector<QuantityOfInterest>> quantities =
        ParseQuantitiesOfInterest("yaw_rate:max,lateral_acceleration:max,yaw_rate:time_of_max");
    EXPECT_TRUE(quantities.ok()) << quantities.status();
    options.quantities = *quantities;
    absl::StatusOr<ValidationReport> report = Validate(*simulation, *reference, options);
    EXPECT_TRUE(report.ok()) << report.status();
    if (!report.ok()) return "";
    absl::StatusOr<std::string> page =
        RenderHtmlReport(*report, *simulation, *reference,
                         {.tool_version = "test",
                          .generated_at = "2024-06-11T12:00:00Z",
                          .title = absl::StrCat("Demo lane change, variant ", variant)});
    EXPECT_TRUE(page.ok()) << page.status();
    return page.ok() ? *page : "";
  }
};

TEST_P(HtmlReportBrowserTest, LoadsCleanlyDrawsEveryChartAndIsScreenshotted) {
  const std::string variant = GetParam();
  const std::string page = RenderDemoReport(variant);
  ASSERT_FALSE(page.empty());
  // Contributions, 6 runs x 3 channels of overlays, heat map, MDS, 3 CDFs.
  ExpectDrawsCleanly(page, absl::StrCat("html-report-demo-", variant), 1 + 18 + 1 + 1 + 3);
}

INSTANTIATE_TEST_SUITE_P(DemoVariants, HtmlReportBrowserTest, ::testing::Values("sim_a", "sim_b"));

// The parameter-study pages of the hand-made reports, named "<page>_<parameters>".
class StudyHtmlBrowserTest : public BrowserTest {};

TEST_P(StudyHtmlBrowserTest, LoadsCleanlyDrawsEveryChartAndIsScreenshotted) {
  const std::string name = GetParam();
  const size_t parameters = name.back() == '2' ? 2 : 1;
  const HtmlReportOptions options{.tool_version = "test",
                                  .generated_at = "2024-06-11T12:00:00Z",
                                  .title = absl::StrCat("Study page ", name)};
  const bool sensitivity = absl::StartsWith(name, "sensitivity");
  const absl::StatusOr<std::string> page =
      sensitivity
          ? RenderSensitivityHtml(test_data::HandMadeSensitivity(parameters), options)
          : RenderIdentificationHtml(test_data::HandMadeIdentification(parameters), options);
  ASSERT_TRUE(page.ok()) << page.status();
  // The tornado; or a slice per parameter and, for two, the surface.
  const size_t charts = sensitivity ? 1 : parameters == 2 ? 3 : 1;
  ExpectDrawsCleanly(*page, absl::StrCat("html-report-", name), charts);
}

INSTANTIATE_TEST_SUITE_P(StudyPages, StudyHtmlBrowserTest,
                         ::testing::Values("sensitivity_1", "sensitivity_2", "identification_1",
                                           "identification_2"));

// A model's history over five versions (issue 38): W with its thresholds, the ratio with its
// intervals where a record had a baseline, PASS and FAIL marks.
class HistoryHtmlBrowserTest : public BrowserTest {};

TEST_F(HistoryHtmlBrowserTest, PlotsEveryRecordInVersionOrder) {
  ValidationHistory history;
  history.by = "version";
  history.filter = "labels.model = \"vdyn\"";
  const char* versions[] = {"4.2.0-rc1", "4.2.0", "4.9.2", "4.10.0", "5.0.0"};
  for (int i = 0; i < 5; ++i) {
    HistoryPoint point;
    point.name = absl::StrCat("sessions/s", i, "/validations/v");
    point.by = versions[i];
    point.labels = {{"model", "vdyn"}, {"version", versions[i]}};
    point.distance = 0.1 + 0.05 * i;
    point.passed = i != 3;
    point.max_distance = 0.3;
    point.max_ratio = 1.5;
    point.create_time = absl::StrCat("2026-03-0", i + 1, "T00:00:00Z");
    // The first record had a single reference run, so no baseline.
    if (i > 0) {
      point.ratio = 1.0 + 0.1 * i;
      point.ratio_interval_lo = 0.8 + 0.1 * i;
      point.ratio_interval_hi = 1.3 + 0.1 * i;
      point.p_value = 0.2;
    }
    history.points.push_back(point);
  }
  history.without_label = 2;
  const std::string page =
      RenderHistoryHtml(history, {.tool_version = "test", .generated_at = "2024-06-11T12:00:00Z"});
  // W over the versions, and the ratio.
  const nlohmann::json check = ExpectDrawsCleanly(page, "html-history", 2);
  ASSERT_TRUE(check.is_object());
  EXPECT_EQ(check["points"], nlohmann::json::array({5, 4}));
  EXPECT_LT(page.find("4.9.2"), page.find("4.10.0"));
  EXPECT_NE(page.find("verdict-pass"), std::string::npos);
  EXPECT_NE(page.find("2 without the label"), std::string::npos);
}

}  // namespace
}  // namespace wasserwarp
