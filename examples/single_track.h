// The linear single-track ("bicycle") model of a car's lateral dynamics at
// constant speed, driven through a single-sine lane change.
//
// States are the side-slip angle beta at the centre of gravity and the yaw
// rate r; tyre forces are linear in the slip angles:
//   m v (beta' + r) = Fyf + Fyr,   Iz r' = lf Fyf - lr Fyr,
//   Fyf = Cf (delta - beta - lf r / v),   Fyr = Cr (-beta + lr r / v).

#ifndef WASSERWARP_EXAMPLES_SINGLE_TRACK_H_
#define WASSERWARP_EXAMPLES_SINGLE_TRACK_H_

#include <vector>

namespace wasserwarp::examples {

struct VehicleParams {
  double mass;              // kg
  double yaw_inertia;       // kg m^2
  double front_axle_to_cg;  // lf, m
  double rear_axle_to_cg;   // lr, m
  double front_cornering;   // Cf, N/rad, both front tyres together
  double rear_cornering;    // Cr, N/rad, both rear tyres together
};

// Steering angle at the wheels: one full sine period of `amplitude` (rad)
// from `start` over `duration` (s), zero before and after.
struct SingleSineSteer {
  double start;
  double duration;
  double amplitude;

  double At(double t) const;
};

struct Measurement {
  double steering_angle;        // rad, at the wheels
  double yaw_rate;              // rad/s
  double lateral_acceleration;  // m/s^2, at the centre of gravity
};

// The model's response from rest in a straight line at t = 0, integrated with
// fourth-order Runge-Kutta on a fixed step and read off at any time in
// [0, end] by linear interpolation between steps.
class SingleTrackResponse {
 public:
  SingleTrackResponse(const VehicleParams& vehicle, double speed, const SingleSineSteer& steer,
                      double end, double step);

  Measurement At(double t) const;

 private:
  struct State {
    double side_slip;
    double yaw_rate;
  };

  State Derivative(const State& state, double steering) const;
  double LateralAcceleration(const State& state, double steering) const;

  VehicleParams vehicle_;
  double speed_;
  SingleSineSteer steer_;
  double step_;
  std::vector<State> states_;  // states_[k] at time k * step_
};

}  // namespace wasserwarp::examples

#endif  // WASSERWARP_EXAMPLES_SINGLE_TRACK_H_
