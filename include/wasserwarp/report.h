// What a validation and a comparison of two variants find: the pipeline
// (wasserwarp/validation.h, wasserwarp/compare.h) fills these, the report
// stage (JSON, HTML) renders them. Their own header, so that rendering a
// report needs no part of the pipeline.

#ifndef WASSERWARP_REPORT_H_
#define WASSERWARP_REPORT_H_

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "wasserwarp/cost_matrix.h"
#include "wasserwarp/engine_info.h"
#include "wasserwarp/event_window.h"
#include "wasserwarp/iso18571.h"
#include "wasserwarp/pair_metrics.h"
#include "wasserwarp/prepare.h"
#include "wasserwarp/quantity_of_interest.h"
#include "wasserwarp/run_source.h"
#include "wasserwarp/tolerance_band.h"
#include "wasserwarp/transport.h"
#include "wasserwarp/twed.h"
#include "wasserwarp/verdict.h"

namespace wasserwarp {

struct RunSummary {
  std::string id;
  uint64_t samples = 0;
  double weight = 0.0;  // normalised
  // The file the run was read from, when the front end that read it says.
  std::optional<RunSource> source;
  // With an event window: when the run's trigger fell, in its own time axis as given.
  std::optional<double> trigger_time;
};

// Diagnostics of one pair (sim, ref) of the transport plan.
struct PairDiagnostics {
  int sim = 0;
  int ref = 0;
  double twed = 0.0;
  uint64_t matches = 0;
  uint64_t sim_deletions = 0;
  uint64_t ref_deletions = 0;
  double mean_time_shift = 0.0;  // mean of t_ref - t_sim over matched samples
};

// How many of a validation's cost-matrix tiles one replica computed (cost_tiles.h).
struct TileShare {
  std::string replica;
  uint64_t tiles = 0;
  uint64_t dp_cells = 0;
  friend bool operator==(const TileShare&, const TileShare&) = default;
};

struct ValidationReport {
  double distance = 0.0;
  double order = 1.0;
  TransportSolver solver = TransportSolver::kAssignment;
  TwedParams twed;
  Align align = Align::kStart;
  Scale scale = Scale::kNone;
  std::optional<double> resample_rate;  // Hz
  Resampling resampling = Resampling::kAuto;
  std::vector<std::string> channels;
  // Per channel, as `channels`: the unit every run was compared in ("" where none), and the
  // channel's name in the simulated runs (another where the channel map mapped it). Empty in
  // reports from before units, read as "" and the channel's own name.
  std::vector<std::string> channel_units;
  std::vector<std::string> simulation_channels;
  std::vector<ChannelMapping> channel_map;  // as the options gave it
  std::vector<RunSummary> simulation;
  std::vector<RunSummary> reference;
  std::vector<PlanEntry> plan;
  std::vector<double> sim_contributions;
  std::vector<double> ref_contributions;
  std::vector<PairDiagnostics> pairs;  // one per plan entry, same order
  TransportCertificate certificate;
  double weight_rounding_bound = 0.0;
  std::optional<CostMatrix> cost_matrix;  // when keep_cost_matrix
  std::optional<Verdict> verdict;
  std::vector<PairMetrics> pair_metrics;             // plan order, then channel order
  std::vector<ChannelMetrics> pair_metrics_average;  // plan-weighted, one per channel
  std::vector<QuantityComparison> quantities;
  std::optional<CostMatrix> pooled_cost_matrix;  // when kept: TWED, floor not subtracted
  // DP cells evaluated, and those of the full n x m matrix of the runs as prepared (the
  // verdict's matrices count in dp_cells only); fewer where the lazy transport left pairs out.
  uint64_t dp_cells = 0;
  uint64_t dp_cells_full = 0;
  uint64_t pairs_computed = 0;  // sim-ref pairs whose TWED is known exactly
  uint64_t pairs_total = 0;     // n x m
  // Cells of the DP on 16-bit integers and in single precision that bounded the pairs not
  // computed (each about a quarter and half a DP cell's time), not counted in dp_cells:
  // docs/twed_bounds.md.
  uint64_t int16_cells = 0;
  uint64_t single_cells = 0;
  double seconds = 0.0;  // wall time of the whole validation
  // By replica, when the matrices were computed as tiles by a server's replicas; empty when
  // one process computed them whole.
  std::vector<TileShare> tiles;
  // What reading the run files noted, for whoever judges the result: channels of other
  // groups interpolated onto the first channel's times, invalid samples dropped. The front
  // end that read the files fills it in.
  std::vector<std::string> input_notes;
  // Channels with a unit in some runs and none in others, compared without conversion
  // (PreparedRuns::unit_notes).
  std::vector<std::string> unit_warnings;
  // What was validated, as evidence: the request's labels (wasserwarp/labels.h), the build that
  // computed it, and the digest of the effective request and the runs' checksums
  // (wasserwarp/request_digest.h; empty when unknown, as in reports stored before it).
  std::map<std::string, std::string> labels;
  std::optional<EngineInfo> engine;
  std::string request_digest;
  // Where a browser opens the stored validation this report is of (wasserwarp-server
  // --http_public_url); empty for a validation not stored, or a server without a public URL.
  std::string link;
  // The tolerance bands asked for, and each scored on each plan entry (plan order, then band
  // order; PairBand::band indexes tolerance_bands).
  std::vector<ToleranceBand> tolerance_bands;
  std::vector<PairBand> bands;

