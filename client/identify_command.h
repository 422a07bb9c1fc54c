// `wasserwarp identify --sim PATH... --sim-params FILE --ref PATH...`: which parameter values
// make the simulation closest to the measurements, and how sure that is.

#ifndef WASSERWARP_CLIENT_IDENTIFY_COMMAND_H_
#define WASSERWARP_CLIENT_IDENTIFY_COMMAND_H_

#include "command.h"

namespace wasserwarp::cli {

Command IdentifyCommand();

}  // namespace wasserwarp::cli

#endif  // WASSERWARP_CLIENT_IDENTIFY_COMMAND_H_
