#include "sessions/stored_session.h"

namespace wasserwarp::service {

int64_t SampleBytes(int64_t times, int64_t values) {
  return static_cast<int64_t>(sizeof(double)) * (times + values);
}

int64_t HeaderBytes(std::string_view series_id, const std::vector<std::string>& channels,
                    const SimulationInputs& inputs, const std::vector<std::string>& units) {
  int64_t bytes = static_cast<int64_t>(series_id.size() + inputs.trial.size());
  for (const std::string& channel : channels) bytes += static_cast<int64_t>(channel.size());
  for (const std::string& unit : units) bytes += static_cast<int64_t>(unit.size());
  for (const auto& [name, value] : inputs.parameters) {
    bytes += static_cast<int64_t>(name.size() + sizeof(value));
  }
  return bytes;
}

}  // namespace wasserwarp::service
