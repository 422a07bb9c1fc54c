// --threads and --seed: how a command computes, not what. Every command that takes them reads them
// through these definitions, so that they are checked and worded alike.

#ifndef WASSERWARP_CLIENT_EXECUTION_FLAGS_H_
#define WASSERWARP_CLIENT_EXECUTION_FLAGS_H_

#include <cstdint>

#include "flag_definition.h"
#include "wasserwarp/cost_matrix.h"

namespace wasserwarp::cli {

// Sets max_threads, at least 1.
extern const FlagDefinition<CostMatrixOptions> kThreadsFlag;

// Sets the seed of the command's random draws, a non-negative integer.
extern const FlagDefinition<uint64_t> kSeedFlag;

}  // namespace wasserwarp::cli

#endif  // WASSERWARP_CLIENT_EXECUTION_FLAGS_H_
