// `wasserwarp compare --sim-a PATH... --sim-b PATH... --ref PATH...`: which of two model
// variants is closer to the same reference runs, by how much, and how sure that is.

#ifndef WASSERWARP_CLIENT_COMPARE_COMMAND_H_
#define WASSERWARP_CLIENT_COMPARE_COMMAND_H_

#include "command.h"

namespace wasserwarp::cli {

Command CompareCommand();

}  // namespace wasserwarp::cli

#endif  // WASSERWARP_CLIENT_COMPARE_COMMAND_H_
