// Writes a demo data set for wasserwarp: measured lane changes of one real
// car (references) and two simulation models of it, one with plausible
// parameters and one with a front cornering stiffness 40 % too low.
//
//   wasserwarp-example-data --out DIR [--seed N] [--sim-runs N] [--ref-runs N]
//
// DIR/ref/ref_XX.csv     250 Hz, filtered measurement noise, recording start 0-0.3 s
//                        into the manoeuvre, time axis stretched by 1 +- 2 %
// DIR/sim_a/sim_XX.csv   100 Hz, nominal model with parameter scatter
// DIR/sim_b/sim_XX.csv   the same draws as sim_a, run for run, but with the
//                        front cornering stiffness too low (understeer)

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <numbers>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "random_source.h"
#include "single_track.h"

namespace wasserwarp::examples {
namespace {

// A mid-size passenger car; its understeer gradient
// m / L (lr / Cf - lf / Cr) is about 0.005 rad / (m/s^2), i.e. 2.8 deg/g.
constexpr VehicleParams kCar = {.mass = 1550.0,
                                .yaw_inertia = 2600.0,
                                .front_axle_to_cg = 1.15,
                                .rear_axle_to_cg = 1.55,
                                .front_cornering = 75000.0,
                                .rear_cornering = 95000.0};
constexpr double kSpeed = 22.2;  // m/s, 80 km/h
// About 30 degrees at the steering wheel with a 15:1 ratio.
constexpr SingleSineSteer kLaneChange = {.start = 1.0, .duration = 2.8, .amplitude = 0.035};
constexpr double kSimWrongFrontCornering = 0.6;

constexpr double kRecordLength = 8.0;  // s
constexpr double kSimRate = 100.0;     // Hz
constexpr double kRefRate = 250.0;     // Hz
constexpr double kIntegrationStep = 1e-3;

// Run-to-run scatter, as half-widths of uniform ranges relative to nominal.
constexpr double kSimMassScatter = 0.03;
constexpr double kSimCorneringScatter = 0.05;
constexpr double kSimAmplitudeScatter = 0.05;
constexpr double kSimSpeedScatter = 0.02;
constexpr double kRefAmplitudeScatter = 0.06;
constexpr double kRefSpeedScatter = 0.03;
constexpr double kRefMaxStartOffset = 0.3;  // s
constexpr double kRefStretchScatter = 0.02;

// Sensor noise, standard deviations.
constexpr double kSteeringNoise = 2e-4;             // rad
constexpr double kYawRateNoise = 0.005;             // rad/s
constexpr double kLateralAccelerationNoise = 0.05;  // m/s^2
// The data logger's first-order low-pass (anti-aliasing) filter: measured
// channels are never raw sensor noise at the sampling rate.
constexpr double kLoggerCutoff = 10.0;  // Hz

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

bool WriteRun(const std::filesystem::path& path, const std::vector<double>& times,
              const std::vector<Measurement>& samples) {
  std::FILE* file = std::fopen(path.c_str(), "w");
  if (file == nullptr) {
    std::fprintf(stderr, "cannot write %s: %s\n", path.c_str(), std::strerror(errno));
    return false;
  }
  std::fputs("time,steering_angle,yaw_rate,lateral_acceleration\n", file);
  for (size_t i = 0; i < times.size(); ++i) {
    std::fprintf(file, "%.9g,%.9g,%.9g,%.9g\n", times[i], samples[i].steering_angle,
                 samples[i].yaw_rate, samples[i].lateral_acceleration);
  }
  const bool ok = std::ferror(file) == 0;
  if (std::fclose(file) != 0 || !ok) {
    std::fprintf(stderr, "cannot write %s\n", path.c_str());
    return false;
  }
  return true;
}

// Samples k / rate for k = 0 .. rate * kRecordLength.
std::vector<double> SampleTimes(double rate) {
  const size_t count = static_cast<size_t>(std::lround(rate * kRecordLength)) + 1;
  std::vector<double> times(count);
  for (size_t k = 0; k < count; ++k) times[k] = static_cast<double>(k) / rate;
  return times;
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

  const std::vector<double> times = SampleTimes(kSimRate);
  for (const auto& [params, dir] : {std::pair{vehicle, dir_a}, std::pair{understeering, dir_b}}) {
    const SingleTrackResponse response(params, speed, steer, kRecordLength, kIntegrationStep);
    std::vector<Measurement> samples;
    samples.reserve(times.size());
    for (double t : times) samples.push_back(response.At(t));
    if (!WriteRun(dir / name, times, samples)) return false;
  }
  return true;
}

// The real car, recorded on its own clock: sample k at recorder time k / rate
// happened at manoeuvre time offset + stretch * k / rate.
bool WriteReference(RandomSource& random, const std::filesystem::path& dir,
                    const std::string& name) {
  SingleSineSteer steer = kLaneChange;
  steer.amplitude = random.Scatter(kLaneChange.amplitude, kRefAmplitudeScatter);
  const double speed = random.Scatter(kSpeed, kRefSpeedScatter);
  const double offset = kRefMaxStartOffset * random.Uniform();
  const double stretch = random.Scatter(1.0, kRefStretchScatter);

  const std::vector<double> times = SampleTimes(kRefRate);
  const double end = offset + stretch * times.back();
  const SingleTrackResponse response(kCar, speed, steer, end, kIntegrationStep);
  const double keep = std::exp(-2.0 * std::numbers::pi * kLoggerCutoff / kRefRate);
  std::vector<Measurement> samples;
  samples.reserve(times.size());
  for (double t : times) {
    Measurement m = response.At(offset + stretch * t);
    m.steering_angle += kSteeringNoise * random.Normal();
    m.yaw_rate += kYawRateNoise * random.Normal();
    m.lateral_acceleration += kLateralAccelerationNoise * random.Normal();
    if (!samples.empty()) {
      const Measurement& last = samples.back();
      m.steering_angle = keep * last.steering_angle + (1.0 - keep) * m.steering_angle;
      m.yaw_rate = keep * last.yaw_rate + (1.0 - keep) * m.yaw_rate;
      m.lateral_acceleration =
          keep * last.lateral_acceleration + (1.0 - keep) * m.lateral_acceleration;
    }
    samples.push_back(m);
  }
  return WriteRun(dir / name, times, samples);
}

// Creates `dir` and removes the `<prefix>*.csv` runs a previous call left
// there: wasserwarp reads every CSV file of a directory, so runs beyond this
// call's count would silently join the data set.
bool PrepareDirectory(const std::filesystem::path& dir, std::string_view prefix) {
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  if (error) {
    std::fprintf(stderr, "cannot create %s: %s\n", dir.c_str(), error.message().c_str());
    return false;
  }
  std::vector<std::filesystem::path> old_runs;
  for (const std::filesystem::directory_entry& entry :
       std::filesystem::directory_iterator(dir, error)) {
    const std::string name = entry.path().filename().string();
    if (entry.is_regular_file() && name.starts_with(prefix) && name.ends_with(".csv")) {
      old_runs.push_back(entry.path());
    }
  }
  for (size_t i = 0; i < old_runs.size() && !error; ++i) {
    std::filesystem::remove(old_runs[i], error);
  }
  if (error) {
    std::fprintf(stderr, "cannot clear old runs from %s: %s\n", dir.c_str(),
                 error.message().c_str());
    return false;
  }
  return true;
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
    if (!WriteReference(ref_random, ref_dir, RunName("ref_", i, options.ref_runs))) return 1;
  }
  std::printf(
      "wrote %llu reference runs (%g Hz) to %s and %llu simulated runs (%g Hz) each to %s and "
      "%s (seed %llu)\n",
      static_cast<unsigned long long>(options.ref_runs), kRefRate, ref_dir.c_str(),
      static_cast<unsigned long long>(options.sim_runs), kSimRate, sim_a_dir.c_str(),
      sim_b_dir.c_str(), static_cast<unsigned long long>(options.seed));
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
