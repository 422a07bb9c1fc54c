// `wasserwarp validations list|show|cancel|watch`: the validations a server keeps for a
// session, those queued with `validate --detach` among them.

#ifndef WASSERWARP_CLIENT_VALIDATIONS_COMMAND_H_
#define WASSERWARP_CLIENT_VALIDATIONS_COMMAND_H_

#include "command.h"

namespace wasserwarp::cli {

Command ValidationsCommand();

}  // namespace wasserwarp::cli

#endif  // WASSERWARP_CLIENT_VALIDATIONS_COMMAND_H_
