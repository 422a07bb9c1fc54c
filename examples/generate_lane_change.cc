// Writes a demo data set for wasserwarp: measured lane changes of one real
// car (references) and two simulation models of it, one with plausible
// parameters and one with a front cornering stiffness 40 % too low; and a
// parameter study of the same car for `identify` and `sensitivity`.
//
//   wasserwarp-example-data --out DIR [--seed N] [--sim-runs N] [--ref-runs N]
//
// DIR/ref/ref_XX.csv     250 Hz, filtered measurement noise, recording start 0-0.3 s
//                        into the manoeuvre, time axis stretched by 1 +- 2 %
// DIR/sim_a/sim_XX.csv   100 Hz, nominal model with parameter scatter
// DIR/sim_b/sim_XX.csv   the same draws as sim_a, run for run, but with the
//                        front cornering stiffness too low (understeer)
//
// DIR/study/, the same for every --sim-runs and --ref-runs:
// sim/run_PPP_TT.csv     100 Hz as sim_a, at design point PPP = 000-020: front
//                        cornering stiffness Cf at 0.70, 0.80, ..., 1.30 times
//                        nominal, each with rear Cr at 0.85, 1.00, 1.15; trial
//                        TT = 00-09. Cf and Cr are exactly the design values;
//                        trial TT's other scatter is the same at every point
// sim_params.csv         run_id,front_cornering,rear_cornering,trial (t00-t09)
// ref/ref_RR.csv         RR = 00-19, made as DIR/ref's runs but of a car with
//                        Cf = 0.95 (off the grid) and Cr = 1.00 times nominal
// ref_groups.csv         run_id,group: refs 00-09 campaign_1, 10-19 campaign_2
// truth.csv              parameter,value: that car's front_cornering and
//                        rear_cornering, in N/rad

#include <algorithm>
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "lane_change.h"
#include "parameter_study_data.h"
#include "random_source.h"
#include "single_track.h"

