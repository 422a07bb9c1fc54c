// Deterministic random runs for tests and benchmarks: random walks sampled
// at irregular, strictly increasing times.

#ifndef WASSERWARP_TESTS_RANDOM_RUNS_H_
#define WASSERWARP_TESTS_RANDOM_RUNS_H_

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "wasserwarp/series.h"

namespace wasserwarp::test_data {

inline Series RandomWalkRun(std::string id, size_t samples, size_t channels, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> step(-1.0, 1.0);
  std::uniform_real_distribution<double> dt(0.005, 0.015);
  Series run;
  run.id = std::move(id);
  for (size_t c = 0; c < channels; ++c) run.channels.push_back("ch" + std::to_string(c));
  std::vector<double> level(channels, 0.0);
  double time = dt(rng);
  for (size_t i = 0; i < samples; ++i) {
    run.times.push_back(time);
    time += dt(rng);
    for (size_t c = 0; c < channels; ++c) {
      level[c] += step(rng);
      run.values.push_back(level[c]);
    }
  }
  return run;
}

// `count` runs with lengths drawn from [min_samples, max_samples].
inline std::vector<Series> RandomWalkRuns(const std::string& prefix, size_t count,
                                          size_t min_samples, size_t max_samples, size_t channels,
                                          uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<size_t> length(min_samples, max_samples);
  std::vector<Series> runs;
  for (size_t k = 0; k < count; ++k) {
    runs.push_back(RandomWalkRun(prefix + std::to_string(k), length(rng), channels, rng()));
  }
  return runs;
}

}  // namespace wasserwarp::test_data

#endif  // WASSERWARP_TESTS_RANDOM_RUNS_H_
