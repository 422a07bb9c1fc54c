// `wasserwarp twed A.csv B.csv`: the TWED between two runs.

#ifndef WASSERWARP_CLIENT_TWED_COMMAND_H_
#define WASSERWARP_CLIENT_TWED_COMMAND_H_

#include "command.h"

namespace wasserwarp::cli {

Command TwedCommand();

}  // namespace wasserwarp::cli

#endif  // WASSERWARP_CLIENT_TWED_COMMAND_H_
