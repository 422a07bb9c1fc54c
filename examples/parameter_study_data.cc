#include "parameter_study_data.h"

#include <array>
#include <cerrno>
#include <charconv>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "lane_change.h"
#include "random_source.h"
#include "single_track.h"

namespace wasserwarp::examples {
namespace {

// Design values in percent of nominal, so that they come out as exact N/rad,
// which 1.15 * 95000.0 does not.
constexpr std::array<int, 7> kFrontPercents = {84, 87, 90, 93, 96, 99, 102};
constexpr std::array<int, 3> kInertiaPercents = {85, 100, 115};
// Off the front grid, so that identification has to interpolate.
constexpr int kTrueFrontPercent = 92;
constexpr int kTrueInertiaPercent = 100;
constexpr int kTrials = 10;
constexpr int kReferenceRuns = 20;
constexpr int kReferencesPerCampaign = 10;

// Mixed into the seed; the demo's own streams use the seed unmixed, so none
// of their draws move when the study changes.
constexpr uint64_t kSimStream = 1;
constexpr uint64_t kRefStream = 2;

double PercentOf(double nominal, int percent) { return nominal * percent / 100.0; }

// SplitMix64's finaliser: neighbouring inputs seed unrelated engines.
uint64_t Mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// An engine of its own per run, so that a run's draws depend on its index
// alone, not on how many runs come before it or in which order.
RandomSource StreamFor(uint64_t seed, uint64_t stream, int index) {
  return RandomSource(Mix(Mix(Mix(seed) ^ stream) ^ static_cast<uint64_t>(index)));
}

// The scatter of the demo's simulated runs but for the two stiffnesses, which
// the design sets.
struct Trial {
  double mass;
  SingleSineSteer steer;
  double speed;
};

Trial DrawTrial(uint64_t seed, uint64_t stream, int index) {
  RandomSource random = StreamFor(seed, stream, index);
  Trial trial;
  trial.mass = random.Scatter(kCar.mass, kSimMassScatter);
  trial.steer = kLaneChange;
  trial.steer.amplitude = random.Scatter(kLaneChange.amplitude, kSimAmplitudeScatter);
  trial.speed = random.Scatter(kSpeed, kSimSpeedScatter);
  return trial;
}

std::string Padded(int value, int width) {
  char text[16];
  std::snprintf(text, sizeof(text), "%0*d", width, value);
  return text;
}

// The shortest text that reads back as the same double, so that a test can
// compare against the design values exactly.
std::string Exact(double value) {
  char text[32];
  const std::to_chars_result result = std::to_chars(text, text + sizeof(text), value);
  return std::string(text, result.ptr);
}

bool WriteText(const std::filesystem::path& path, const std::string& text) {
  std::FILE* file = std::fopen(path.c_str(), "w");
  if (file == nullptr) {
    std::fprintf(stderr, "cannot write %s: %s\n", path.c_str(), std::strerror(errno));
    return false;
  }
  const bool ok = std::fwrite(text.data(), 1, text.size(), file) == text.size();
  if (std::fclose(file) != 0 || !ok) {
    std::fprintf(stderr, "cannot write %s\n", path.c_str());
    return false;
  }
  return true;
}

}  // namespace

bool WriteParameterStudy(const std::filesystem::path& dir, uint64_t seed) {
  const std::filesystem::path sim_dir = dir / "sim";
  const std::filesystem::path ref_dir = dir / "ref";
  if (!PrepareDirectory(sim_dir, "run_") || !PrepareDirectory(ref_dir, "ref_")) return false;

  std::vector<Trial> trials;
  for (int t = 0; t < kTrials; ++t) trials.push_back(DrawTrial(seed, kSimStream, t));
  std::string params = "run_id,front_cornering,yaw_inertia,trial\n";
  int point = 0;
  for (int front : kFrontPercents) {
    for (int inertia : kInertiaPercents) {
      VehicleParams vehicle = kCar;
      vehicle.front_cornering = PercentOf(kCar.front_cornering, front);
      vehicle.yaw_inertia = PercentOf(kCar.yaw_inertia, inertia);
      for (int t = 0; t < kTrials; ++t) {
        const Trial& trial = trials[static_cast<size_t>(t)];
        const std::string run_id = "run_" + Padded(point, 3) + "_" + Padded(t, 2);
        vehicle.mass = trial.mass;
        if (!WriteSimulation(vehicle, trial.speed, trial.steer, sim_dir / (run_id + ".csv"))) {
          return false;
        }
        params += run_id + "," + Exact(vehicle.front_cornering) + "," + Exact(vehicle.yaw_inertia) +
                  ",t" + Padded(t, 2) + "\n";
      }
      ++point;
    }
  }

  VehicleParams truth = kCar;
  truth.front_cornering = PercentOf(kCar.front_cornering, kTrueFrontPercent);
  truth.yaw_inertia = PercentOf(kCar.yaw_inertia, kTrueInertiaPercent);
  std::string groups = "run_id,group\n";
  for (int r = 0; r < kReferenceRuns; ++r) {
    const std::string run_id = "ref_" + Padded(r, 2);
    // The true car on random inputs of its own, drawn as the trials' are, and recorded without
    // the demo references' logger filter and time stretch, which a stiffness would partly
    // absorb: W is then smallest at the truth in expectation, and the identification can be
    // held to its interval.
    const Trial inputs = DrawTrial(seed, kRefStream, r);
    VehicleParams car = truth;
    car.mass = inputs.mass;
    if (!WriteSimulation(car, inputs.speed, inputs.steer, ref_dir / (run_id + ".csv"))) {
      return false;
    }
    groups += run_id + ",campaign_" + std::to_string(r / kReferencesPerCampaign + 1) + "\n";
  }
  return WriteText(dir / "sim_params.csv", params) && WriteText(dir / "ref_groups.csv", groups) &&
         WriteText(dir / "truth.csv", "parameter,value\nfront_cornering," +
                                          Exact(truth.front_cornering) + "\nyaw_inertia," +
                                          Exact(truth.yaw_inertia) + "\n");
}

}  // namespace wasserwarp::examples
