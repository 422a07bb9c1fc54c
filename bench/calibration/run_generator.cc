#include "calibration/run_generator.h"

#include <cmath>
#include <cstdint>
#include <numbers>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"

namespace wasserwarp::calibration {
namespace {

constexpr double kDuration = 2.0;   // seconds
constexpr double kFrequency = 1.0;  // Hz

uint64_t SplitMix64(uint64_t& state) {
  uint64_t x = (state += 0x9E3779B97F4A7C15ULL);
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

}  // namespace

double NormalStream::Uniform() {
  // 53 random bits, shifted off 0.
  return (static_cast<double>(SplitMix64(state_) >> 11) + 0.5) * 0x1.0p-53;
}

double NormalStream::Normal() {
  const double radius = std::sqrt(-2.0 * std::log(Uniform()));
  return radius * std::cos(2.0 * std::numbers::pi * Uniform());
}

RunDraws DrawRun(NormalStream& stream) {
  RunDraws draws;
  draws.amplitude = stream.Normal();
  draws.phase = stream.Normal();
  draws.time_scale = stream.Normal();
  draws.noise_seed = static_cast<uint64_t>(stream.Uniform() * 0x1.0p63);
  return draws;
}

Series MakeRun(const std::string& id, double rate, const RunDraws& draws, const ModelError& error,
               const RunSpread& spread) {
  const double amplitude = (1.0 + spread.amplitude * draws.amplitude) * (1.0 + error.amplitude);
  const double phase = spread.phase * draws.phase + error.phase;
  const double stretch = (1.0 + spread.time_scale * draws.time_scale) * (1.0 + error.time_scale);
  NormalStream noise(draws.noise_seed);
  Series run;
  run.id = id;
  run.channels = {"y"};
  const auto samples = static_cast<int>(std::floor(kDuration * rate)) + 1;
  for (int k = 0; k < samples; ++k) {
    const double t = k / rate;
    run.times.push_back(t);
    run.values.push_back(amplitude *
                             std::sin(2.0 * std::numbers::pi * kFrequency * t / stretch + phase) +
                         spread.noise * noise.Normal());
  }
  return run;
}

std::vector<Series> MakeRuns(const std::string& prefix, int count, double rate,
                             const ModelError& error, NormalStream& stream) {
  std::vector<Series> runs;
  for (int i = 0; i < count; ++i) {
    runs.push_back(MakeRun(absl::StrCat(prefix, "_", i), rate, DrawRun(stream), error));
  }
  return runs;
}

}  // namespace wasserwarp::calibration
