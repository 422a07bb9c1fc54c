// The overlay section of the HTML report: the worst and best simulated runs
// against their matched reference runs.

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <numeric>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"
#include "nlohmann/json.hpp"
#include "report/html_charts.h"
#include "report/html_downsample.h"
#include "report/html_escape.h"
#include "report/html_text.h"
#include "wasserwarp/edit_path.h"
#include "wasserwarp/prepare.h"
#include "wasserwarp/report.h"
#include "wasserwarp/series.h"
#include "wasserwarp/tolerance_band.h"
#include "wasserwarp/transport.h"

namespace wasserwarp {
namespace {

using Json = nlohmann::json;

constexpr size_t kWorstRunsDrawn = 5;
// More matched references than this make an overlay unreadable.
constexpr size_t kMatchedRunsDrawn = 3;
// Denser lines merge into a grey band that shows nothing.
constexpr size_t kMaxLinksPerPair = 100;

std::vector<PlanEntry> MatchedReferences(const ValidationReport& report, size_t sim) {
  std::vector<PlanEntry> matched;
  for (const PlanEntry& entry : report.plan) {
    if (entry.row == static_cast<int>(sim)) matched.push_back(entry);
  }
  std::stable_sort(matched.begin(), matched.end(),
                   [](const PlanEntry& x, const PlanEntry& y) { return x.mass > y.mass; });
  return matched;
}

std::string Ordinal(size_t k) {
  const size_t tens = k % 100;
  const char* suffix = "th";
  if (tens < 11 || tens > 13) {
    if (k % 10 == 1) suffix = "st";
    if (k % 10 == 2) suffix = "nd";
    if (k % 10 == 3) suffix = "rd";
  }
  return absl::StrCat(k, suffix);
}

// One channel of `run` at `indices`, in channel units.
Json DrawnSeries(const Series& run, size_t channel, double divisor,
                 const std::vector<size_t>& indices) {
  Json t = Json::array();
  Json v = Json::array();
  for (size_t i : indices) {
    t.push_back(RoundForDrawing(run.times[i]));
    v.push_back(RoundForDrawing(run.value(i, channel) * divisor));
  }
  return {{"t", std::move(t)}, {"v", std::move(v)}};
}

std::string DownsamplingNote(absl::string_view role, const Series& run, size_t points) {
  if (points == run.samples()) return "";
  return absl::StrCat(role, " ", run.id, ": ", run.samples(), " samples drawn as ", points,
                      " points (min and max per bucket)");
}

// The matches of one pair to draw as lines, or why there are none.
struct PairLinks {
  std::vector<EditPathMatch> drawn;
  std::string note;
};

absl::StatusOr<PairLinks> LinksOfPair(const Series& sim, const Series& ref,
                                      const ValidationReport& report,
                                      const HtmlReportOptions& options) {
  PairLinks links;
  const absl::StatusOr<EditPath> path =
      TwedEditPath(sim, ref, report.twed, options.max_edit_path_cells);
  if (path.status().code() == absl::StatusCode::kResourceExhausted) {
    links.note =
        absl::StrCat("no edit-path lines with ", ref.id, ": ", sim.samples(), " \u00d7 ",
                     ref.samples(), " DP cells exceed the cap of ", options.max_edit_path_cells);
    return links;
  }
  if (!path.ok()) return path.status();
  const size_t total = path->matches.size();
  for (size_t k : EvenlySpacedIndices(total, kMaxLinksPerPair)) {
    links.drawn.push_back(path->matches[k]);
  }
  if (links.drawn.size() < total) {
    links.note = absl::StrCat("edit-path lines with ", ref.id, ": every ",
                              Ordinal((total + kMaxLinksPerPair - 1) / kMaxLinksPerPair), " of ",
                              total, " matches");
  }
  return links;
}

Json LinksJson(const std::vector<EditPathMatch>& links, const Series& sim, const Series& ref,
               size_t channel, double divisor) {
  Json ts = Json::array(), vs = Json::array(), tr = Json::array(), vr = Json::array();
  for (const EditPathMatch& match : links) {
    ts.push_back(RoundForDrawing(sim.times[match.a]));
    vs.push_back(RoundForDrawing(sim.value(match.a, channel) * divisor));
    tr.push_back(RoundForDrawing(ref.times[match.b]));
    vr.push_back(RoundForDrawing(ref.value(match.b, channel) * divisor));
  }
  return {
      {"ts", std::move(ts)}, {"vs", std::move(vs)}, {"tr", std::move(tr)}, {"vr", std::move(vr)}};
}

// The tolerance band of `channel` around `ref` at `indices`, in channel units, with the share of
// the pair's samples inside it; null when no band is on the channel.
Json BandJson(const ValidationReport& report, const PlanEntry& entry, const Series& ref,
              size_t channel, double divisor, const std::vector<size_t>& indices) {
  for (size_t b = 0; b < report.tolerance_bands.size(); ++b) {
    if (report.tolerance_bands[b].channel != ref.channels[channel]) continue;
    std::vector<double> values(ref.samples());
    for (size_t i = 0; i < ref.samples(); ++i) values[i] = ref.value(i, channel) * divisor;
    const BandEnvelope envelope = ToleranceEnvelope(ref.times, values, report.tolerance_bands[b]);
    Json lower = Json::array();
    Json upper = Json::array();
    for (size_t i : indices) {
      lower.push_back(RoundForDrawing(envelope.lower[i]));
      upper.push_back(RoundForDrawing(envelope.upper[i]));
    }
    Json inside = nullptr;
    for (const PairBand& pair : report.bands) {
      if (pair.sim == entry.row && pair.ref == entry.col && pair.band == static_cast<int>(b) &&
          !std::isnan(pair.score.inside)) {
        inside = pair.score.inside;
      }
    }
    return {{"lower", std::move(lower)}, {"upper", std::move(upper)}, {"inside", inside}};
  }
  return nullptr;
}

double TotalContribution(const ValidationReport& report) {
  return std::accumulate(report.sim_contributions.begin(), report.sim_contributions.end(), 0.0);
}

}  // namespace

std::vector<DrawnRun> RunsToDraw(const ValidationReport& report) {
  std::vector<size_t> order(report.sim_contributions.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](size_t x, size_t y) {
    return report.sim_contributions[x] > report.sim_contributions[y];
  });
  std::vector<DrawnRun> drawn;
  for (size_t k = 0; k < order.size() && k < kWorstRunsDrawn; ++k) {
    drawn.push_back({.sim = order[k], .label = absl::StrCat("Worst ", k + 1)});
  }
  if (order.size() > kWorstRunsDrawn) drawn.push_back({.sim = order.back(), .label = "Best"});
  return drawn;
}

