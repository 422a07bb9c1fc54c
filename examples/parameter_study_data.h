// The parameter study data set, for `wasserwarp identify` and `wasserwarp
// sensitivity`: simulations of the demo car on a grid of front and rear
// cornering stiffnesses, and measured runs of a car whose stiffnesses are
// known, so that tests can check that identification finds them. The files it
// writes are listed at the top of generate_lane_change.cc.

#ifndef WASSERWARP_EXAMPLES_PARAMETER_STUDY_DATA_H_
#define WASSERWARP_EXAMPLES_PARAMETER_STUDY_DATA_H_

#include <cstdint>
#include <filesystem>

namespace wasserwarp::examples {

// Writes the data set under `dir`, drawn from `seed` alone. Prints the
// problem and returns false when a file cannot be written.
bool WriteParameterStudy(const std::filesystem::path& dir, uint64_t seed);

}  // namespace wasserwarp::examples

#endif  // WASSERWARP_EXAMPLES_PARAMETER_STUDY_DATA_H_
