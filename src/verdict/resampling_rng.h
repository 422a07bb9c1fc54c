// The random numbers of the verdict's resamples: one small generator per
// resample, seeded from (seed, resample index, stream), so that a resample
// draws the same numbers whichever thread runs it and in whatever order.
//
// Written out here rather than taken from <random>: the standard leaves the
// algorithms of its distributions to each library, and a verdict must not
// change with the compiler it was built with.

#ifndef WASSERWARP_SRC_VERDICT_RESAMPLING_RNG_H_
#define WASSERWARP_SRC_VERDICT_RESAMPLING_RNG_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace wasserwarp::resampling {

// Steele, Lea and Flood's SplitMix64 finaliser: a bijection of 64-bit words
// whose outputs for neighbouring inputs look independent.
constexpr uint64_t SplitMix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

// Blackman and Vigna's xoshiro256**, its state filled by SplitMix64 as they
// recommend.
class ResampleRng {
 public:
  ResampleRng(uint64_t seed, uint64_t index, uint64_t stream) {
    uint64_t x = SplitMix64(SplitMix64(SplitMix64(seed) ^ index) ^ stream);
    for (uint64_t& word : state_) {
      x = SplitMix64(x);
      word = x;
    }
  }

  uint64_t Next() {
    const uint64_t result = Rotl(state_[1] * 5, 7) * 9;
    const uint64_t t = state_[1] << 17;
    state_[2] ^= state_[0];
    state_[3] ^= state_[1];
    state_[1] ^= state_[2];
    state_[0] ^= state_[3];
    state_[2] ^= t;
    state_[3] = Rotl(state_[3], 45);
    return result;
  }

  // Uniform on [0, bound), bound >= 1, without modulo bias: words below
  // 2^64 mod bound are redrawn, leaving a whole number of copies of [0, bound).
  uint64_t Below(uint64_t bound) {
    const uint64_t threshold = (0 - bound) % bound;
    uint64_t x = Next();
    while (x < threshold) x = Next();
    return x % bound;
  }

 private:
  static constexpr uint64_t Rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

  uint64_t state_[4];
};

// Moves a uniformly random `count`-subset of `items` to its front, in random
// order (the first `count` steps of a Fisher-Yates shuffle).
inline void ShuffleFront(std::vector<size_t>& items, size_t count, ResampleRng& rng) {
  for (size_t i = 0; i < count && i + 1 < items.size(); ++i) {
    const size_t j = i + static_cast<size_t>(rng.Below(items.size() - i));
    std::swap(items[i], items[j]);
  }
}

// How often each of n items is drawn in n draws with replacement: a bootstrap resample as
// integer weights.
inline std::vector<double> DrawCounts(size_t n, ResampleRng rng) {
  std::vector<double> counts(n, 0.0);
  for (size_t k = 0; k < n; ++k) counts[rng.Below(n)] += 1.0;
  return counts;
}

}  // namespace wasserwarp::resampling

#endif  // WASSERWARP_SRC_VERDICT_RESAMPLING_RNG_H_