namespace wasserwarp::examples {
namespace {

constexpr double kSimWrongFrontCornering = 0.6;

constexpr uint64_t kDefaultSeed = 20240611;
constexpr char kUsage[] =
    "usage: wasserwarp-example-data --out DIR [--seed N] [--sim-runs N] [--ref-runs N]\n";

struct Options {
  std::filesystem::path out;
  uint64_t seed = kDefaultSeed;
  uint64_t sim_runs = 20;
  uint64_t ref_runs = 20;
};

std::optional<uint64_t> ParseCount(std::string_view text) {
  uint64_t value = 0;
  const std::from_chars_result result =
      std::from_chars(text.data(), text.data() + text.size(), value);
  if (result.ec != std::errc() || result.ptr != text.data() + text.size()) return std::nullopt;
  return value;
}

// Accepts `--flag value` and `--flag=value`. Prints the problem and returns
// nullopt on bad input.
std::optional<Options> ParseOptions(int argc, char** argv) {
  Options options;
  for (int i = 1; i < argc; ++i) {
    std::string_view flag = argv[i];
    if (flag == "--help") {
      std::fputs(kUsage, stdout);
      std::exit(0);
    }
    std::optional<std::string_view> value;
    if (const size_t equals = flag.find('='); equals != std::string_view::npos) {
      value = flag.substr(equals + 1);
      flag = flag.substr(0, equals);
    } else if (i + 1 < argc) {
      value = argv[++i];
    }
    if (!value.has_value()) {
      std::fprintf(stderr, "%.*s needs a value\n%s", static_cast<int>(flag.size()), flag.data(),
                   kUsage);
      return std::nullopt;
    }
    if (flag == "--out") {
      options.out = std::string(*value);
      continue;
    }
    uint64_t* target = flag == "--seed"       ? &options.seed
                       : flag == "--sim-runs" ? &options.sim_runs
                       : flag == "--ref-runs" ? &options.ref_runs
                                              : nullptr;
    if (target == nullptr) {
      std::fprintf(stderr, "unknown flag %.*s\n%s", static_cast<int>(flag.size()), flag.data(),
                   kUsage);
      return std::nullopt;
    }
    const std::optional<uint64_t> number = ParseCount(*value);
    if (!number.has_value()) {
      std::fprintf(stderr, "%.*s: \"%.*s\" is not a non-negative integer\n",
                   static_cast<int>(flag.size()), flag.data(), static_cast<int>(value->size()),
                   value->data());
      return std::nullopt;
    }
    *target = *number;
  }
  if (options.out.empty()) {
    std::fprintf(stderr, "--out is required\n%s", kUsage);
    return std::nullopt;
  }
  if (options.sim_runs == 0 || options.ref_runs == 0) {
    std::fprintf(stderr, "--sim-runs and --ref-runs must be at least 1\n");
    return std::nullopt;
  }
  return options;
}

// Zero-padded so that file names sort in run order.
std::string RunName(std::string_view prefix, uint64_t index, uint64_t count) {
  const int width = std::max<int>(2, static_cast<int>(std::to_string(count).size()));
  char number[32];
  std::snprintf(number, sizeof(number), "%0*llu", width,
                static_cast<unsigned long long>(index + 1));
  return std::string(prefix) + number + ".csv";
}

// Writes one sim_a and one sim_b run from a single draw of the scatter.
bool WriteSimulationPair(RandomSource& random, const std::filesystem::path& dir_a,
                         const std::filesystem::path& dir_b, const std::string& name) {
  VehicleParams vehicle = kCar;
  vehicle.mass = random.Scatter(kCar.mass, kSimMassScatter);
  vehicle.front_cornering = random.Scatter(kCar.front_cornering, kSimCorneringScatter);
  vehicle.rear_cornering = random.Scatter(kCar.rear_cornering, kSimCorneringScatter);
  SingleSineSteer steer = kLaneChange;
  steer.amplitude = random.Scatter(kLaneChange.amplitude, kSimAmplitudeScatter);
  const double speed = random.Scatter(kSpeed, kSimSpeedScatter);

  VehicleParams understeering = vehicle;
  understeering.front_cornering *= kSimWrongFrontCornering;
  return WriteSimulation(vehicle, speed, steer, dir_a / name) &&
         WriteSimulation(understeering, speed, steer, dir_b / name);
}

int Run(const Options& options) {
  const std::filesystem::path ref_dir = options.out / "ref";
  const std::filesystem::path sim_a_dir = options.out / "sim_a";
  const std::filesystem::path sim_b_dir = options.out / "sim_b";
  if (!PrepareDirectory(ref_dir, "ref_") || !PrepareDirectory(sim_a_dir, "sim_") ||
      !PrepareDirectory(sim_b_dir, "sim_")) {
    return 1;
  }
  // Separate streams, so that the reference runs do not change with
  // --sim-runs and vice versa.
  RandomSource sim_random(options.seed);
  RandomSource ref_random(options.seed ^ 0x9e3779b97f4a7c15ULL);
  for (uint64_t i = 0; i < options.sim_runs; ++i) {
    if (!WriteSimulationPair(sim_random, sim_a_dir, sim_b_dir,
                             RunName("sim_", i, options.sim_runs))) {
      return 1;
    }
  }
  for (uint64_t i = 0; i < options.ref_runs; ++i) {
    if (!WriteReference(ref_random, kCar, ref_dir / RunName("ref_", i, options.ref_runs))) return 1;
  }
  const std::filesystem::path study_dir = options.out / "study";
  if (!WriteParameterStudy(study_dir, options.seed)) return 1;
  std::printf(
      "wrote %llu reference runs (%g Hz) to %s and %llu simulated runs (%g Hz) each to %s and "
      "%s, and a parameter study to %s (seed %llu)\n",
      static_cast<unsigned long long>(options.ref_runs), kRefRate, ref_dir.c_str(),
      static_cast<unsigned long long>(options.sim_runs), kSimRate, sim_a_dir.c_str(),
      sim_b_dir.c_str(), study_dir.c_str(), static_cast<unsigned long long>(options.seed));
  return 0;
}

}  // namespace
}  // namespace wasserwarp::examples

int main(int argc, char** argv) {
  const std::optional<wasserwarp::examples::Options> options =
      wasserwarp::examples::ParseOptions(argc, argv);
  if (!options.has_value()) return 2;
  return wasserwarp::examples::Run(*options);
}
