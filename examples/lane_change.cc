#include "lane_change.h"

#include <cerrno>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <numbers>
#include <string>
#include <system_error>
#include <vector>

namespace wasserwarp::examples {
namespace {

constexpr double kRecordLength = 8.0;  // s
constexpr double kIntegrationStep = 1e-3;

// Run-to-run scatter of the measured runs, as half-widths of uniform ranges
// relative to nominal.
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

}  // namespace

bool WriteSimulation(const VehicleParams& vehicle, double speed, const SingleSineSteer& steer,
                     const std::filesystem::path& path) {
  const std::vector<double> times = SampleTimes(kSimRate);
  const SingleTrackResponse response(vehicle, speed, steer, kRecordLength, kIntegrationStep);
  std::vector<Measurement> samples;
  samples.reserve(times.size());
  for (double t : times) samples.push_back(response.At(t));
  return WriteRun(path, times, samples);
}

// The real car, recorded on its own clock: sample k at recorder time k / rate
// happened at manoeuvre time offset + stretch * k / rate.
bool WriteReference(RandomSource& random, const VehicleParams& car,
                    const std::filesystem::path& path) {
  SingleSineSteer steer = kLaneChange;
  steer.amplitude = random.Scatter(kLaneChange.amplitude, kRefAmplitudeScatter);
  const double speed = random.Scatter(kSpeed, kRefSpeedScatter);
  const double offset = kRefMaxStartOffset * random.Uniform();
  const double stretch = random.Scatter(1.0, kRefStretchScatter);

  const std::vector<double> times = SampleTimes(kRefRate);
  const double end = offset + stretch * times.back();
  const SingleTrackResponse response(car, speed, steer, end, kIntegrationStep);
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
  return WriteRun(path, times, samples);
}

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

}  // namespace wasserwarp::examples
