// A run written out sample by sample, for tests that check exact values.

#ifndef WASSERWARP_TESTS_MAKE_RUN_H_
#define WASSERWARP_TESTS_MAKE_RUN_H_

#include <string>
#include <utility>
#include <vector>

#include "wasserwarp/series.h"

namespace wasserwarp::test_data {

// `values` row-major: one row per time, one column per channel.
inline Series MakeRun(std::string id, std::vector<std::string> channels, std::vector<double> times,
                      std::vector<double> values) {
  return Series{.id = std::move(id),
                .channels = std::move(channels),
                .times = std::move(times),
                .values = std::move(values)};
}

}  // namespace wasserwarp::test_data

#endif  // WASSERWARP_TESTS_MAKE_RUN_H_