absl::StatusOr<ChartSection> OverlaysSection(const ValidationReport& report,
                                             const PreparedRuns& prepared,
                                             const std::vector<DrawnRun>& drawn,
                                             const HtmlReportOptions& options) {
  const size_t max_points = static_cast<size_t>(options.max_points_per_series);
  const double total = TotalContribution(report);
  ChartSection section{.html = {}, .data = Json::array()};
  section.html = absl::StrCat(
      "<section id=\"overlays\">\n<h2>Worst and best simulated runs</h2>\n"
      "<p class=\"explain\">The five simulated runs that contribute most to the distance and the "
      "one that contributes least, each against the reference runs the transport plan matches "
      "it with, per channel on the aligned time axis and in channel units. The edit-path "
      "matches are the sample pairs one optimal TWED alignment matches: lines that lean show "
      "where TWED shifted time rather than charge amplitude.",
      report.tolerance_bands.empty()
          ? ""
          : " The shaded area around a reference run is its tolerance band (--band), drawn at "
            "the reference's drawn points.",
      report.resample_rate
          ? absl::StrCat(" The runs are drawn as they were compared: resampled to ",
                         FormatNumber(*report.resample_rate, 6), " Hz.")
          : "",
      "</p>\n"
      "<label class=\"toggle\"><input type=\"checkbox\" id=\"toggle-links\"> Show edit-path "
      "matches</label>\n");
  for (size_t k = 0; k < drawn.size(); ++k) {
    const size_t sim_index = drawn[k].sim;
    const Series& sim = prepared.simulation[sim_index];
    const std::vector<PlanEntry> all_matched = MatchedReferences(report, sim_index);
    const std::vector<PlanEntry> matched(
        all_matched.begin(), all_matched.begin() + std::min(all_matched.size(), kMatchedRunsDrawn));

    std::vector<std::string> run_notes;
    if (matched.size() < all_matched.size()) {
      run_notes.push_back(absl::StrCat(matched.size(), " of ", all_matched.size(),
                                       " matched reference runs drawn (largest mass)"));
    }
    std::vector<PairLinks> links;
    for (const PlanEntry& entry : matched) {
      absl::StatusOr<PairLinks> pair =
          LinksOfPair(sim, prepared.reference[entry.col], report, options);
      if (!pair.ok()) return pair.status();
      if (!pair->note.empty()) run_notes.push_back(pair->note);
      links.push_back(*std::move(pair));
    }

    Json channels = Json::array();
    for (size_t c = 0; c < prepared.channels.size(); ++c) {
      const double divisor = prepared.channel_divisors[c];
      std::vector<std::string> notes;
      const std::vector<size_t> sim_points = MinMaxSampleIndices(sim, c, max_points);
      notes.push_back(DownsamplingNote("simulated", sim, sim_points.size()));
      Json refs = Json::array();
      for (size_t r = 0; r < matched.size(); ++r) {
        const Series& ref = prepared.reference[matched[r].col];
        const std::vector<size_t> ref_points = MinMaxSampleIndices(ref, c, max_points);
        notes.push_back(DownsamplingNote("reference", ref, ref_points.size()));
        Json entry = DrawnSeries(ref, c, divisor, ref_points);
        entry["id"] = ref.id;
        entry["mass"] = matched[r].mass;
        entry["twed"] = RoundForDrawing(matched[r].cost);
        entry["band"] = BandJson(report, matched[r], ref, c, divisor, ref_points);
        entry["links"] = links[r].drawn.empty() ? Json(nullptr)
                                                : LinksJson(links[r].drawn, sim, ref, c, divisor);
        refs.push_back(std::move(entry));
      }
      notes.insert(notes.end(), run_notes.begin(), run_notes.end());
      std::erase(notes, std::string());
      Json channel = {{"name", prepared.channels[c]},
                      {"sim", DrawnSeries(sim, c, divisor, sim_points)},
                      {"refs", std::move(refs)},
                      {"notes", notes},
                      {"unit", prepared.units[c]}};
      channels.push_back(std::move(channel));
    }
    const double contribution = report.sim_contributions[sim_index];
    section.data.push_back({{"run", sim.id},
                            {"label", drawn[k].label},
                            {"contribution", contribution},
                            {"channels", std::move(channels)}});

    std::vector<std::string> partners;
    for (const PlanEntry& entry : all_matched) {
      partners.push_back(absl::StrCat("<code>", EscapeHtml(prepared.reference[entry.col].id),
                                      "</code> (mass ", FormatNumber(entry.mass, 3), ", TWED ",
                                      FormatNumber(entry.cost, 4), ")"));
    }
    absl::StrAppend(&section.html, "<div class=\"overlay-run\">\n<h3>", drawn[k].label, ": <code>",
                    EscapeHtml(sim.id), "</code></h3>\n<p class=\"run-facts\">", "contribution ",
                    FormatNumber(contribution, 4));
    if (total > 0.0) {
      absl::StrAppend(&section.html, " (", FormatNumber(100.0 * contribution / total, 3),
                      " % of the total)");
    }
    absl::StrAppend(&section.html,
                    partners.empty()
                        ? " \u00b7 not matched: the run has no mass"
                        : absl::StrCat(" \u00b7 matched with ", absl::StrJoin(partners, ", ")),
                    "</p>\n<div class=\"chart-grid columns-",
                    std::min<size_t>(prepared.channels.size(), 3), "\">\n");
    for (size_t c = 0; c < prepared.channels.size(); ++c) {
      absl::StrAppend(&section.html,
                      "<div class=\"chart overlay-chart\"><canvas data-chart=\"overlay\" "
                      "data-index=\"",
                      k, "\" data-channel=\"", c, "\"></canvas></div>\n");
    }
    absl::StrAppend(&section.html, "</div>\n</div>\n");
  }
  absl::StrAppend(&section.html, "</section>\n");
  return section;
}

}  // namespace wasserwarp