  // The event window every run was cut to (event_window.h), and the runs it left out for want
  // of a trigger; those are in neither `simulation` nor `reference`.
  std::optional<EventWindow> window;
  std::vector<UntriggeredRun> untriggered;

  // With ISO/TS 18571 asked for (iso18571.h): every plan pair and channel, in plan order then
  // channel order; the plan-weighted averages, one per channel; and one note per channel
  // whose pairs were too short to rate.
  std::vector<PairIso18571> iso18571;
  std::vector<Iso18571Average> iso18571_average;
  std::vector<std::string> iso18571_warnings;

  // How the sim-ref transport was solved: "lazy" (the TWEDs that can matter, one transport solve
  // per round) or "exhaustive" (every TWED, one solve), and its transport solves.
  std::string path;
  uint64_t transport_solves = 0;
};

// One variant's ISO/TS 18571 ratings in a comparison: what a validation of that variant alone
// reports (ValidationReport's iso18571, iso18571_average and iso18571_warnings), on the plan of
// that variant's runs to the references; `channels` names the pairs' channel indices.
struct VariantIso18571 {
  std::vector<std::string> channels;
  std::vector<PairIso18571> iso18571;
  std::vector<Iso18571Average> iso18571_average;
  std::vector<std::string> iso18571_warnings;
};

struct ComparisonReport {
  double distance_a = 0.0;
  double distance_b = 0.0;
  double difference = 0.0;  // distance_a - distance_b
  // The bias-corrected and accelerated (BCa) bootstrap interval for the difference at
  // `confidence`, with its bias correction z0 and jackknife acceleration a.
  double interval_lo = 0.0;
  double interval_hi = 0.0;
  double bias_correction = 0.0;
  double acceleration = 0.0;
  // Variant runs paired by id (the same random inputs): resampled jointly.
  bool paired = false;
  // Var of the difference under independent over paired resampling; present when paired.
  // +infinity when the paired differences do not vary at all but the independent ones do
  // (a variant compared with itself), 1 when neither varies.
  std::optional<double> variance_gain;
  int resamples = 0;
  double confidence = 0.0;
  uint64_t seed = 0;
  size_t runs_a = 0;
  size_t runs_b = 0;
  size_t runs_ref = 0;
  uint64_t dp_cells = 0;
  double seconds = 0.0;
  // With ISO/TS 18571 asked for: each variant's plan pairs rated.
  std::optional<VariantIso18571> iso18571_a;
  std::optional<VariantIso18571> iso18571_b;
};

}  // namespace wasserwarp

#endif  // WASSERWARP_REPORT_H_
