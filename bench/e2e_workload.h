// The end-to-end benchmark's workload: simulated and measured runs of one
// manoeuvre as CSV files, the same bytes on every run of the generator.
//
// Each run is a few smooth oscillations (as a lane change excites) with
// run-specific amplitudes, phases and a slight time stretch, plus sensor
// noise, sampled at 100 Hz with jitter after a random start offset. Only
// std::mt19937_64's raw output is used for randomness: <random>'s
// distributions differ between standard libraries.

#ifndef WASSERWARP_BENCH_E2E_WORKLOAD_H_
#define WASSERWARP_BENCH_E2E_WORKLOAD_H_

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <numbers>
#include <random>
#include <string>
#include <system_error>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace wasserwarp::bench {

struct Workload {
  int runs = 100;          // per side
  int reference_runs = 0;  // where not 0, the reference side's count instead
  int samples = 2000;
  int channels = 1;
  uint64_t seed = 1;
};

class WorkloadRandom {
 public:
  explicit WorkloadRandom(uint64_t seed) : rng_(seed) {}
  // Uniform in [0, 1), from the top 53 bits.
  double Uniform() { return static_cast<double>(rng_() >> 11) * 0x1p-53; }
  double Uniform(double low, double high) { return low + (high - low) * Uniform(); }
  // Standard normal by Box-Muller.
  double Normal() {
    const double u = 1.0 - Uniform();
    return std::sqrt(-2.0 * std::log(u)) * std::cos(2.0 * std::numbers::pi * Uniform());
  }

 private:
  std::mt19937_64 rng_;
};

// One run as CSV text: time and the channels c0, c1, ...
inline std::string RunCsv(const Workload& workload, WorkloadRandom& random, double noise) {
  constexpr int kModes = 3;
  double amplitude[kModes];
  double frequency[kModes];
  double phase[kModes];
  for (int k = 0; k < kModes; ++k) {
    amplitude[k] = random.Uniform(0.5, 1.5) / (k + 1);
    frequency[k] = random.Uniform(0.2, 0.4) * (k + 1);  // Hz
    phase[k] = random.Uniform(0.0, 0.3);
  }
  const double stretch = random.Uniform(0.98, 1.02);
  std::string csv = "time";
  for (int c = 0; c < workload.channels; ++c) absl::StrAppend(&csv, ",c", c);
  csv += "\n";
  double time = random.Uniform(0.0, 0.3);
  for (int i = 0; i < workload.samples; ++i) {
    absl::StrAppendFormat(&csv, "%.6f", time);
    for (int c = 0; c < workload.channels; ++c) {
      double value = 0.0;
      for (int k = 0; k < kModes; ++k) {
        // Channels see the modes with their own gains and lags, as steering,
        // yaw rate and lateral acceleration do.
        value +=
            amplitude[k] * (1.0 + 0.3 * c) *
            std::sin(2.0 * std::numbers::pi * frequency[k] * time * stretch + phase[k] - 0.4 * c);
      }
      absl::StrAppendFormat(&csv, ",%.9g", value + noise * random.Normal());
    }
    csv += "\n";
    time += 0.01 * random.Uniform(0.9, 1.1);
  }
  return csv;
}

// Writes dir/sim/sim_NNN.csv and dir/ref/ref_NNN.csv.
inline absl::Status WriteWorkload(const Workload& workload, const std::filesystem::path& dir) {
  WorkloadRandom random(workload.seed);
  for (const char* side : {"sim", "ref"}) {
    std::error_code error;
    std::filesystem::create_directories(dir / side, error);
    if (error) return absl::InternalError(absl::StrCat(dir.string(), ": ", error.message()));
    const bool reference = std::string(side) == "ref";
    // Measured runs carry sensor noise; simulated ones are smooth.
    const double noise = reference ? 0.02 : 0.0;
    const int count =
        reference && workload.reference_runs > 0 ? workload.reference_runs : workload.runs;
    for (int r = 0; r < count; ++r) {
      const std::filesystem::path path = dir / side / absl::StrFormat("%s_%03d.csv", side, r);
      const std::string csv = RunCsv(workload, random, noise);
      const std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(path.c_str(), "wb"),
                                                                 &std::fclose);
      if (file == nullptr || std::fwrite(csv.data(), 1, csv.size(), file.get()) != csv.size()) {
        return absl::InternalError(absl::StrCat(path.string(), ": cannot write"));
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace wasserwarp::bench

#endif  // WASSERWARP_BENCH_E2E_WORKLOAD_H_
