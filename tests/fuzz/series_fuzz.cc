// Runs as a client could hand them over (any ids, channel names, sample
// counts, times and values) through ValidateSeries, PrepareRuns and TWED.
// ValidateSeries must agree with an independent reading of its contract;
// PrepareRuns must refuse any invalid run and otherwise hand over valid runs
// of the chosen channels; Twed and TwedWithPath must agree and give a
// distance that is not NaN and not negative, or refuse alike.

#include <fuzzer/FuzzedDataProvider.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "fuzz_numbers.h"
#include "wasserwarp/prepare.h"
#include "wasserwarp/series.h"
#include "wasserwarp/twed.h"

namespace wasserwarp::fuzz {
namespace {

// Few names, so that runs share channels and duplicates are common.
constexpr const char* kNames[] = {"x", "y", "z", "", "time"};
constexpr size_t kMaxSamples = 48;

void Require(bool condition, std::string_view what) {
  if (condition) return;
  std::fprintf(stderr, "series_fuzz: %.*s\n", static_cast<int>(what.size()), what.data());
  std::abort();
}

std::string PickName(FuzzedDataProvider& input) {
  return kNames[input.ConsumeIntegralInRange<size_t>(0, std::size(kNames) - 1)];
}

Series DrawRun(FuzzedDataProvider& input) {
  Series run;
  run.id = PickName(input);
  const int channels = input.ConsumeIntegralInRange<int>(0, 3);
  for (int c = 0; c < channels; ++c) run.channels.push_back(PickName(input));
  const size_t samples = input.ConsumeIntegralInRange<size_t>(0, kMaxSamples);
  double time = input.ConsumeBool() ? 0.0 : EdgyDouble(input);
  for (size_t i = 0; i < samples; ++i) {
    run.times.push_back(time);
    time = NextTime(input, time);
  }
  size_t values = samples * run.channels.size();
  // Now and then a value too many or too few.
  if (input.ConsumeIntegralInRange<int>(0, 15) == 0) values = values + 1;
  if (input.ConsumeIntegralInRange<int>(0, 15) == 0 && values > 0) values = values - 1;
  for (size_t k = 0; k < values; ++k) run.values.push_back(EdgyDouble(input));
  return run;
}

// The contract of ValidateSeries, read independently of its code.
bool MeetsContract(const Series& run) {
  if (run.channels.empty() || run.times.empty()) return false;
  std::set<std::string> names;
  for (const std::string& name : run.channels) {
    if (name.empty() || !names.insert(name).second) return false;
  }
  if (run.values.size() != run.times.size() * run.channels.size()) return false;
  for (size_t i = 0; i < run.times.size(); ++i) {
    if (!std::isfinite(run.times[i]) || std::abs(run.times[i]) > kMaxAbsTime) return false;
    if (i > 0 && !(run.times[i] > run.times[i - 1])) return false;
  }
  for (double value : run.values) {
    if (!std::isfinite(value)) return false;
  }
  return true;
}

std::vector<Series> DrawSide(FuzzedDataProvider& input, bool& all_valid) {
  std::vector<Series> runs(input.ConsumeIntegralInRange<size_t>(0, 3));
  for (Series& run : runs) {
    run = DrawRun(input);
    const absl::Status status = ValidateSeries(run);
    const bool valid = MeetsContract(run);
    Require(status.ok() == valid,
            absl::StrCat("ValidateSeries says \"", status.ToString(), "\" for a run that ",
                         valid ? "meets" : "breaks", " the contract"));
    Require(valid || status.code() == absl::StatusCode::kInvalidArgument,
            absl::StrCat("unexpected status ", status.ToString()));
    all_valid = all_valid && valid;
  }
  return runs;
}

PrepareOptions DrawOptions(FuzzedDataProvider& input) {
  PrepareOptions options;
  const int channels = input.ConsumeIntegralInRange<int>(0, 2);
  for (int c = 0; c < channels; ++c) options.channels.push_back(PickName(input));
  options.align = input.ConsumeBool() ? Align::kStart : Align::kNone;
  options.scale = input.ConsumeBool() ? Scale::kReferenceStd : Scale::kNone;
  return options;
}

void CheckPrepared(const PreparedRuns& prepared, const std::vector<Series>& simulation,
                   const std::vector<Series>& reference, const PrepareOptions& options) {
  Require(prepared.simulation.size() == simulation.size() &&
              prepared.reference.size() == reference.size(),
          "PrepareRuns changed the number of runs");
  Require(prepared.channel_divisors.size() == prepared.channels.size(), "one divisor per channel");
  for (double divisor : prepared.channel_divisors) {
    Require(std::isfinite(divisor) && divisor > 0.0, "a divisor that is not finite and positive");
  }
  for (const std::vector<Series>* side : {&prepared.simulation, &prepared.reference}) {
    for (const Series& run : *side) {
      Require(ValidateSeries(run).ok(), "PrepareRuns handed over an invalid run");
      Require(run.channels == prepared.channels, "a prepared run with other channels");
      if (options.align == Align::kStart) Require(run.times.front() == 0.0, "not aligned");
    }
  }
}

TwedParams DrawParams(FuzzedDataProvider& input) {
  TwedParams params;
  params.nu = input.ConsumeBool() ? EdgyDouble(input) : 0.001;
  params.lambda = input.ConsumeBool() ? EdgyDouble(input) : 0.0;
  params.p = input.ConsumeIntegralInRange<int>(0, 3);
  if (input.ConsumeBool()) params.time_window = EdgyDouble(input);
  return params;
}

void CheckTwed(const Series& a, const Series& b, const TwedParams& params) {
  if (!ValidateTwedParams(params).ok()) return;
  const absl::StatusOr<double> distance = Twed(a, b, params);
  const absl::StatusOr<EditPathSummary> path = TwedWithPath(a, b, params);
  Require(distance.ok() == path.ok(), "Twed and TwedWithPath disagree on success");
  if (!distance.ok()) {
    // No path within the time window, or values so large the sum overflows.
    const absl::StatusCode code = distance.status().code();
    Require(code == absl::StatusCode::kInvalidArgument || code == absl::StatusCode::kOutOfRange,
            absl::StrCat("unexpected status ", distance.status().ToString()));
    return;
  }
  Require(!std::isnan(*distance) && *distance >= 0.0,
          absl::StrCat("TWED ", *distance, " is NaN or negative"));
  Require(path->distance == *distance, "TwedWithPath gives another distance");
  Require(path->matches + path->a_deletions == a.samples() &&
              path->matches + path->b_deletions == b.samples(),
          "the edit path does not account for every sample");
}

// Runs, options and parameters drawn from `data`.
void CheckRuns(const uint8_t* data, size_t size) {
  FuzzedDataProvider input(data, size);
  bool all_valid = true;
  const std::vector<Series> simulation = DrawSide(input, all_valid);
  const std::vector<Series> reference = DrawSide(input, all_valid);
  const PrepareOptions options = DrawOptions(input);
  const absl::StatusOr<PreparedRuns> prepared = PrepareRuns(simulation, reference, options);
  if (!prepared.ok()) {
    Require(prepared.status().code() == absl::StatusCode::kInvalidArgument,
            absl::StrCat("unexpected status ", prepared.status().ToString()));
    return;
  }
  Require(all_valid, "PrepareRuns accepted an invalid run");
  CheckPrepared(*prepared, simulation, reference, options);
  CheckTwed(prepared->simulation.front(), prepared->reference.front(), DrawParams(input));
}

}  // namespace
}  // namespace wasserwarp::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  wasserwarp::fuzz::CheckRuns(data, size);
  return 0;
}
