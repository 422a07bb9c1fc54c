// The demo's car, manoeuvre and recording chain, shared by the data sets that
// wasserwarp-example-data writes, so that they all describe the same car.

#ifndef WASSERWARP_EXAMPLES_LANE_CHANGE_H_
#define WASSERWARP_EXAMPLES_LANE_CHANGE_H_

#include <filesystem>
#include <string_view>

#include "random_source.h"
#include "single_track.h"

namespace wasserwarp::examples {

// A mid-size passenger car; its understeer gradient
// m / L (lr / Cf - lf / Cr) is about 0.005 rad / (m/s^2), i.e. 2.8 deg/g.
inline constexpr VehicleParams kCar = {.mass = 1550.0,
                                       .yaw_inertia = 2600.0,
                                       .front_axle_to_cg = 1.15,
                                       .rear_axle_to_cg = 1.55,
                                       .front_cornering = 75000.0,
                                       .rear_cornering = 95000.0};
inline constexpr double kSpeed = 22.2;  // m/s, 80 km/h
// About 30 degrees at the steering wheel with a 15:1 ratio.
inline constexpr SingleSineSteer kLaneChange = {.start = 1.0, .duration = 2.8, .amplitude = 0.035};

inline constexpr double kSimRate = 100.0;  // Hz
inline constexpr double kRefRate = 250.0;  // Hz

// Run-to-run scatter of simulated runs, as half-widths of uniform ranges
// relative to nominal.
inline constexpr double kSimMassScatter = 0.03;
inline constexpr double kSimCorneringScatter = 0.05;
inline constexpr double kSimAmplitudeScatter = 0.05;
inline constexpr double kSimSpeedScatter = 0.02;

// Simulates `vehicle` through `steer` and writes the run at kSimRate to
// `path`. Prints the problem and returns false when the file cannot be written.
bool WriteSimulation(const VehicleParams& vehicle, double speed, const SingleSineSteer& steer,
                     const std::filesystem::path& path);

// Writes one measured run of `car` to `path`, with the driver's scatter, the
// recorder's start offset and clock stretch and the sensors' noise drawn from
// `random`. Prints the problem and returns false when the file cannot be
// written.
bool WriteReference(RandomSource& random, const VehicleParams& car,
                    const std::filesystem::path& path);

// Creates `dir` and removes the `<prefix>*.csv` runs a previous call left
// there: wasserwarp reads every CSV file of a directory, so runs beyond this
// call's count would silently join the data set.
bool PrepareDirectory(const std::filesystem::path& dir, std::string_view prefix);

}  // namespace wasserwarp::examples

#endif  // WASSERWARP_EXAMPLES_LANE_CHANGE_H_
