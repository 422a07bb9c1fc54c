// The runs of the calibration experiments: noisy 2 s sine manoeuvres, each run with its own
// amplitude, phase and time stretch (run-to-run variation) and white measurement noise on
// every sample, and a model error that a simulation may add.
//
// The random numbers are written out here (SplitMix64 and Box-Muller) rather than taken
// from <random>, whose distributions differ between standard libraries: the tables in
// docs/verdict.md must come out the same wherever the program is built.

#ifndef WASSERWARP_BENCH_CALIBRATION_RUN_GENERATOR_H_
#define WASSERWARP_BENCH_CALIBRATION_RUN_GENERATOR_H_

#include <cstdint>
#include <string>
#include <vector>

#include "wasserwarp/series.h"

namespace wasserwarp::calibration {

// Normal numbers from one seed.
class NormalStream {
 public:
  explicit NormalStream(uint64_t seed) : state_(seed) {}
  double Uniform();  // in (0, 1)
  double Normal();

 private:
  uint64_t state_;
};

// What a simulation gets wrong, relative to the reference generator.
struct ModelError {
  double amplitude = 0.0;   // relative: 0.1 is 10 % too large
  double phase = 0.0;       // radians
  double time_scale = 0.0;  // relative: 0.05 runs 5 % slower
};

struct RunSpread {
  double amplitude = 0.05;   // relative standard deviation between runs
  double phase = 0.1;        // radians
  double time_scale = 0.02;  // relative
  double noise = 0.05;       // standard deviation of each sample's measurement noise
};

// The random draws of one run, so that two variants of a model can share them (paired runs).
struct RunDraws {
  double amplitude = 0.0;
  double phase = 0.0;
  double time_scale = 0.0;
  uint64_t noise_seed = 0;
};
RunDraws DrawRun(NormalStream& stream);

// One run of 2 s at `rate` Hz, timestamps k / rate.
Series MakeRun(const std::string& id, double rate, const RunDraws& draws, const ModelError& error,
               const RunSpread& spread = {});

// `count` runs with fresh draws, ids prefix_0, prefix_1, ...
std::vector<Series> MakeRuns(const std::string& prefix, int count, double rate,
                             const ModelError& error, NormalStream& stream);

}  // namespace wasserwarp::calibration

#endif  // WASSERWARP_BENCH_CALIBRATION_RUN_GENERATOR_H_
