// `wasserwarp sessions create|list|show|delete`: the sessions on a server, which hold runs
// between uploads and validations.

#ifndef WASSERWARP_CLIENT_SESSIONS_COMMAND_H_
#define WASSERWARP_CLIENT_SESSIONS_COMMAND_H_

#include "command.h"

namespace wasserwarp::cli {

Command SessionsCommand();

}  // namespace wasserwarp::cli

#endif  // WASSERWARP_CLIENT_SESSIONS_COMMAND_H_
