// Numbers drawn from fuzz input the way hostile or broken clients send them:
// mostly ordinary, often at the edges (NaN, infinities, huge, subnormal,
// arbitrary bit patterns), and timestamps that mostly increase.

#ifndef WASSERWARP_TESTS_FUZZ_FUZZ_NUMBERS_H_
#define WASSERWARP_TESTS_FUZZ_FUZZ_NUMBERS_H_

#include <fuzzer/FuzzedDataProvider.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

namespace wasserwarp::fuzz {

inline double EdgyDouble(FuzzedDataProvider& input) {
  using Limits = std::numeric_limits<double>;
  switch (input.ConsumeIntegralInRange<int>(0, 9)) {
    case 0:
      return Limits::quiet_NaN();
    case 1:
      return input.ConsumeBool() ? Limits::infinity() : -Limits::infinity();
    case 2:
      return input.ConsumeBool() ? Limits::max() : -Limits::max();
    case 3:
      return Limits::denorm_min() * input.ConsumeIntegralInRange<int>(-4, 4);
    case 4:
      return input.ConsumeFloatingPoint<double>();
    case 5:
      return std::bit_cast<double>(input.ConsumeIntegral<uint64_t>());
    default:
      // Sixteenths keep sums exact, so the harnesses' own arithmetic on
      // ordinary values cannot be what goes wrong.
      return input.ConsumeIntegralInRange<int>(-4096, 4096) / 16.0;
  }
}

// The next timestamp after `previous`: usually later, sometimes equal,
// earlier or edgy.
inline double NextTime(FuzzedDataProvider& input, double previous) {
  switch (input.ConsumeIntegralInRange<int>(0, 15)) {
    case 0:
      return previous;
    case 1:
      return previous - 1.0;
    case 2:
      return EdgyDouble(input);
    case 3:
      // The smallest possible step.
      return std::nextafter(previous, std::numeric_limits<double>::infinity());
    default:
      return previous + input.ConsumeIntegralInRange<int>(1, 64) / 64.0;
  }
}

}  // namespace wasserwarp::fuzz

#endif  // WASSERWARP_TESTS_FUZZ_FUZZ_NUMBERS_H_
