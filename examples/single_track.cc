#include "single_track.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <numbers>

namespace wasserwarp::examples {

double SingleSineSteer::At(double t) const {
  const double phase = (t - start) / duration;
  if (phase <= 0.0 || phase >= 1.0) return 0.0;
  return amplitude * std::sin(2.0 * std::numbers::pi * phase);
}

SingleTrackResponse::SingleTrackResponse(const VehicleParams& vehicle, double speed,
                                         const SingleSineSteer& steer, double end, double step)
    : vehicle_(vehicle), speed_(speed), steer_(steer), step_(step) {
  const size_t steps = static_cast<size_t>(std::ceil(end / step));
  states_.reserve(steps + 1);
  states_.push_back({0.0, 0.0});
  for (size_t k = 0; k < steps; ++k) {
    const State& x = states_.back();
    const double t = static_cast<double>(k) * step;
    const double h = step;
    const double steer_mid = steer.At(t + h / 2);
    const State k1 = Derivative(x, steer.At(t));
    const State k2 = Derivative(
        {x.side_slip + h / 2 * k1.side_slip, x.yaw_rate + h / 2 * k1.yaw_rate}, steer_mid);
    const State k3 = Derivative(
        {x.side_slip + h / 2 * k2.side_slip, x.yaw_rate + h / 2 * k2.yaw_rate}, steer_mid);
    const State k4 =
        Derivative({x.side_slip + h * k3.side_slip, x.yaw_rate + h * k3.yaw_rate}, steer.At(t + h));
    states_.push_back(
        {x.side_slip + h / 6 * (k1.side_slip + 2 * k2.side_slip + 2 * k3.side_slip + k4.side_slip),
         x.yaw_rate + h / 6 * (k1.yaw_rate + 2 * k2.yaw_rate + 2 * k3.yaw_rate + k4.yaw_rate)});
  }
}

SingleTrackResponse::State SingleTrackResponse::Derivative(const State& state,
                                                           double steering) const {
  const VehicleParams& p = vehicle_;
  const double front_force = p.front_cornering * (steering - state.side_slip -
                                                  p.front_axle_to_cg * state.yaw_rate / speed_);
  const double rear_force =
      p.rear_cornering * (-state.side_slip + p.rear_axle_to_cg * state.yaw_rate / speed_);
  return {(front_force + rear_force) / (p.mass * speed_) - state.yaw_rate,
          (p.front_axle_to_cg * front_force - p.rear_axle_to_cg * rear_force) / p.yaw_inertia};
}

double SingleTrackResponse::LateralAcceleration(const State& state, double steering) const {
  // a_y = v (beta' + r), which the force balance gives directly.
  return speed_ * (Derivative(state, steering).side_slip + state.yaw_rate);
}

Measurement SingleTrackResponse::At(double t) const {
  const double position = std::clamp(t / step_, 0.0, static_cast<double>(states_.size() - 1));
  const size_t k = std::min(static_cast<size_t>(position), states_.size() - 2);
  const double w = position - static_cast<double>(k);
  const State state = {(1 - w) * states_[k].side_slip + w * states_[k + 1].side_slip,
                       (1 - w) * states_[k].yaw_rate + w * states_[k + 1].yaw_rate};
  const double steering = steer_.At(t);
  return {steering, state.yaw_rate, LateralAcceleration(state, steering)};
}

}  // namespace wasserwarp::examples
