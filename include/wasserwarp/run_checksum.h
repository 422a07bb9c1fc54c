// The checksum of a run's samples: the servers store it with each run and check it on loading,
// validation records name their runs by it, and a request digest covers it, so that the CLI
// without a server computes the same value for the same file.

#ifndef WASSERWARP_RUN_CHECKSUM_H_
#define WASSERWARP_RUN_CHECKSUM_H_

#include <cstdint>
#include <string>

#include "wasserwarp/series.h"

namespace wasserwarp {

// A 64-bit checksum of a run's samples (count, channels, times and values as IEEE bit
// patterns). It finds damage, not deliberate tampering. Its values are stored in databases:
// they must never change.
uint64_t RunChecksum(const Series& series);

// `checksum` as 16 lowercase hexadecimal digits.
std::string RunChecksumHex(uint64_t checksum);

}  // namespace wasserwarp

#endif  // WASSERWARP_RUN_CHECKSUM_H_
