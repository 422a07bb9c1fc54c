#include "wasserwarp/run_checksum.h"

#include <bit>

#include "absl/strings/str_format.h"

namespace wasserwarp {

uint64_t RunChecksum(const Series& series) {
  // Each step is a bijection of the state for a given word (xor, multiply by
  // an odd constant, xorshift), so any single changed word changes the result.
  uint64_t hash = 0xcbf29ce484222325;
  const auto mix = [&hash](uint64_t word) {
    hash ^= word;
    hash *= 0x9e3779b97f4a7c15;
    hash ^= hash >> 29;
  };
  mix(series.times.size());
  mix(series.channels.size());
  for (double time : series.times) mix(std::bit_cast<uint64_t>(time));
  for (double value : series.values) mix(std::bit_cast<uint64_t>(value));
  return hash;
}

std::string RunChecksumHex(uint64_t checksum) { return absl::StrFormat("%016x", checksum); }

}  // namespace wasserwarp
