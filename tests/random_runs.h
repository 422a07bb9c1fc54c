// Deterministic random runs for tests and benchmarks: Gaussian random walks
// sampled at irregular, strictly increasing times; and TWED parameters in one call.

#ifndef WASSERWARP_TESTS_RANDOM_RUNS_H_
#define WASSERWARP_TESTS_RANDOM_RUNS_H_

#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "wasserwarp/series.h"
#include "wasserwarp/twed.h"

namespace wasserwarp::test_data {

// Gaps between samples drawn uniformly from [min_gap, max_gap] seconds; the
// first sample comes one gap after start_time.
struct Sampling {
  double min_gap = 0.005;
  double max_gap = 0.015;
  double start_time = 0.0;
};

inline Series RandomWalkRun(std::mt19937_64& rng, std::string id, size_t samples, size_t channels,
                            const Sampling& sampling = {}) {
  std::uniform_real_distribution<double> gap(sampling.min_gap, sampling.max_gap);
  std::normal_distribution<double> step(0.0, 1.0);
  Series run;
  run.id = std::move(id);
  for (size_t c = 0; c < channels; ++c) run.channels.push_back(absl::StrCat("c", c));
  std::vector<double> level(channels, 0.0);
  double time = sampling.start_time;
  for (size_t i = 0; i < samples; ++i) {
    time += gap(rng);
    run.times.push_back(time);
    for (double& x : level) {
      x += step(rng);
      run.values.push_back(x);
    }
  }
  return run;
}

// `count` runs named prefix0, prefix1, ... with lengths drawn from
// [min_samples, max_samples].
inline std::vector<Series> RandomWalkRuns(absl::string_view prefix, size_t count,
                                          size_t min_samples, size_t max_samples, size_t channels,
                                          uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<size_t> length(min_samples, max_samples);
  std::vector<Series> runs;
  for (size_t k = 0; k < count; ++k) {
    const size_t samples = length(rng);
    runs.push_back(RandomWalkRun(rng, absl::StrCat(prefix, k), samples, channels));
  }
  return runs;
}

// A simulated and a reference set of `runs` runs each, every run `samples` samples long: the
// workload of the validation and verdict benchmarks, so that their figures describe one set.
struct RunSets {
  std::vector<Series> simulation;
  std::vector<Series> reference;
};

inline RunSets RandomRunSets(size_t runs, size_t samples, size_t channels) {
  return {.simulation = RandomWalkRuns("sim", runs, samples, samples, channels, 1),
          .reference = RandomWalkRuns("ref", runs, samples, samples, channels, 2)};
}

inline TwedParams MakeTwedParams(double nu, double lambda, double p = 2.0,
                                 std::optional<double> time_window = std::nullopt) {
  TwedParams params;
  params.nu = nu;
  params.lambda = lambda;
  params.p = p;
  params.time_window = time_window;
  return params;
}

// Two runs and the TWED parameters to compare them under: one test case of the TWED kernels
// and bounds.
struct TwedCase {
  Series a;
  Series b;
  TwedParams params;
};

// What a failing case's message says of it.
inline std::string Describe(const TwedCase& c) {
  std::string s = absl::StrCat("n=", c.a.samples(), " m=", c.b.samples(), " d=", c.a.num_channels(),
                               " nu=", c.params.nu, " lambda=", c.params.lambda, " p=", c.params.p,
                               " ta1=", c.a.times.front(), " tb1=", c.b.times.front());
  if (c.params.time_window) absl::StrAppend(&s, " w=", *c.params.time_window);
  return s;
}

}  // namespace wasserwarp::test_data

#endif  // WASSERWARP_TESTS_RANDOM_RUNS_H_
