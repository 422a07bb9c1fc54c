#include "wasserwarp/validation_size.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "series/sampling_rate.h"
#include "verdict/ratio_interval.h"
#include "wasserwarp/field_error.h"

namespace wasserwarp {
namespace {

constexpr uint64_t kSaturated = std::numeric_limits<uint64_t>::max();

// Saturating arithmetic: a size past 2^64 is simply too large, never a wrapped small number.
uint64_t Add(uint64_t a, uint64_t b) { return a > kSaturated - b ? kSaturated : a + b; }
uint64_t Mul(uint64_t a, uint64_t b) {
  uint64_t product = 0;
  return __builtin_mul_overflow(a, b, &product) ? kSaturated : product;
}
uint64_t Mul(uint64_t a, uint64_t b, uint64_t c) { return Mul(Mul(a, b), c); }

// Upper bounds of the core's own memory use, from its data structures: a TWED side holds
// (channels + 2) doubles a sample and its DP rows six more, for the row run and for each of
// up to kBatchLanes columns of a SIMD batch; a transport solve on k cost entries holds the
// costs to the q-th power and the solver's arcs.
constexpr uint64_t kBatchLanes = 8;
constexpr uint64_t kTwedRowDoubles = 8;
constexpr uint64_t kTransportBytesPerEntry = 72;
// A plan entry's pair diagnostics, plan entry and contributions; and one channel's metrics.
constexpr uint64_t kPlanEntryBytes = 128;
constexpr uint64_t kChannelMetricBytes = 72;
// A tolerance band on a pair holds both runs' values of its channel, the reference's envelope
// (two doubles) and its window's two index deques, per sample of the longer run; and its score.
constexpr uint64_t kBandBytesPerSample = 6 * sizeof(double);
constexpr uint64_t kPairBandBytes = 64;
// The HTML page draws at most a fixed number of runs, pairs and cells (html_charts.cc,
// html_overlays.cc, html_summary.cc), plus the inlined Chart.js.
constexpr uint64_t kHtmlReportBytes = uint64_t{16} << 20;

uint64_t ResampledSamples(const RunShape& run, const PrepareOptions& prepare) {
  if (!prepare.resample_rate.has_value()) return run.samples;
  const double samples = std::floor((run.last_time - run.first_time) * *prepare.resample_rate) + 1;
  return samples >= 1.8e19 ? kSaturated : static_cast<uint64_t>(samples);
}

struct SideSizes {
  uint64_t input_bytes = 0;     // the runs as given
  uint64_t prepared_bytes = 0;  // selected, aligned, resampled
  uint64_t total_samples = 0;   // after resampling
  uint64_t sum_squared_samples = 0;
  uint64_t largest_samples = 0;
  uint64_t largest_input_samples = 0;
};

SideSizes SizeSide(const std::vector<RunShape>& runs, const PrepareOptions& prepare,
                   uint64_t channels) {
  SideSizes side;
  for (const RunShape& run : runs) {
    const uint64_t samples = ResampledSamples(run, prepare);
    side.input_bytes = Add(side.input_bytes, Mul(run.samples, run.channels + 1, sizeof(double)));
    side.prepared_bytes = Add(side.prepared_bytes, Mul(samples, channels + 1, sizeof(double)));
    side.total_samples = Add(side.total_samples, samples);
    side.sum_squared_samples = Add(side.sum_squared_samples, Mul(samples, samples));
    side.largest_samples = std::max(side.largest_samples, samples);
    side.largest_input_samples = std::max(side.largest_input_samples, run.samples);
  }
  return side;
}

// Cells of the TWEDs between distinct runs of one group: sum over i < j of n_i n_j.
uint64_t WithinGroupCells(const SideSizes& side) {
  const uint64_t square = Mul(side.total_samples, side.total_samples);
  return square == kSaturated ? kSaturated : (square - side.sum_squared_samples) / 2;
}

std::string FormatBytes(uint64_t bytes) {
  if (bytes == kSaturated) return "more than 16 EiB";
  const double value = static_cast<double>(bytes);
  if (value >= 1 << 30) return absl::StrFormat("%.1f GiB", value / (1 << 30));
  if (value >= 1 << 20) return absl::StrFormat("%.1f MiB", value / (1 << 20));
  return absl::StrFormat("%d bytes", bytes);
}

std::string FormatCount(uint64_t count) {
  return count == kSaturated ? "more than 1.8e19" : absl::StrFormat("%.3g", double(count));
}

// One part of the job's memory, by the option that asks for it.
struct MemoryPart {
  std::string field;
  std::string what;
  uint64_t bytes = 0;
};

GroupRates ShapeRates(const std::vector<RunShape>& simulation,
                      const std::vector<RunShape>& reference) {
  const auto median = [](const std::vector<RunShape>& runs) {
    std::vector<double> rates;
    rates.reserve(runs.size());
    for (const RunShape& run : runs) {
      rates.push_back(SamplingRate(run.samples, run.first_time, run.last_time));
    }
    return MedianRate(std::move(rates));
  };
  return {.simulation = median(simulation), .reference = median(reference)};
}

// The step of the ISO/TS 18571 grid on `ref` as prepared: its median step, or the resampling's
// uniform one.
double ReferenceGridStep(const RunShape& ref, const PrepareOptions& prepare) {
  if (prepare.resample_rate.has_value()) return 1.0 / *prepare.resample_rate;
  return ref.median_step;
}

// The DTW cells of one channel of the largest pair ISO/TS 18571 could rate.
uint64_t LargestIso18571Pair(const std::vector<RunShape>& simulation,
                             const std::vector<RunShape>& reference,
                             const PrepareOptions& prepare) {
  uint64_t largest = 0;
  for (const RunShape& ref : reference) {
    const double ref_span = ref.last_time - ref.first_time;
    // A window's two interpolated ends are samples the recording did not have.
    const uint64_t ref_samples =
        Add(ResampledSamples(ref, prepare), prepare.window.has_value() ? 2 : 0);
    const double ref_step = ReferenceGridStep(ref, prepare);
    for (const RunShape& sim : simulation) {
      const uint64_t grid =
          Iso18571GridSamples(sim.last_time - sim.first_time, ref_span, ref_step, ref_samples);
      largest = std::max(largest, Iso18571DtwCells(grid));
    }
  }
  return largest;
}

struct Estimate {
  ValidationSize size;
  std::vector<MemoryPart> parts;
  // The largest run after resampling, to name it.
  const RunShape* largest_run = nullptr;
  const char* largest_side = "";
};

absl::StatusOr<Estimate> Compute(const std::vector<RunShape>& simulation,
                                 const std::vector<RunShape>& reference,
                                 const ValidationOptions& options, const ValidationLimits& limits) {
  const PrepareOptions& prepare = options.prepare;
  if (absl::Status status = ValidateResampleRate(prepare.resample_rate); !status.ok()) {
    return status;
  }
  Estimate estimate;
  ValidationSize& size = estimate.size;
  const uint64_t channels = !prepare.channels.empty() ? prepare.channels.size()
                            : simulation.empty()      ? 0
                                                      : simulation.front().channels;
  const SideSizes sim = SizeSide(simulation, prepare, channels);
  const SideSizes ref = SizeSide(reference, prepare, channels);
  for (auto [runs, side] :
       {std::pair{&simulation, "simulated"}, std::pair{&reference, "reference"}}) {
    for (const RunShape& run : *runs) {
      const uint64_t samples = ResampledSamples(run, prepare);
      if (estimate.largest_run == nullptr || samples > size.largest_run_samples) {
        size.largest_run_samples = samples;
        estimate.largest_run = &run;
        estimate.largest_side = side;
      }
    }
  }
  const uint64_t n = simulation.size();
  const uint64_t m = reference.size();
  size.dp_cells = Mul(sim.total_samples, ref.total_samples);

  const int threads = limits.threads > 0
                          ? limits.threads
                          : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const std::string runs_field = prepare.resample_rate.has_value() ? "resample_rate" : "runs";
  const uint64_t largest_input =
      std::max(sim.largest_input_samples, ref.largest_input_samples) * (channels + 1) * 8;
  estimate.parts.push_back({"runs", "the runs", Add(sim.input_bytes, ref.input_bytes)});
  estimate.parts.push_back({runs_field, "the prepared runs",
                            Add(Add(sim.prepared_bytes, ref.prepared_bytes), largest_input)});
  const uint64_t twed_rows =
      Mul(Add(sim.largest_samples, ref.largest_samples),
          Mul(channels + 2 + kTwedRowDoubles, sizeof(double), kBatchLanes + 1));
  estimate.parts.push_back({runs_field, "the TWED rows of every thread", Mul(twed_rows, threads)});
  const uint64_t pairs = Mul(n, m);
  const uint64_t matrix_copies = options.keep_cost_matrix ? 1 + limits.report_copies : 1;
  estimate.parts.push_back(
      {options.keep_cost_matrix ? "keep_cost_matrix" : "runs",
       "the cost matrix and its transport problem",
       Add(Mul(pairs, sizeof(double), matrix_copies), Mul(pairs, kTransportBytesPerEntry))});
  const uint64_t plan = n + m;
  estimate.parts.push_back(
      {"runs", "the plan's diagnostics and metrics",
       Mul(Add(Mul(plan, kPlanEntryBytes), Mul(plan, channels, kChannelMetricBytes)),
           1 + limits.report_copies)});
  if (!options.bands.empty()) {
    const uint64_t longest = std::max(sim.largest_samples, ref.largest_samples);
    estimate.parts.push_back(
        {"bands", "the tolerance bands' envelopes and scores",
         Add(Mul(longest, kBandBytesPerSample, threads),
             Mul(Mul(plan, options.bands.size()), kPairBandBytes, 1 + limits.report_copies))});
  }
  if (limits.html_report)
    estimate.parts.push_back({"html_report", "the HTML report", kHtmlReportBytes});
  if (RatesIso18571(options) && n > 0 && m > 0) {
    const uint64_t largest = LargestIso18571Pair(simulation, reference, prepare);
    size.iso18571_dtw_cells = Mul(n + m - 1, channels, largest);
    // A DTW holds one byte per cell of its band, on every thread.
    estimate.parts.push_back(
        {"iso18571", "the ISO/TS 18571 DTW of every thread", Mul(largest, threads)});
  }

  if (options.verdict.has_value()) {
    absl::StatusOr<std::optional<double>> grid_rate =
        VerdictGridRate(ShapeRates(simulation, reference), prepare);
    if (!grid_rate.ok()) return grid_rate.status();
    const uint64_t k = static_cast<uint64_t>(std::max(0, options.verdict->permutations));
    size.pooled_dp_cells = Add(WithinGroupCells(sim), WithinGroupCells(ref));
    if (grid_rate->has_value()) {
      PrepareOptions on_grid = prepare;
      on_grid.resample_rate = **grid_rate;
      const SideSizes grid_sim = SizeSide(simulation, on_grid, channels);
      const SideSizes grid_ref = SizeSide(reference, on_grid, channels);
      size.pooled_dp_cells = Add(Add(WithinGroupCells(grid_sim), WithinGroupCells(grid_ref)),
                                 Mul(grid_sim.total_samples, grid_ref.total_samples));
      estimate.parts.push_back({"resampling", "the verdict's resampled runs",
                                Add(grid_sim.prepared_bytes, grid_ref.prepared_bytes)});
    }
    const uint64_t half = m / 2;
    // The ratio interval's resamples solve problems of at most m reference runs and h
    // simulated ones, two for each of their splits.
    const uint64_t interval_solves = m >= 2 ? resampling::RatioIntervalSolves(k) : 0;
    size.resampling_solves = Add(Mul(k, m >= 2 ? 3 : 1), interval_solves);
    size.resampling_cells = Add(Add(Mul(k, pairs), Mul(2 * k, half, half)),
                                Mul(interval_solves, std::min(n, half) + half, m));
    const uint64_t pooled = Mul(n + m, n + m, sizeof(double));
    const uint64_t pooled_copies = options.keep_pooled_cost_matrix ? 2 + limits.report_copies : 1;
    estimate.parts.push_back(
        {options.keep_pooled_cost_matrix ? "keep_pooled_cost_matrix" : "verdict",
         "the pooled cost matrix", Mul(pooled, pooled_copies)});
    estimate.parts.push_back({"verdict", "the transport problems of every thread",
                              Mul(Mul(pairs, kTransportBytesPerEntry + sizeof(double)), threads)});
    estimate.parts.push_back(
        {"permutations", "the resampled statistics", Mul(k, 3 * sizeof(double))});
  }
  for (const MemoryPart& part : estimate.parts) size.bytes = Add(size.bytes, part.bytes);
  return estimate;
}

bool Exceeds(uint64_t value, const SizeLimit& limit) {
  return limit.value > 0 && value > limit.value;
}

std::string Over(const SizeLimit& limit) {
  return absl::StrCat("over the limit of ", limit.value, " (", limit.name, ")");
}

}  // namespace

RunShape ShapeOf(const Series& run) {
  RunShape shape{.id = run.id, .samples = run.samples(), .channels = run.num_channels()};
  if (!run.times.empty()) {
    shape.first_time = run.times.front();
    shape.last_time = run.times.back();
  }
  if (run.samples() >= 2) shape.median_step = MedianStep(run.times);
  return shape;
}

absl::StatusOr<ValidationSize> EstimateValidationSize(const std::vector<RunShape>& simulation,
                                                      const std::vector<RunShape>& reference,
                                                      const ValidationOptions& options,
                                                      const ValidationLimits& limits) {
  absl::StatusOr<Estimate> estimate = Compute(simulation, reference, options, limits);
  if (!estimate.ok()) return estimate.status();
  return estimate->size;
}

absl::Status CheckValidationSize(const std::vector<RunShape>& simulation,
                                 const std::vector<RunShape>& reference,
                                 const ValidationOptions& options, const ValidationLimits& limits) {
  absl::StatusOr<Estimate> estimate = Compute(simulation, reference, options, limits);
  if (!estimate.ok()) return estimate.status();
  const ValidationSize& size = estimate->size;
  const bool resampled = options.prepare.resample_rate.has_value();
  if (estimate->largest_run != nullptr &&
      Exceeds(size.largest_run_samples, limits.samples_per_run)) {
    const std::string detail =
        resampled ? absl::StrCat(estimate->largest_side, " run \"", estimate->largest_run->id,
                                 "\" would have ", FormatCount(size.largest_run_samples),
                                 " samples at ", *options.prepare.resample_rate, " Hz, ")
                  : absl::StrCat(estimate->largest_side, " run \"", estimate->largest_run->id,
                                 "\" has ", FormatCount(size.largest_run_samples), " samples, ");
    return LimitExceededError(resampled ? "resample_rate" : "runs", limits.samples_per_run.name,
                              absl::StrCat(detail, Over(limits.samples_per_run)));
  }
  if (Exceeds(size.dp_cells, limits.dp_cells)) {
    return LimitExceededError(
        resampled ? "resample_rate" : "runs", limits.dp_cells.name,
        absl::StrCat("the cost matrix of ", simulation.size(), " x ", reference.size(),
                     " runs would take ", FormatCount(size.dp_cells), " TWED cells, ",
                     Over(limits.dp_cells)));
  }
  if (Exceeds(Add(size.dp_cells, size.pooled_dp_cells), limits.dp_cells)) {
    return LimitExceededError(
        "verdict", limits.dp_cells.name,
        absl::StrCat("the verdict's pooled cost matrix would take ",
                     FormatCount(size.pooled_dp_cells), " TWED cells besides the ",
                     FormatCount(size.dp_cells), " of the cost matrix, ", Over(limits.dp_cells)));
  }
  if (Exceeds(Add(Add(size.dp_cells, size.pooled_dp_cells), size.iso18571_dtw_cells),
              limits.dp_cells)) {
    return LimitExceededError(
        "iso18571", limits.dp_cells.name,
        absl::StrCat("the ISO/TS 18571 rating would take up to ",
                     FormatCount(size.iso18571_dtw_cells), " DTW cells besides the ",
                     FormatCount(Add(size.dp_cells, size.pooled_dp_cells)),
                     " TWED cells of the cost matrices, ", Over(limits.dp_cells)));
  }
  if (Exceeds(size.resampling_cells, limits.dp_cells)) {
    return LimitExceededError(
        "permutations", limits.dp_cells.name,
        absl::StrCat(FormatCount(size.resampling_solves), " transport solves would read ",
                     FormatCount(size.resampling_cells), " cost entries, ", Over(limits.dp_cells)));
  }
  if (Exceeds(size.bytes, limits.bytes)) {
    const MemoryPart& largest = *std::max_element(
        estimate->parts.begin(), estimate->parts.end(),
        [](const MemoryPart& a, const MemoryPart& b) { return a.bytes < b.bytes; });
    return LimitExceededError(
        largest.field, limits.bytes.name,
        absl::StrCat("the validation would hold about ", FormatBytes(size.bytes),
                     " (the largest part, ", largest.what, ": ", FormatBytes(largest.bytes),
                     "), over the limit of ", FormatBytes(limits.bytes.value), " (",
                     limits.bytes.name, ")"));
  }
  return absl::OkStatus();
}

}  // namespace wasserwarp
